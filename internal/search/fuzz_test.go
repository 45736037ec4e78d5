package search

import (
	"bytes"
	"fmt"
	"testing"
)

// FuzzSearch: any log and query. Never a panic; the byte prefilter never drops a record that
// decoding finds (the scan's hits are exactly the complete lines Record accepts); a hit's column
// lies in its line.
func FuzzSearch(f *testing.F) {
	f.Add([]byte(log), "parser")
	f.Add([]byte(log), `"quotes"`)
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"Caf\u00e9 \"x\" \\ y"}}`+"\n"), "café")
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"a":["b\\\"c"]}}]}}`+"\n"), `b\"c`)
	f.Fuzz(func(t *testing.T, data []byte, q string) {
		c, err := Compile(q)
		if err != nil {
			return
		}
		var fast []Hit
		c.NewScanner().File(data, func(h Hit) bool { fast = append(fast, h); return true })
		var want []int
		lines := bytes.Split(data[:bytes.LastIndexByte(data, '\n')+1], []byte{'\n'})
		for i, line := range lines {
			if i == len(lines)-1 {
				break // after the last newline
			}
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if _, ok := c.Record(line); ok {
				want = append(want, i+1)
			}
		}
		var got []int
		for _, h := range fast {
			got = append(got, h.Line)
			if h.Column < 1 || h.Column > len(lines[h.Line-1])+1 {
				t.Fatalf("hit at line %d column %d outside the line (%d bytes)", h.Line, h.Column, len(lines[h.Line-1]))
			}
		}
		// The prefilter matches escaped forms JSON.stringify writes; a record whose words a writer
		// spelt as \u escapes is not promised, so only hits the scan makes must be real ones, and
		// every record without \u escapes must be found.
		if fmt.Sprint(got) != fmt.Sprint(want) && !bytes.Contains(data, []byte(`\u`)) {
			t.Fatalf("query %q: scan found lines %v, decoding %v", q, got, want)
		}
	})
}
