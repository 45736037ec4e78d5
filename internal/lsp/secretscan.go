package lsp

import (
	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/session"
)

// checker makes the checker of an open session. Benchmarks leave the secret scan out
// (hooks.noSecrets) to measure what it adds to the time from didOpen to diagnostics
// (BenchmarkOpenSecretScan, docs/PERFORMANCE.md).
func (srv *server) checker(s *session.Session) *check.Checker {
	return check.NewOptions(s, check.Options{NoSecrets: srv.hooks.noSecrets})
}

// scanLaterBytes is the size of an opened text from which its first diagnostics are published
// without the secret scan and the scan's findings follow in a second publication (of the same
// version): the scan cost 1.6–1.9 times the time to first diagnostics of a 4 MB and a 100 MB log
// (docs/PERFORMANCE.md). Below it the scan takes a few milliseconds: one publication.
const scanLaterBytes = 1 << 20

// openChecker (worker) makes the checker of a session opened with a text of n bytes.
func (ss *sess) openChecker(s *session.Session, n int) *check.Checker {
	if n < scanLaterBytes || ss.srv.hooks.noSecrets {
		return ss.srv.checker(s)
	}
	ss.scanLater = true
	return check.NewOptions(s, check.Options{NoSecrets: true})
}

// scanNow (worker), right after a publication: a session checked without the secret scan gets its
// whole checker, and its diagnostics are published again with the secrets found, before the jobs
// queued meanwhile (the graph's warm-up) run.
func (ss *sess) scanNow() {
	if !ss.scanLater || ss.session == nil {
		return
	}
	ss.scanLater = false
	ss.chk = ss.srv.checker(ss.session)
	ss.chk.Update()
	ss.publishAll()
}
