package cli

import (
	"bytes"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
)

// Every view of a session's text redacts its secrets unless --no-redact (docs/spec.md §11, §15):
// transcript loads the session redacted (loadSession); graph and resume mask what they print with
// the check's secret findings (check.SecretMask); search redacts a snippet's text before it cuts
// it (search.Query.Redact); sessions each title (catalog).

// redactBytes is text with every line's secrets replaced by their placeholders; lines keep their
// number, so what is shown still points at the right line.
func redactBytes(text []byte) []byte {
	sc := secrets.Default()
	var out []byte
	var hits []secrets.Hit
	changed := false
	for rest := text; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		line, nl := rest, []byte(nil)
		if i >= 0 {
			line, nl = rest[:i], rest[i:i+1]
		}
		rest = rest[len(line)+len(nl):]
		hits = sc.Line(line, hits[:0])
		if len(hits) > 0 && !changed {
			changed = true
			out = append(make([]byte, 0, len(text)), text[:len(text)-len(rest)-len(line)-len(nl)]...)
		}
		if changed {
			out = append(append(out, secrets.RedactLine(line, hits)...), nl...)
		}
	}
	if !changed {
		return text
	}
	return out
}

// loadSession loads the session of path, its text redacted unless show.
func loadSession(path string, show bool) (*session.Session, error) {
	if show {
		return layout.Load(path, nil)
	}
	found, err := layout.Discover(path)
	if err != nil {
		return nil, err
	}
	return layout.LoadFound(found, func(p string) ([]byte, error) {
		b, err := layout.ReadFile(p, found.Root(p))
		if err != nil {
			return nil, err
		}
		return redactBytes(b), nil
	})
}
