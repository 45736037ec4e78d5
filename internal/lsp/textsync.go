package lsp

import (
	"strconv"

	json "github.com/goccy/go-json"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// Text synchronisation: incremental, UTF-16 positions. didOpen and didChange are decoded by hand:
// the text of a 100 MB log is unescaped in place in the message's own buffer (no second copy, no
// generic decoder), and a change's range is a pointer, so that a change without one replaces the
// whole text (the library's DidChangeTextDocumentParams reads it as 0:0–0:0).

// wirePos is an incoming position: numbers as sent, clamped later (negative or huge ones too).
type wirePos struct {
	Line      float64 `json:"line"`
	Character float64 `json:"character"`
}

type wireRange struct {
	Start wirePos `json:"start"`
	End   wirePos `json:"end"`
}

func clampInt(v float64) int64 {
	switch {
	case v != v || v < 0: // NaN cannot come from JSON, but never mind
		return 0
	case v > 1<<40:
		return 1 << 40
	}
	return int64(v)
}

func (p wirePos) line() int64 { return clampInt(p.Line) }
func (p wirePos) char() int64 { return clampInt(p.Character) }

type change struct {
	rng  *wireRange // nil: replace the whole text
	text []byte
}

// decodeTextDocument reads {"uri", "version", "text"} fields of a textDocument object at b[i].
func decodeTextDocument(b []byte, i int, uri *string, version *int32, text *[]byte) (int, error) {
	return jsonscan.ObjectFields(b, i, func(k []byte, vs int) (int, error) {
		switch string(k) {
		case "uri":
			s, e, err := jsonscan.UnescapeInPlace(b, vs)
			if err != nil {
				return 0, err
			}
			*uri = string(s)
			return e, nil
		case "version":
			e, err := jsonscan.ValueEnd(b, vs)
			if err != nil {
				return 0, err
			}
			if n, err := strconv.ParseFloat(string(b[vs:e]), 64); err == nil && n >= -1<<31 && n < 1<<31 {
				*version = int32(n)
			}
			return e, nil
		case "text":
			if text == nil {
				return -1, nil
			}
			s, e, err := jsonscan.UnescapeInPlace(b, vs)
			if err != nil {
				return 0, err
			}
			*text = s
			return e, nil
		}
		return -1, nil
	})
}

// openParams is a decoded didOpen.
type openParams struct {
	uri     string
	version int32
	text    []byte
}

// decodeDidOpen reads DidOpenTextDocumentParams, unescaping the text in place.
func decodeDidOpen(b []byte) (uri string, version int32, text []byte, err error) {
	p, _, err := decodeDidOpenAt(b, 0)
	if err != nil {
		return "", 0, nil, err
	}
	return p.uri, p.version, p.text, nil
}

// decodeDidOpenAt reads the DidOpenTextDocumentParams object at b[i] and returns it with the
// index past it.
func decodeDidOpenAt(b []byte, i int) (*openParams, int, error) {
	p := &openParams{text: []byte{}}
	end, err := jsonscan.ObjectFields(b, i, func(k []byte, vs int) (int, error) {
		if string(k) != "textDocument" {
			return -1, nil
		}
		return decodeTextDocument(b, vs, &p.uri, &p.version, &p.text)
	})
	if err == nil && p.uri == "" {
		err = jsonscan.ErrSyntax
	}
	return p, end, err
}

// decodeDidChange reads DidChangeTextDocumentParams.
func decodeDidChange(b []byte) (uri string, version int32, changes []change, err error) {
	_, err = jsonscan.ObjectFields(b, 0, func(k []byte, vs int) (int, error) {
		switch string(k) {
		case "textDocument":
			return decodeTextDocument(b, vs, &uri, &version, nil)
		case "contentChanges":
			return jsonscan.ArrayElems(b, vs, func(es int) (int, error) {
				var c change
				end, err := jsonscan.ObjectFields(b, es, func(k []byte, vs int) (int, error) {
					switch string(k) {
					case "range":
						e, err := jsonscan.ValueEnd(b, vs)
						if err != nil {
							return 0, err
						}
						if string(b[vs:e]) != "null" {
							c.rng = new(wireRange)
							if err := json.Unmarshal(b[vs:e], c.rng); err != nil {
								return 0, err
							}
						}
						return e, nil
					case "text":
						s, e, err := jsonscan.UnescapeInPlace(b, vs)
						if err != nil {
							return 0, err
						}
						c.text = s
						return e, nil
					}
					return -1, nil
				})
				if err == nil {
					if c.text == nil {
						c.text = []byte{}
					}
					changes = append(changes, c)
				}
				return end, err
			})
		}
		return -1, nil
	})
	if err == nil && uri == "" {
		err = jsonscan.ErrSyntax
	}
	return uri, version, changes, err
}

func (srv *server) didOpen(r *request) {
	if r.params == nil && r.pre == nil {
		return
	}
	srv.hooks.mark("didOpen read")
	var uri string
	var version int32
	var text []byte
	if p, ok := r.pre.(*openParams); ok {
		uri, version, text = p.uri, p.version, p.text
	} else {
		var err error
		if uri, version, text, err = decodeDidOpen(r.params); err != nil {
			srv.log.Warn("didOpen: params not understood", zap.Error(err))
			return
		}
	}
	srv.hooks.mark("didOpen decoded")
	// The budget counts the text before it is parsed: the parse is where the index grows.
	srv.memoryBudget(int64(len(text)))
	if d := srv.claimProvisional(uri); d != nil {
		d.sess.do(nil, func() { d.sess.claim(d, text, version) })
		return
	}
	if d := srv.openDocument(uri); d != nil {
		d.sess.do(nil, func() { d.sess.open(d, text, version) })
		return
	}
	// Opened twice without a close: the new text replaces the old.
	d := srv.doc(uri)
	if d == nil {
		return
	}
	ss := d.sess
	ss.do(nil, func() {
		if ss.session == nil || !d.opened {
			ss.open(d, text, version)
			return
		}
		if f := ss.session.File(d.path); f != nil {
			ss.session.SetText(f, text)
			d.version = version
			ss.disk.wanted = true
			ss.changed()
		}
	})
}

func (srv *server) didChange(r *request) {
	if r.params == nil {
		return
	}
	uri, version, changes, err := decodeDidChange(r.params)
	if err != nil {
		srv.log.Warn("didChange: params not understood", zap.Error(err))
		return
	}
	d := srv.doc(uri)
	if d == nil {
		srv.log.Warn("didChange for a document that is not open", zap.String("uri", uri))
		return
	}
	ss := d.sess
	ss.do(nil, func() {
		if ss.session == nil || !d.opened {
			return
		}
		f := ss.session.File(d.path)
		if f == nil {
			return
		}
		if version <= d.version {
			srv.log.Debug("didChange with a version not above the last", zap.String("uri", uri), zap.Int32("version", version), zap.Int32("last", d.version))
		}
		for _, c := range changes {
			if c.rng == nil {
				ss.session.SetText(f, c.text)
				continue
			}
			start := position.Offset(f, c.rng.Start.line(), c.rng.Start.char())
			end := position.Offset(f, c.rng.End.line(), c.rng.End.char())
			if start > end {
				start, end = end, start // an inverted range: the same span
			}
			// What the replacement shares with the text it replaces at either end is not edited:
			// an editor that reloads a growing log sends the whole text over the whole range,
			// and only the appended bytes are parsed.
			p, q := session.CommonAffixes(f.Text()[start:end], c.text)
			ss.session.Edit(f, start+p, end-q, c.text[p:len(c.text)-q])
		}
		d.version = version
		ss.disk.wanted = true
		ss.changed()
	})
}

func (srv *server) didClose(p docRequest) {
	srv.mu.Lock()
	d := srv.docs[p.TextDocument.URI]
	if d != nil {
		delete(srv.docs, d.uri)
		if d.sess.docs[d.path] == d {
			delete(d.sess.docs, d.path)
		}
	}
	srv.mu.Unlock()
	if d == nil {
		return
	}
	d.sess.do(nil, func() { d.sess.close(d) })
}
