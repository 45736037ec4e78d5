package report

import (
	"bytes"
	"io"
	"iter"

	json "github.com/goccy/go-json"
)

// pieces writes an indented JSON document piece by piece (WriteJSON, WriteSARIF): the fixed parts
// as text, each value encoded on its own, so that an array of a million findings is never held.
type pieces struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error // the first write or encoding error; later calls do nothing
}

func newPieces(w io.Writer, escapeHTML bool) *pieces {
	p := &pieces{w: w}
	p.enc = json.NewEncoder(&p.buf)
	p.enc.SetEscapeHTML(escapeHTML)
	return p
}

func (p *pieces) text(s string) {
	if p.err == nil {
		_, p.err = io.WriteString(p.w, s)
	}
}

// value writes v indented as at depth prefix, without the encoder's trailing newline.
func (p *pieces) value(prefix string, v any) {
	if p.err != nil {
		return
	}
	p.buf.Reset()
	p.enc.SetIndent(prefix, "  ")
	if p.err = p.enc.Encode(v); p.err == nil {
		_, p.err = p.w.Write(bytes.TrimSuffix(p.buf.Bytes(), []byte{'\n'}))
	}
}

// array writes the values seq yields as a JSON array whose elements stand at depth prefix+"  "
// (prefix: the depth of the line holding the array), each made by one call of v as it comes.
func array[T any](p *pieces, prefix string, seq iter.Seq[T], v func(T) any) {
	p.text("[")
	n := 0
	for x := range seq {
		if p.err != nil {
			return
		}
		if n > 0 {
			p.text(",")
		}
		n++
		p.text("\n" + prefix + "  ")
		p.value(prefix+"  ", v(x))
	}
	if n > 0 {
		p.text("\n" + prefix)
	}
	p.text("]")
}
