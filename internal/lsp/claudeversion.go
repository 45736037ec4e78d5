package lsp

import (
	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/resume"
)

// The setting `ccdag.claudeVersion` (docs/spec.md §13): the Claude Code version that will resume
// the sessions, for the resume figures and the findings on the chain; "" (the default) assumes the
// newest version in the logs under each session's config folder. Shapes as for ccdag.severity:
// {"claudeVersion"}, {"ccdag": {"claudeVersion"}}, {"ccdag.claudeVersion"}.

// parseClaudeVersion returns the setting in raw; ok is false when raw does not set it. A value that
// is not a version (or not a string) is an error and leaves the setting as it was.
func parseClaudeVersion(raw json.RawMessage) (v string, ok bool, err error) {
	val, has, err := settingValue(raw, "claudeVersion")
	if err != nil {
		return "", false, nil
	}
	if !has || string(val) == "null" {
		return "", has, nil
	}
	if unmarshal(val, &v) != nil {
		return "", false, errBadClaudeVersion
	}
	if v != "" {
		if !resume.ValidVersion(v) {
			return "", false, errBadClaudeVersion
		}
	}
	return v, true, nil
}

var errBadClaudeVersion = invalidSetting("ccdag.claudeVersion is not a version (e.g. \"2.1.328\", or \"\" for the newest in the logs)")

type invalidSetting string

func (e invalidSetting) Error() string { return string(e) }

// claudeVersion returns the setting ("" when unset).
func (srv *server) claudeVersion() string {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.claude
}

// applyClaudeVersion reads the setting from raw and, when it changed, drops every session's
// resumed chain and republishes its diagnostics (the findings on the chain speak of the loader).
func (srv *server) applyClaudeVersion(raw json.RawMessage) {
	v, ok, err := parseClaudeVersion(raw)
	if err != nil {
		srv.log.Warn("settings: " + err.Error())
	}
	if !ok {
		return
	}
	srv.mu.Lock()
	changed := srv.claude != v
	srv.claude = v
	sessions := make([]*sess, 0, len(srv.sessions))
	for _, ss := range srv.sessions {
		sessions = append(sessions, ss)
	}
	srv.mu.Unlock()
	if !changed {
		return
	}
	for _, ss := range sessions {
		ss.do(nil, func() {
			ss.resume = resumeCache{}
			if ss.session != nil {
				ss.queuePublish()
			}
		})
	}
}
