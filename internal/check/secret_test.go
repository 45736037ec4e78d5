package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
)

// TestSecretFindingsAreCappedLikeOthers: 100 000 secrets in one file are 1 000 kept findings and
// one standing for the rest (what an editor gets), and every one through All (what check prints);
// no message holds the secret.
func TestSecretFindingsAreCappedLikeOthers(t *testing.T) {
	const n = 100_000
	key := secretstest.Plants(31)[0].Secret
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","sessionId":"s","message":{"role":"user","content":"k %s"}}`+"\n", i, key)
	}
	f := session.NewFile("/x.jsonl", []byte(b.String()))
	s := session.New("s", "/")
	s.AddFile(f)
	c := New(s)
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
	if all != n {
		t.Errorf("Each gives %d", all)
	}
	if c2 := NewOptions(s, Options{NoSecrets: true}); len(c2.All(nil)) != 0 {
		t.Error("NoSecrets still scans")
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
