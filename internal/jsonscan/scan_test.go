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
		// Value (behind ValueEnd and every line of a session log) agrees with encoding/json: valid
		// JSON is scanned to its exact end, and what it accepts whole is valid JSON, but for the raw
		// control characters and invalid UTF-8 it tolerates inside strings.
		e, fault := Value(b, 0)
		whole := fault == nil && SkipSpace(b, e) == len(b)
		if json.Valid(b) && !whole {
			t.Fatalf("Value on valid JSON %q: %d %+v", b, e, fault)
		}
		if whole && utf8.Valid(b) && !bytes.ContainsFunc(b, func(r rune) bool { return r < 0x20 }) && !json.Valid(b) {
			t.Fatalf("Value accepts %q whole, encoding/json does not", b)
		}
		if fault != nil && (fault.Off < 0 || fault.Off > len(b)) {
			t.Fatalf("Value's fault at %d is outside the input (%d bytes)", fault.Off, len(b))
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

func TestUnescape(t *testing.T) {
	for raw, want := range map[string]string{`\ud83d\ude00 \u4e2d\n`: "😀 中\n", `plain`: "plain", `a\"b\\c\/d`: `a"b\c/d`,
		`\ud83d x`: "\ufffd x", `\ude00\ud83d`: "\ufffd\ufffd", `\b\f\r\t`: "\b\f\r\t", `cut \u12`: "cut ", `bad \x`: "bad "} {
		if got := Unescape([]byte(raw)); got != want {
			t.Errorf("Unescape(%s) = %q, want %q", raw, got, want)
		}
	}
}

// FuzzUnescape holds the one string decoder to encoding/json: every way of decoding a valid JSON
// string (Unescape, UnescapeInPlace, Escape rune by rune) gives encoding/json's text, and no input
// panics.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `"\ud83d\ude42"`, `"\ud83d"`, `"\udc00\ud800\udc00"`, `"\u00e9\/\b\f\n\r\t"`, `"\u12"`, `"\`, `"é 完"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		Unescape(b)
		UnescapeInPlace(bytes.Clone(b), 0)
		for i := range b {
			Escape(b, i)
		}
		var want string
		b = bytes.TrimRight(b, " \t\r\n")
		if json.Unmarshal(b, &want) != nil || len(b) < 2 || b[0] != '"' || !utf8.Valid(b) {
			return
		}
		body := b[1 : len(b)-1]
		if got := Unescape(body); got != want {
			t.Fatalf("Unescape(%s) = %q, encoding/json %q", body, got, want)
		}
		if got, end, err := UnescapeInPlace(bytes.Clone(b), 0); err != nil || string(got) != want || end != len(b) {
			t.Fatalf("UnescapeInPlace(%s) = %q %d %v, encoding/json %q", b, got, end, err, want)
		}
		var runes []rune
		for i := 0; i < len(body); {
			if body[i] != '\\' {
				r, n := utf8.DecodeRune(body[i:])
				runes, i = append(runes, r), i+n
				continue
			}
			r, next, ok := Escape(body, i)
			if !ok {
				t.Fatalf("Escape(%s, %d) refused a valid escape", body, i)
			}
			runes, i = append(runes, r), next
		}
		if string(runes) != want {
			t.Fatalf("Escape rune by rune on %s = %q, encoding/json %q", body, string(runes), want)
		}
	})
}
