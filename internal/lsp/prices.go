package lsp

import (
	json "github.com/goccy/go-json"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/prices"
)

// The price table (docs/spec.md §10): the setting `ccdag.prices`, a file in LiteLLM's format,
// replaces the built-in table (empty: the built-in one again), read from the same places as
// ccdag.severity (config.go). Token figures notice the change and are priced again.

// pricesSetting returns the ccdag.prices value in raw settings, and whether it is there.
func pricesSetting(raw json.RawMessage) (string, bool) {
	v, ok, err := settingValue(raw, "prices")
	var path string
	if err != nil || !ok || unmarshal(v, &path) != nil {
		return "", false
	}
	return path, true
}

// applyPrices uses the table the settings name, when they name one; a file that cannot be read
// leaves the table as it was and is said (log and window/showMessage).
func (srv *server) applyPrices(raw json.RawMessage) {
	path, ok := pricesSetting(raw)
	if !ok {
		return
	}
	if path == "" {
		prices.Use(nil)
		return
	}
	t, err := prices.Load(path, func(p string, max int64) ([]byte, error) { return layout.ReadFileMax(p, "", max) })
	if err != nil {
		srv.log.Warn("ccdag.prices", zap.Error(err))
		srv.notify("window/showMessage", map[string]any{"type": 2, "message": "ccdag.prices: " + err.Error() + " (the built-in prices stay)"})
		return
	}
	prices.Use(t)
}
