package repair_test

import (
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/repair"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
)

// TestTitlesMaskTheSecretsTheyQuote: a repair's title quotes the ids of the line it repairs; one
// holding a secret shows its placeholder, never the secret (what `ccdag fix` prints, what the
// server's code actions are called), while the repaired text keeps every id as it was. A line
// repair first (NUL bytes) has the other repairs decided on a session read again.
func TestTitlesMaskTheSecretsTheyQuote(t *testing.T) {
	var ps []secretstest.Planted
	for seed := uint64(60); len(ps) < 2; seed++ {
		for _, p := range secretstest.Plants(seed) {
			if p.Rule == "github-pat" {
				ps = append(ps, p)
			}
		}
	}
	use, result := ps[0].Secret, ps[1].Secret
	log := "\x00\x00" + `{"sessionId":"s","type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}` + "\n" +
		`{"sessionId":"s","type":"assistant","uuid":"u2","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"tool_use","id":"` + use + `","name":"Bash","input":{"command":"ls"}}]}}` + "\n" +
		`{"sessionId":"s","type":"user","uuid":"u3","parentUuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + result + `","content":"x"}]}}` + "\n" +
		`{"sessionId":"s","type":"user","uuid":"u4","parentUuid":"u3","message":{"role":"user","content":"go on"}}` + "\n"
	f := session.NewFile("/p/s.jsonl", []byte(log))
	s := session.New("s", "/p")
	s.AddFile(f)
	files := repair.Session(s, repair.Options{})
	if len(files) != 1 {
		t.Fatalf("%d files repaired, want 1", len(files))
	}
	var titles []string
	for _, r := range files[0].Repairs {
		titles = append(titles, r.Title)
		if leak := secretstest.Leak(r.Title, ps); leak != "" {
			t.Errorf("%s: title %q shows %q of a secret", r.Code, r.Title, leak)
		}
	}
	all := strings.Join(titles, "\n")
	for _, want := range []string{"Insert an error result for Bash call [REDACTED:github-pat] after line 2", "Remove the result of an unknown call [REDACTED:github-pat] (line 3)"} {
		if !strings.Contains(all, want) {
			t.Errorf("no title %q among\n%s", want, all)
		}
	}
	if !strings.Contains(string(files[0].New), use) {
		t.Error("the inserted result does not answer the call's id as written: the repair itself was masked")
	}
}
