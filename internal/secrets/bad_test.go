package secrets

import (
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestSplitAcrossLines: a secret cut by a line break of the log (two records) is not one secret,
// and nothing breaks.
func TestSplitAcrossLines(t *testing.T) {
	sc := Default()
	p := secretstest.Plants(5)[1] // GitHub token
	a := []byte(`{"type":"user","message":{"content":"` + p.Secret[:12])
	b := []byte(p.Secret[12:] + `"}}`)
	if h := append(sc.Line(a, nil), sc.Line(b, nil)...); len(h) != 0 {
		t.Errorf("half secrets reported: %v", h)
	}
}

// TestLongStringAndManyHits: a 10 MB string is scanned in time proportional to its keywords, and
// 100 000 secrets in one line are all found (the Checker caps findings per code, not the scanner).
func TestLongStringAndManyHits(t *testing.T) {
	sc := Default()
	clean := strings.Repeat("lorem ipsum dolor sit amet, ", 10<<20/28)
	p := secretstest.Plants(6)[0] // AWS
	line := []byte(`{"t":"` + clean + " " + p.Secret + ` end"}`)
	start := time.Now()
	hits := sc.Line(line, nil)
	took := time.Since(start)
	if len(hits) != 1 || string(line[hits[0].Start:hits[0].End]) != p.Secret {
		t.Fatalf("10 MB string: %v", hits)
	}
	var b strings.Builder
	b.WriteString(`{"t":"`)
	const n = 100_000
	for i := range n {
		b.WriteString(secretstest.Plants(uint64(i + 100))[0].Secret)
		b.WriteString(" ")
	}
	b.WriteString(`"}`)
	many := []byte(b.String())
	start = time.Now()
	hits = sc.Line(many, nil)
	tookMany := time.Since(start)
	// A few random keys fall to gitleaks' own filters (entropy of 3 bits or less, allowlists).
	if len(hits) < n-100 {
		t.Fatalf("%d of %d found", len(hits), n)
	}
	t.Logf("10 MB string: %v; %d hits in %d bytes: %v", took, n, len(many), tookMany)
}

// TestRuleMatchingEverywhere: a configuration whose rule matches every character costs one pass
// and its hits do not overlap.
func TestRuleMatchingEverywhere(t *testing.T) {
	sc, err := New(`
[[rules]]
id = "everything"
regex = '''.'''
`)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"t":"` + strings.Repeat("x ", 1<<17) + `"}`)
	hits := sc.Line(line, nil)
	if len(hits) != 1<<18 {
		t.Fatalf("%d hits", len(hits))
	}
	red := RedactLine(line, hits)
	if !strings.HasPrefix(string(red), `{"t":"[REDACTED:everything][REDACTED:everything][REDACTED:everything]`) {
		t.Errorf("%.80s", red)
	}
	if _, err := New(`[[rules]]
id = "bad"
regex = '''(('''`); err == nil {
		t.Error("a bad expression was accepted")
	}
}
