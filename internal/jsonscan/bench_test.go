package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// escaped is a JSON string like a session log's text inside a didOpen: quotes, newlines, tabs,
// non-ASCII as \u escapes and a surrogate pair every line.
func escaped() []byte {
	var sb strings.Builder
	for i := 0; sb.Len() < 8<<20; i++ {
		sb.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"a line with \"quotes\", a tab\tand é 😀 完"}]}}` + "\n")
	}
	b, _ := json.Marshal(sb.String())
	return b
}

// BenchmarkUnescapeInPlace decodes the text of a didOpen in its own buffer.
func BenchmarkUnescapeInPlace(b *testing.B) {
	src := escaped()
	buf := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for range b.N {
		copy(buf, src)
		if _, _, err := UnescapeInPlace(buf, 0); err != nil {
			b.Fatal(err)
		}
	}
}
