package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestSecretsPublishedAfterStructure: a log of scanLaterBytes or more gets its structural
// diagnostics first, without waiting for the secret scan, and then the same diagnostics with the
// secrets found, at the same version; a small log gets both at once (TestRedactQuickFixes).
func TestSecretsPublishedAfterStructure(t *testing.T) {
	aws := secretstest.Plants(3)[0]
	content, _ := json.Marshal("key " + aws.Secret)
	text := string(genSession(scanLaterBytes)) +
		`{"type":"user","uuid":"x1","parentUuid":"no-such-parent","sessionId":"s","message":{"role":"user","content":` + string(content) + `}}` + "\n"
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(text), 0o644)
	uri := pathToURI(path)
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	codes := func(ds []diagnostic) map[string]int {
		m := map[string]int{}
		for _, d := range ds {
			m[d.Code]++
		}
		return m
	}
	first := codes(c.diagsAt(uri, 1))
	if first["orphan"] == 0 || first["secret"] != 0 {
		t.Fatalf("first publication: %v, want the orphan and no secret yet", first)
	}
	c.await("a second publication, with the secret", func() bool { return len(c.diags[uri]) >= 2 })
	c.mu.Lock()
	second := c.diags[uri][1]
	c.mu.Unlock()
	got := codes(second.Diagnostics)
	if second.Version == nil || *second.Version != 1 || got["secret"] != 1 || got["orphan"] != first["orphan"] {
		t.Fatalf("second publication: version %v, %v; want version 1, the secret and the orphan", second.Version, got)
	}
}

// TestDiagnosticsMaskTheIdsTheyQuote: ids holding a secret (a parentUuid naming no record, a call
// without result, a result of no call) are quoted by their diagnostics and repair titles with the
// secret's placeholder — a small log's one publication, and a large log's first one, published
// before the secret scan, as its second.
func TestDiagnosticsMaskTheIdsTheyQuote(t *testing.T) {
	var ps []secretstest.Planted
	for seed := uint64(70); len(ps) < 3; seed++ {
		for _, p := range secretstest.Plants(seed) {
			if p.Rule == "github-pat" {
				ps = append(ps, p)
			}
		}
	}
	tail := `{"type":"user","uuid":"q1","parentUuid":"` + ps[0].Secret + `","sessionId":"s","message":{"role":"user","content":"orphan"}}` + "\n" +
		`{"type":"assistant","uuid":"q2","parentUuid":"q1","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"` + ps[1].Secret + `","name":"Bash","input":{"command":"ls"}}]}}` + "\n" +
		`{"type":"user","uuid":"q3","parentUuid":"q2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + ps[2].Secret + `","content":"x"}]}}` + "\n" +
		`{"type":"user","uuid":"q4","parentUuid":"q3","sessionId":"s","message":{"role":"user","content":"go on"}}` + "\n"
	for _, tc := range []struct {
		name, head   string
		publications int
	}{
		{"small", "", 1},
		{"large", string(genSession(scanLaterBytes)), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			text := tc.head + tail
			os.WriteFile(path, []byte(text), 0o644)
			uri := pathToURI(path)
			c := newClient(t, clientOpt{})
			c.open(uri, text, 1)
			c.await("every publication", func() bool { return len(c.diags[uri]) >= tc.publications })
			c.mu.Lock()
			pubs := c.diags[uri]
			c.mu.Unlock()
			codes := map[string]bool{}
			for k, p := range pubs {
				b, _ := json.Marshal(p.Diagnostics)
				if leak := secretstest.Leak(string(b), ps); leak != "" {
					t.Errorf("publication %d shows %q of a secret", k+1, leak)
				}
				for _, d := range p.Diagnostics {
					codes[d.Code] = true
				}
			}
			for _, want := range []string{"orphan", "unmatched-tool-use", "unmatched-tool-result"} {
				if !codes[want] {
					t.Errorf("no %s diagnostic: the log no longer tests its message", want)
				}
			}
			last := pubs[len(pubs)-1].Diagnostics
			var acts []struct{ Title string }
			c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
				"range": rng{at(0, 0), at(strings.Count(text, "\n"), 0)}, "context": map[string]any{"diagnostics": last}}, &acts)
			for _, a := range acts {
				if leak := secretstest.Leak(a.Title, ps); leak != "" {
					t.Errorf("code action %q shows %q of a secret", a.Title, leak)
				}
			}
		})
	}
}
