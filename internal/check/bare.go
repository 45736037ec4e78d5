package check

// The secrets of a file's bare lines: lines that are neither blank nor records (an object holding
// nothing ccdag reads, a faulty line past the ones a file keeps: session.File.BareLines). Nothing
// links them, so no other rule looks at them, but a person or tool wrote them: `ccdag redact`
// replaces a secret there, and `check`, the editor and a session's secret count must show it too.

import (
	"bytes"
	"iter"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
)

// secretMessage is the message of a secret finding (it names the rule, never the secret).
func secretMessage(rule string) string {
	return "a secret (gitleaks rule " + rule + "): anyone who reads or receives this log can use it; ccdag redact replaces it"
}

// bareFindings is what a Checker keeps of a file's bare lines: their first MaxPerCode secret
// findings, in line order, and how many there are in all.
type bareFindings struct {
	kept  []Finding
	n     int
	edits uint64 // the file's Edits when scanned
}

// bareSecrets yields the secret findings of f's bare lines in line order, scanned now. A file with
// none costs one look at a counter.
func (c *Checker) bareSecrets(f *session.File) iter.Seq[Finding] {
	return func(yield func(Finding) bool) {
		if c.noSecrets || f.NotJSONL() || !f.BareLines() {
			return
		}
		sc := secrets.Default()
		var hits []secrets.Hit
		for i := range f.LineCount() {
			if f.Rec(i) != nil {
				continue
			}
			line := f.Line(i)
			if bytes.IndexByte(line, '"') < 0 {
				continue // no string, no secret: ten million "{}" lines cost a look each
			}
			hits = sc.Line(line, hits[:0])
			for _, h := range hits {
				fd := Finding{Code: Secret, Severity: Defaults[Secret], File: f, Line: i, Span: jsonl.Span{Start: h.Start, End: h.End}, Message: secretMessage(h.Rule)}
				if !yield(fd) {
					return
				}
			}
		}
	}
}

// rescanBare scans f's bare lines again (the file is new or was edited since) and keeps what
// bareFindings keeps; nil when it has none. An edit of a file with bare lines scans them all again:
// only a file made so (a thousand faulty lines of a kind, objects of unknown keys) has many.
func (c *Checker) rescanBare(f *session.File) {
	if old := c.bare[f]; old != nil && old.edits == f.Edits() {
		return
	}
	b := bareFindings{edits: f.Edits()}
	for fd := range c.bareSecrets(f) {
		if b.n < MaxPerCode {
			b.kept = append(b.kept, fd)
		}
		b.n++
	}
	if b.n == 0 && !f.BareLines() {
		delete(c.bare, f)
		return
	}
	c.bare[f] = &b // none found is kept too: the next update of an unedited file scans nothing
}

// bareMore is the finding that stands for the secrets of f's bare lines past the ones kept, on
// the first of them.
func (c *Checker) bareMore(f *session.File, b *bareFindings) (Finding, bool) {
	if b.n <= len(b.kept) {
		return Finding{}, false
	}
	skip := len(b.kept)
	for fd := range c.bareSecrets(f) {
		if skip > 0 {
			skip--
			continue
		}
		fd.More = b.n - len(b.kept)
		fd.Message = moreMessage(fd.More, Secret)
		return fd, true
	}
	return Finding{}, false // the file changed since it was scanned: Update scans it again
}
