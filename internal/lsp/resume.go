package lsp

import (
	"github.com/ccdag/ccdag/internal/describe"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
)

// resumeCache keeps a session's resumed chain (docs/spec.md §6) until the session changes.
type resumeCache struct {
	version uint64
	valid   bool
	res     *resume.Result
}

// resumed (worker) returns the session's resumed chain, computed again only after a change.
func (ss *sess) resumed() *resume.Result {
	if !ss.resume.valid || ss.resume.version != ss.session.Version {
		ss.resume = resumeCache{version: ss.session.Version, valid: true, res: resume.ComputeWith(ss.session, ss.srv.claudeVersion())}
	}
	return ss.resume.res
}

// resumeHover is the figure shown under the hover of the main log's first record.
func (ss *sess) resumeHover(rec *session.Rec) string {
	if rec.File != ss.session.Main() || rec != describe.FirstRec(rec.File) {
		return ""
	}
	return "\n\n---\n\n" + ss.resumed().Summary() // ccdag's own words and numbers: nothing from the log
}
