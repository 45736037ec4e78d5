package lsp

import (
	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
)

type problemCounts struct {
	Error       int `json:"error"`
	Warning     int `json:"warning"`
	Information int `json:"information"`
	Hint        int `json:"hint"`
}

type summary struct {
	SessionID string        `json:"sessionId"`
	Files     int           `json:"files"`
	Records   int           `json:"records"`
	Problems  problemCounts `json:"problems"`
	// Resume is the resumed chain (docs/spec.md §6), ResumeText its one-line figure for a tooltip.
	Resume     *resume.Result `json:"resume"`
	ResumeText string         `json:"resumeText"`
}

func newChecker(s *session.Session) *check.Checker { return check.New(s) }

func (srv *server) severities() check.Severities {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.sev
}

// summarize counts a session's files, records and problems (severities resolved, all files).
func summarize(s *session.Session, c *check.Checker, sev check.Severities, res *resume.Result) summary {
	out := summary{SessionID: s.ID, Files: len(s.Files), Records: s.RecordCount(), Resume: res, ResumeText: res.Summary()}
	fs := c.Kept(sev)                                         // what the Checker keeps, and findings standing for the ones it counts
	resume.Annotate(fs, func() *resume.Result { return res }) // a bridged orphan counts as information
	for _, f := range fs {
		n := max(1, f.More)
		switch f.Severity {
		case check.Error:
			out.Problems.Error += n
		case check.Warning:
			out.Problems.Warning += n
		case check.Information:
			out.Problems.Information += n
		case check.Hint:
			out.Problems.Hint += n
		}
	}
	return out
}
