// Package jsonl turns the bytes of a session log into records: a line index over the bytes and a
// skimming parser that reads one line into a Record holding the fields ccdag needs and the byte spans
// of their values. It validates every line's JSON but decodes only ids, flags and small numbers;
// bodies (text, tool input, tool output) are left as spans for callers to decode when they need them.
package jsonl

import "bytes"

// LineStarts returns the byte offset of the start of every line of text. A final line without a
// newline counts; an empty text has no lines, and a text ending in '\n' has no empty line after it.
func LineStarts(text []byte) []int {
	starts := make([]int, 0, bytes.Count(text, []byte{'\n'})+1)
	return AppendLineStarts(starts, text, 0)
}

// AppendLineStarts appends to starts the start offsets (plus base) of the lines of text.
func AppendLineStarts(starts []int, text []byte, base int) []int {
	off := 0
	for off < len(text) {
		starts = append(starts, base+off)
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return starts
}

// LineBounds returns the content of line i (without its '\n' or "\r\n") given the line starts, and
// whether the line ends with a newline.
func LineBounds(text []byte, starts []int, i int) (start, end int, terminated bool) {
	start = starts[i]
	next := len(text)
	if i+1 < len(starts) {
		next = starts[i+1]
	}
	end = next
	if end > start && text[end-1] == '\n' {
		terminated = true
		end--
		if end > start && text[end-1] == '\r' {
			end--
		}
	}
	return start, end, terminated
}
