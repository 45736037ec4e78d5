package check

import (
	"iter"

	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
)

// SecretMask is the mask of the secrets among findings (code secret) that views of the session
// apply to what they show (docs/spec.md §15). fs must list every finding (All, Each: not Kept,
// whose counted findings stand for others). Only the lines holding a secret are scanned again, for
// the rules' names.
func SecretMask(fs iter.Seq[Finding]) *secrets.Mask {
	m := secrets.NewMask()
	type at struct {
		f    *session.File
		line int
	}
	seen := map[at]bool{}
	for fd := range fs {
		if fd.Code != Secret || fd.File == nil || seen[at{fd.File, fd.Line}] || fd.Line < 0 || fd.Line >= fd.File.LineCount() {
			continue
		}
		seen[at{fd.File, fd.Line}] = true
		line := fd.File.Line(fd.Line)
		m.AddLine(line, secrets.Default().Line(line, nil))
	}
	return m
}
