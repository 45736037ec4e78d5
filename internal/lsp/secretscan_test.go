package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
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
