package jsonl

import (
	"testing"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

// BenchmarkParseCorpus parses every line of the real logs (internal/testcorpus) into one Record.
func BenchmarkParseCorpus(b *testing.B) {
	var lines [][]byte
	var size int64
	for _, line := range testcorpus.Lines(b, "the parser's speed on real logs") {
		lines = append(lines, line)
		size += int64(len(line))
	}
	b.SetBytes(size)
	var r Record
	for b.Loop() {
		for _, l := range lines {
			ParseInto(&r, l)
		}
	}
}
