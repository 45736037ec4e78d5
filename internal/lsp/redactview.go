package lsp

import (
	"context"
	"iter"

	json "github.com/goccy/go-json"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
)

// Secrets are never shown unless asked (docs/spec.md §15). What the server shows of a session's
// text — hover, code lens, inlay hints, outline, code-action titles, ccdag/workflowGraph,
// ccdag/transcript, ccdag/resumePreview — goes through the session's mask (secrets.Mask): every
// part of 8 bytes or more of a secret its check found becomes the secret's placeholder, in the
// result as it is sent (cut, escaped, encoded). The secrets come from the checker's own findings
// (code secret, whatever its severity shows): nothing is scanned twice. ccdag/sessions redacts each
// title before it is cut (internal/catalog), workspace/symbol each name (internal/wsymbol).
// The setting `ccdag.redact` (default true; false shows secrets) is read as ccdag.severity is.
// Edits (repairs, the Redact quick fixes) are never masked: they are the log's own text.

// redactSetting returns the ccdag.redact value in raw settings, and whether it is there.
func redactSetting(raw json.RawMessage) (on, ok bool) {
	v, ok, err := settingValue(raw, "redact")
	if err != nil || !ok || string(v) == "null" {
		return false, false
	}
	if unmarshal(v, &on) != nil {
		return false, false
	}
	return on, true
}

// applyRedact takes the setting from raw when it sets it.
func (srv *server) applyRedact(raw json.RawMessage, where string) {
	on, ok := redactSetting(raw)
	if !ok {
		return
	}
	srv.mu.Lock()
	changed := srv.noRedact == on
	srv.noRedact = !on
	srv.mu.Unlock()
	if changed {
		srv.log.Info("ccdag.redact", zap.Bool("redact", on), zap.String("from", where))
		srv.notify(notifySessionsChanged, struct{}{}) // the browser's titles change
	}
}

// redacting reports whether results hide secrets (ccdag.redact, true unless set false).
func (srv *server) redacting() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return !srv.noRedact
}

// maskCache is a session's mask, for the session's version it was made from.
type maskCache struct {
	m       *secrets.Mask
	version uint64
}

// mask (worker) is the mask of the open session as it is now; nil when secrets are shown.
func (ss *sess) mask() *secrets.Mask {
	if !ss.srv.redacting() || ss.session == nil {
		return nil
	}
	if ss.masks.m != nil && ss.masks.version == ss.session.Version {
		return ss.masks.m
	}
	if ss.scanLater { // checked without the scan so far: the scan first
		ss.scanNow()
	}
	chk := ss.chk
	if chk == nil {
		chk = ss.srv.checker(ss.session)
	}
	chk.Update()
	m := check.SecretMask(secretFindings(chk))
	if ss.masks.m != nil && ss.masks.m.Equal(m) {
		m = ss.masks.m // the same mask while it hides the same: the transcript keeps what it built with it
	}
	ss.masks = maskCache{m: m, version: ss.session.Version}
	return ss.masks.m
}

// closedMask is the mask of a session read from disk for one request (its lines scanned); nil
// when secrets are shown.
func (srv *server) closedMask(s *session.Session) *secrets.Mask {
	if !srv.redacting() {
		return nil
	}
	m := secrets.NewMask()
	sc := secrets.Default()
	var hits []secrets.Hit
	for _, f := range s.Files {
		for i := range f.LineCount() {
			line := f.Line(i)
			if hits = sc.Line(line, hits[:0]); len(hits) > 0 {
				m.AddLine(line, hits)
			}
		}
	}
	return m
}

// secretFindings are the secret findings of every file: the kept ones, and in a file that counts
// more than it keeps (check.MaxPerCode), every one of that file.
func secretFindings(c *check.Checker) iter.Seq[check.Finding] {
	return func(yield func(check.Finding) bool) {
		var over []*session.File
		for _, fd := range c.Kept(nil) {
			switch {
			case fd.Code != check.Secret:
			case fd.More > 0:
				over = append(over, fd.File)
			case !yield(fd):
				return
			}
		}
		for _, f := range over {
			for fd := range c.Each(f, nil) {
				if fd.Code == check.Secret && !yield(fd) {
					return
				}
			}
		}
	}
}

// masked is v as it is sent, with m applied: v itself when m hides nothing, else v encoded and
// masked.
func masked(m *secrets.Mask, v any) (any, error) {
	if m.Empty() {
		return v, nil
	}
	if e, ok := v.(jsonrpc.Encoded); ok {
		return jsonrpc.Encoded(m.Bytes(e)), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonrpc.Encoded(m.Bytes(b)), nil
}

// maskedDoc is h with its result sent through the session's mask (onDoc's handlers that show text).
func maskedDoc[P any, R any](h func(context.Context, *sess, *session.File, P) (R, error)) func(context.Context, *sess, *session.File, P) (any, error) {
	return func(ctx context.Context, ss *sess, f *session.File, p P) (any, error) {
		r, err := h(ctx, ss, f, p)
		if err != nil {
			return nil, err
		}
		return masked(ss.mask(), r)
	}
}
