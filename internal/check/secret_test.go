package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
)

// TestSecretFindingsAreCappedLikeOthers: 100 000 secrets in one file are 1 000 kept findings and
// one standing for the rest, on the first of them (what an editor gets), and every one through
// Each (what check prints), and Len counts them all; no message holds the secret. The same for
// the secrets of lines that are no records (bare.go).
func TestSecretFindingsAreCappedLikeOthers(t *testing.T) {
	const n = 100_000
	key := secretstest.Plants(31)[0].Secret
	for _, tc := range []struct {
		name, head string
		line       func(i int) string
	}{
		{"records", "", func(i int) string {
			return fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":"s","message":{"role":"user","content":"k %s"}}`, i, key)
		}},
		{"bare lines", `{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n", func(i int) string {
			return fmt.Sprintf(`{"n":%d,"note":"%s"}`, i, key)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sb strings.Builder
			sb.WriteString(tc.head)
			for i := range n {
				sb.WriteString(tc.line(i) + "\n")
			}
			f := session.NewFile("/x.jsonl", []byte(sb.String()))
			s := session.New("s", "/")
			s.AddFile(f)
			c := New(s)
			first := strings.Count(tc.head, "\n") // the line of the first secret
			kept, more := 0, 0
			for _, fd := range c.File(f, nil) {
				if fd.Code != Secret {
					continue
				}
				if strings.Contains(fd.Message, key) {
					t.Fatal("a message holds the secret")
				}
				if fd.More > 0 {
					more += fd.More
					if fd.Line != first+MaxPerCode {
						t.Errorf("the finding standing for the rest is on line %d, want %d", fd.Line+1, first+MaxPerCode+1)
					}
				} else {
					kept++
				}
			}
			if kept != MaxPerCode || kept+more != n {
				t.Errorf("kept %d, more %d", kept, more)
			}
			all := 0
			for fd := range c.Each(f, nil) {
				if fd.Code == Secret {
					all++
				}
			}
			if all != n || c.Len() != n {
				t.Errorf("Each gives %d, Len %d, want %d", all, c.Len(), n)
			}
			if c2 := NewOptions(s, Options{NoSecrets: true}); len(c2.All(nil)) != 0 {
				t.Error("NoSecrets still scans")
			}
		})
	}
}

// Options.Scan answers for the scan: its hits are the findings (a line it says holds a secret
// has one where it says, with the rule it names; a line holding one that it says holds none has
// none), and each record is asked once.
func TestScanOption(t *testing.T) {
	key := secretstest.Plants(32)[0].Secret
	text := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"k ` + key + `"}}` + "\n" +
		`{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","message":{"role":"user","content":"plain"}}` + "\n"
	f := session.NewFile("/x.jsonl", []byte(text))
	s := session.New("s", "/")
	s.AddFile(f)
	asked := map[int]int{}
	c := NewOptions(s, Options{Scan: func(r *session.Rec) []secrets.Hit {
		asked[r.Line]++
		if r.Line == 1 {
			return []secrets.Hit{{Start: 3, End: 9, Rule: "kept-rule"}}
		}
		return nil
	}})
	var got []string
	for _, fd := range c.All(nil) {
		if fd.Code == Secret {
			got = append(got, fmt.Sprintf("%d %d-%d %s", fd.Line, fd.Span.Start, fd.Span.End, fd.Message[:strings.Index(fd.Message, ")")+1]))
		}
	}
	if want := "1 3-9 a secret (gitleaks rule kept-rule)"; strings.Join(got, "|") != want {
		t.Errorf("secret findings %q, want %q", got, want)
	}
	if asked[0] != 1 || asked[1] != 1 {
		t.Errorf("records asked %v, want each once", asked)
	}
}

// secretLines lists the secret findings of c as "line:start-end", in the order given.
func secretLines(fds []Finding) []string {
	var out []string
	for _, fd := range fds {
		if fd.Code == Secret && fd.More == 0 {
			out = append(out, fmt.Sprintf("%d:%d-%d", fd.Line+1, fd.Span.Start, fd.Span.End))
		}
	}
	return out
}

// scanned is what the scan finds in every line of f, as secretLines writes it: what `ccdag redact`
// replaces.
func scanned(f *session.File) []string {
	var out []string
	for i := 0; i < f.LineCount(); i++ {
		for _, h := range secrets.Default().Line(f.Line(i), nil) {
			out = append(out, fmt.Sprintf("%d:%d-%d", i+1, h.Start, h.End))
		}
	}
	return out
}

// A secret on a line that is no record (an object of keys ccdag does not read, a line past the
// faulty lines a file keeps) is a finding like one in a record: in the editor's list, in check's,
// counted, in line order among the records' findings, and kept current by edits. `ccdag redact`
// replaces it, so check must show it (it did not: `{"note":"token ghp_…"}` went unreported).
func TestSecretsOfLinesThatAreNoRecords(t *testing.T) {
	key := secretstest.Plants(33)[0].Secret
	rec := func(i int, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":"s","message":{"role":"user","content":"%s"}}`+"\n", i, text)
	}
	text := rec(1, "k "+key) +
		`{"note":"token ` + key + `"}` + "\n" + // unknown keys only
		rec(2, "plain") +
		"{}\n" +
		strings.Repeat("[1]\n", session.MaxLineErrors) + // kept as faulty records
		`["past the cap ` + key + `"]` + "\n" + // counted, not kept
		rec(3, "k2 "+key)
	f := session.NewFile("/x.jsonl", []byte(text))
	s := session.New("s", "/")
	s.AddFile(f)
	if !f.BareLines() {
		t.Fatal("no bare lines")
	}
	want := scanned(f)
	if len(want) != 4 {
		t.Fatalf("the scan finds %d secrets, want 4: %v", len(want), want)
	}
	c := New(s)
	if got := secretLines(c.File(f, nil)); !slices.Equal(got, want) {
		t.Errorf("File: %v, want %v", got, want)
	}
	if got := secretLines(slices.Collect(c.Each(f, nil))); !slices.Equal(got, want) {
		t.Errorf("Each: %v, want %v (in line order)", got, want)
	}
	if got := secretLines(NewOptions(s, Options{OnePass: true}).All(nil)); !slices.Equal(got, want) {
		t.Errorf("All, one pass: %v, want %v", got, want)
	}
	if n := c.Len(); n < 4 {
		t.Errorf("Len %d counts fewer than the secrets", n)
	}
	for fd := range c.Each(f, nil) { // a consumer that stops after the first is not called again
		_ = fd
		break
	}

	// Edits: a line inserted above moves the bare line's finding; the bare line removed takes it
	// away; a new one brings one.
	s.Edit(f, 0, 0, []byte(rec(0, "above")))
	c.Update()
	if got, want := secretLines(c.File(f, nil)), scanned(f); !slices.Equal(got, want) {
		t.Errorf("after a line above: %v, want %v", got, want)
	}
	s.Edit(f, f.LineStart(2), f.LineStart(3), nil) // the {"note":…} line
	c.Update()
	if got, want := secretLines(c.File(f, nil)), scanned(f); !slices.Equal(got, want) || len(got) != 3 {
		t.Errorf("after removing the note: %v, want %v", got, want)
	}
	s.Edit(f, len(f.Text()), len(f.Text()), []byte(`{"other":"`+key+`"}`+"\n"))
	c.Update()
	if got, want := secretLines(c.File(f, nil)), scanned(f); !slices.Equal(got, want) || len(got) != 4 {
		t.Errorf("after appending one: %v, want %v", got, want)
	}
	if c2 := NewOptions(s, Options{NoSecrets: true}); len(secretLines(c2.All(nil))) != 0 {
		t.Error("NoSecrets still scans bare lines")
	}
	// A file added to the session (a sub-agent's log) brings its bare lines' secrets.
	g := session.NewFile("/agent-a.jsonl", []byte(rec(9, "agent")+`{"other":"`+key+`"}`+"\n"))
	g.AgentID = "a"
	s.AddFile(g)
	c.Update()
	if got, want := secretLines(c.File(g, nil)), scanned(g); !slices.Equal(got, want) || len(got) != 1 {
		t.Errorf("an added file: %v, want %v", got, want)
	}
}
