package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestUnescapeInPlace(t *testing.T) {
	for _, s := range []string{"", "plain", `a"b`, `back\slash`, "line\nnext\r\n\ttab", "🙂 完 é", "\u0000\u001f\u2028", `{"json":"in \"json\""}`} {
		enc, _ := json.Marshal(s)
		buf := append(enc, `,"rest"`...)
		out, end, err := UnescapeInPlace(buf, 0)
		if err != nil || string(out) != s || end != len(enc) {
			t.Errorf("%q: got %q end %d err %v", s, out, end, err)
		}
	}
	// \u escapes, surrogate pairs, lone surrogates (U+FFFD, as encoding/json)
	for raw, want := range map[string]string{`"\u00e9\u5b8c"`: "é完", `"\ud83d\ude42"`: "🙂", `"\ud83d x"`: "\ufffd x", `"\/"`: "/"} {
		out, _, err := UnescapeInPlace([]byte(raw), 0)
		if err != nil || string(out) != want {
			t.Errorf("%s: got %q err %v", raw, out, err)
		}
	}
	for _, bad := range []string{`"abc`, `"\x"`, `"\u12"`, `abc"`, `"\`} {
		if _, _, err := UnescapeInPlace([]byte(bad), 0); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// FuzzJSONScan holds the scanner to encoding/json: on valid JSON the extent of values and the
// decoded strings agree, and nothing panics on any input.
func FuzzJSONScan(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `{"a":[1,{"b":"c"}],"d":null}`, `"\ud83d\ude42"`, `[1,2`, `"\u00"`, `{"k":"v"}  `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// ValueEnd checks structure, not the grammar of numbers or strings: on valid JSON it must
		// find the exact end; on anything else it must just not panic.
		ValueEnd(b, 0)
		if json.Valid(b) {
			if e, err := ValueEnd(b, 0); err != nil || SkipSpace(b, e) != len(b) {
				t.Fatalf("ValueEnd on valid JSON %q: %d %v", b, e, err)
			}
		}
		var want string
		wantErr := json.Unmarshal(b, &want)
		i := SkipSpace(b, 0)
		out, e, err := UnescapeInPlace(bytes.Clone(b), i)
		// Invalid UTF-8 is kept as it is (encoding/json would write U+FFFD): the text stays the
		// bytes the client sent, and positions count each invalid byte as one unit.
		if wantErr == nil && bytes.HasPrefix(b[i:], []byte(`"`)) && utf8.Valid(b) {
			if err != nil || string(out) != want || SkipSpace(b, e) != len(b) {
				t.Fatalf("unescape %q: got %q (%v), want %q", b, out, err, want)
			}
		}
	})
}
