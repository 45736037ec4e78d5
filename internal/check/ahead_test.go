package check

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// smallChunks makes every file, however small, checked ahead in chunks of a few lines, so that a
// test's logs cross many chunk bounds and the helpers and the checker each take some.
func smallChunks(t *testing.T) {
	from, bytes, recs := aheadFrom, chunkBytes, chunkRecs
	aheadFrom, chunkBytes, chunkRecs = 0, 4<<10, 7
	t.Cleanup(func() { aheadFrom, chunkBytes, chunkRecs = from, bytes, recs })
}

// shown is every field of a session's findings that a user sees, in order, one string each.
func shown(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		rel := ""
		for _, r := range f.Related {
			rel += fmt.Sprintf(" [%s:%d %d-%d %s]", r.File.Path, r.Line, r.Span.Start, r.Span.End, r.Message)
		}
		out = append(out, fmt.Sprintf("%s:%d %d-%d %s %s %d %s%s", f.File.Path, f.Line, f.Span.Start, f.Span.End, f.Code, f.Severity, f.More, f.Message, rel))
	}
	return out
}

// sameAsSequential checks s with and without Parallel, as `ccdag check` does (OnePass), and
// returns the findings, failing on the first difference.
func sameAsSequential(t *testing.T, name string, s *session.Session) []Finding {
	t.Helper()
	want := NewOptions(s, Options{OnePass: true}).All(nil)
	c := NewOptions(s, Options{OnePass: true, Parallel: true})
	got := c.All(nil)
	if w, g := shown(want), shown(got); !slices.Equal(w, g) {
		for i := range min(len(w), len(g)) {
			if w[i] != g[i] {
				t.Fatalf("%s: finding %d\nsequential %s\nparallel   %s", name, i, w[i], g[i])
			}
		}
		t.Fatalf("%s: %d findings sequential, %d parallel", name, len(w), len(g))
	}
	if c.ahead != nil {
		t.Errorf("%s: the checker still holds the file it went through", name)
	}
	return got
}

// Every log of the corpus (real logs, with their findings and the secrets real logs hold) is
// checked to the same findings, in the same order, on every core as on one.
func TestParallelCheckIsSequentialOnTheCorpus(t *testing.T) {
	smallChunks(t)
	files := testcorpus.Files(t, "that the check of a log on every core finds what the check on one finds")
	n := 0
	for _, p := range files {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		n += len(sameAsSequential(t, p, s))
	}
	if n == 0 {
		t.Error("the corpus gave no finding at all: the comparison compared nothing")
	}
}

// planted is a generated log with secrets planted on random records (secretstest), a few records
// broken (an orphan, a duplicate uuid, an unanswered call), and how many secrets it holds.
func planted(t *testing.T, size int, seed uint64) (*session.Session, int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(gen.Session(size, seed)), "\n"), "\n")
	r := rand.New(rand.NewPCG(seed, 11))
	n := 0
	for i := range lines {
		switch r.IntN(8) {
		case 0:
			p := secretstest.Plants(seed + uint64(i))[r.IntN(4)] // not generic-api-key: planted as an assignment
			v, _ := json.Marshal("here: " + p.Secret + " ")
			lines[i] = fmt.Sprintf(`{"type":"user","uuid":"planted-%d","sessionId":"s","message":{"role":"user","content":%s}}`, i, v)
			n++
		case 1:
			lines[i] = fmt.Sprintf(`{"type":"user","uuid":"o-%d","parentUuid":"gone-%d","sessionId":"s","message":{"role":"user","content":"x"}}`, i, i)
		case 2:
			lines[i] = `{"type":"user","uuid":"twice","sessionId":"s","message":{"role":"user","content":"x"}}`
		case 3:
			lines[i] = fmt.Sprintf(`{"type":"assistant","uuid":"u-%d","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"tu-%d","name":"Bash","input":{}}]}}`, i, i)
		}
	}
	s := session.New("s", "/x")
	s.AddFile(session.NewFile("/x/s.jsonl", []byte(strings.Join(lines, "\n")+"\n")))
	return s, n
}

// A generated log with secrets planted on random lines: the same findings on every core as on
// one, every planted secret among them, with the default chunks (the log is past aheadFrom) and
// with chunks of a few lines.
func TestParallelCheckIsSequentialWithPlantedSecrets(t *testing.T) {
	s, n := planted(t, aheadFrom+(1<<20), 3)
	secretsIn := func(fs []Finding) int {
		k := 0
		for _, f := range fs {
			if f.Code == Secret {
				k++
			}
		}
		return k
	}
	if got := secretsIn(sameAsSequential(t, "default chunks", s)); n < 50 || got != n {
		t.Errorf("default chunks: %d secrets found, %d planted", got, n)
	}
	smallChunks(t)
	s, n = planted(t, 2<<20, 4)
	if got := secretsIn(sameAsSequential(t, "small chunks", s)); n < 50 || got != n {
		t.Errorf("small chunks: %d secrets found, %d planted", got, n)
	}
}

// A file whose findings are counted past MaxPerCode is listed again record by record (Each, every
// record's findings computed again): on every core too, to the same list.
func TestParallelCheckCountedPastTheCap(t *testing.T) {
	smallChunks(t)
	key := secretstest.Plants(5)[1].Secret
	var b strings.Builder
	for i := range 3*MaxPerCode + 11 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","sessionId":"s","message":{"role":"user","content":"k %s"}}`+"\n", i, key)
		case 1:
			b.WriteString(`{"type":"user"}` + "\n\n")
		default:
			fmt.Fprintf(&b, `{"type":"user","uuid":"o%d","parentUuid":"gone%d","sessionId":"s","message":{"role":"user","content":"x"}}`+"\n", i, i)
		}
	}
	s := session.New("s", "/x")
	s.AddFile(session.NewFile("/x/s.jsonl", []byte(b.String())))
	if fs := sameAsSequential(t, "counted", s); len(fs) != 3*MaxPerCode+11 {
		t.Errorf("%d findings, want %d", len(fs), 3*MaxPerCode+11)
	}
	// A listing stopped early lets the helpers go (and the next listing starts afresh).
	c := NewOptions(s, Options{OnePass: true, Parallel: true})
	f := s.Files[0]
	for range 2 {
		k := 0
		for range c.Each(f, nil) {
			if k++; k == 2*MaxPerCode {
				break
			}
		}
	}
	if c.ahead != nil {
		t.Error("a listing stopped early left its helpers' state behind")
	}
}
