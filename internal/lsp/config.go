package lsp

import (
	"context"
	"fmt"
	"time"

	json "github.com/goccy/go-json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/check"
)

// Settings: severities per diagnostic code, `ccdag.severity`, from initializationOptions and
// workspace/didChangeConfiguration (pushed by the client), or pulled with workspace/configuration
// when the client has it and pushes nothing. Accepted shapes, all with {"code": "level"}:
//
//	{"severity": {...}}                  initializationOptions, a configuration section "ccdag"
//	{"ccdag": {"severity": {...}}}       didChangeConfiguration settings (VS Code, Neovim)
//	{"ccdag.severity": {...}}            flattened keys
//
// Levels: error, warning, information (info), hint, off, or LSP's numbers 1–4 (0 = off).

// errSettingsNotObject: settings that are not a JSON object.
var errSettingsNotObject = fmt.Errorf("settings are not an object")

// settingValue is the value of the setting key in raw settings, in any of the shapes above:
// {"key"}, {"ccdag.key"}, {"ccdag": {"key"}}; found is false when raw does not set it (empty or
// null raw sets nothing). Every setting (severity, claudeVersion, prices, redact) is read so.
func settingValue(raw json.RawMessage, key string) (v json.RawMessage, found bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	var top map[string]json.RawMessage
	if unmarshal(raw, &top) != nil {
		return nil, false, errSettingsNotObject
	}
	if v, found = top[key]; found {
		return v, true, nil
	}
	if v, found = top["ccdag."+key]; found {
		return v, true, nil
	}
	if c, has := top["ccdag"]; has {
		var sec map[string]json.RawMessage
		if unmarshal(c, &sec) == nil {
			v, found = sec[key]
		}
	}
	return v, found, nil
}

// parseSettings returns the severities in raw, nil when raw holds no severity setting.
func parseSettings(raw json.RawMessage) (check.Severities, []error) {
	sevRaw, ok, err := settingValue(raw, "severity")
	if err != nil {
		return nil, []error{err}
	}
	if !ok || string(sevRaw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if unmarshal(sevRaw, &m) != nil {
		return nil, []error{fmt.Errorf("ccdag.severity is not an object of code: level")}
	}
	levels := map[string]string{}
	var errs []error
	for code, v := range m {
		var s string
		var n float64
		switch {
		case unmarshal(v, &s) == nil:
			levels[code] = s
		case unmarshal(v, &n) == nil && n >= 0 && n <= 4 && n == float64(int(n)):
			levels[code] = check.Severity(int(n)).String()
		default:
			errs = append(errs, fmt.Errorf("%s: level %s is not a name or 0–4", code, v))
		}
	}
	sev, more := check.FromMap(levels)
	return sev, append(errs, more...)
}

func (srv *server) didChangeConfiguration(r *request) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if r.params != nil && unmarshal(r.params, &p) != nil {
		srv.log.Warn("didChangeConfiguration: params not understood")
		return
	}
	sev, errs := parseSettings(p.Settings)
	for _, e := range errs {
		srv.log.Warn("settings", zap.Error(e))
	}
	srv.applyClaudeVersion(p.Settings)
	srv.applyPrices(p.Settings)
	srv.applyRedact(p.Settings, "didChangeConfiguration")
	if sev == nil {
		srv.mu.Lock()
		pull := srv.caps.configuration
		srv.mu.Unlock()
		if pull {
			go srv.pullConfiguration()
		}
		return
	}
	srv.setSeverities(sev)
}

// pullConfiguration asks the client for the "ccdag" section.
func (srv *server) pullConfiguration() {
	ctx, cancel := context.WithTimeout(srv.ctx, 10*time.Second)
	defer cancel()
	var res []json.RawMessage
	params := protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: "ccdag"}}}
	if err := srv.conn.Call(ctx, "workspace/configuration", params, &res); err != nil || len(res) == 0 {
		return
	}
	sev, errs := parseSettings(res[0])
	for _, e := range errs {
		srv.log.Warn("settings", zap.Error(e))
	}
	srv.applyClaudeVersion(res[0])
	srv.applyPrices(res[0])
	srv.applyRedact(res[0], "workspace/configuration")
	if sev != nil {
		srv.setSeverities(sev)
	}
}

// setSeverities applies new severities and republishes every session's diagnostics.
func (srv *server) setSeverities(sev check.Severities) {
	srv.mu.Lock()
	srv.sev = sev
	sessions := make([]*sess, 0, len(srv.sessions))
	for _, ss := range srv.sessions {
		sessions = append(sessions, ss)
	}
	srv.mu.Unlock()
	for _, ss := range sessions {
		ss.do(nil, func() {
			ss.graph.dropEncoded() // its problem markers carry the old severities
			if ss.session != nil {
				ss.queuePublish()
			}
		})
	}
}
