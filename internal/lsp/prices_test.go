package lsp

import (
	"os"
	"path/filepath"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/prices"
)

func TestPricesSetting(t *testing.T) {
	for raw, want := range map[string]string{`{"prices":"/a.json"}`: "/a.json", `{"ccdag.prices":"/b.json"}`: "/b.json",
		`{"ccdag":{"prices":"/c.json","severity":{}}}`: "/c.json", `{"ccdag":{"prices":""}}`: ""} {
		if got, ok := pricesSetting(json.RawMessage(raw)); !ok || got != want {
			t.Errorf("%s: %q %v", raw, got, ok)
		}
	}
	for _, raw := range []string{``, `null`, `{}`, `{"prices":7}`, `[]`, `{"ccdag":{"severity":{}}}`} {
		if _, ok := pricesSetting(json.RawMessage(raw)); ok {
			t.Errorf("%s: a price setting", raw)
		}
	}
}

// TestPricesFromSettings: ccdag.prices pushed by the client replaces the table; an unreadable file
// leaves it and is said; an empty value brings back the built-in one.
func TestPricesFromSettings(t *testing.T) {
	defer prices.Use(nil)
	file := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(file, []byte(`{"claude-opus-4-5-20251101":{"input_cost_per_token":1e-06,"output_cost_per_token":2e-06}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, clientOpt{})
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ccdag": map[string]any{"prices": file}}})
	eventually(t, "the table from the setting", func() bool { return prices.Current().Source == file })
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ccdag": map[string]any{"prices": file + ".missing"}}})
	c.await("the message about the missing file", func() bool {
		for _, n := range c.notes {
			if n.method == "window/showMessage" {
				return true
			}
		}
		return false
	})
	if prices.Current().Source != file {
		t.Errorf("a missing file replaced the table: %q", prices.Current().Source)
	}
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ccdag": map[string]any{"prices": ""}}})
	eventually(t, "the built-in table again", func() bool { return prices.Current() == prices.Builtin() })
}
