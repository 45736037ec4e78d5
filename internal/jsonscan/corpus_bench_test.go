package jsonscan

import (
	"testing"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

// corpusLines returns every line of the real logs (internal/testcorpus), or skips b.
func corpusLines(b testing.TB) (lines [][]byte, size int64) {
	for _, line := range testcorpus.Lines(b, "the scanner's speed on real logs") {
		lines = append(lines, line)
		size += int64(len(line))
	}
	return lines, size
}

// BenchmarkValueCorpus scans each line of the real logs as one value: what the log parser's
// skipping of tool results and message blocks costs (genuine text escapes every few bytes).
func BenchmarkValueCorpus(b *testing.B) {
	lines, size := corpusLines(b)
	b.SetBytes(size)
	for b.Loop() {
		for _, l := range lines {
			if len(l) > 0 {
				Value(l, 0)
			}
		}
	}
}

// BenchmarkObjectFieldsCorpus walks the top-level fields of each line (keys by StringEnd, values
// skipped by ValueEnd): the resume loader's version read.
func BenchmarkObjectFieldsCorpus(b *testing.B) {
	lines, size := corpusLines(b)
	b.SetBytes(size)
	skip := func([]byte, int) (int, error) { return -1, nil }
	for b.Loop() {
		for _, l := range lines {
			ObjectFields(l, 0, skip)
		}
	}
}

// BenchmarkStringEscaped scans one 8 MB string escaping every few bytes (a log inside a didOpen).
func BenchmarkStringEscaped(b *testing.B) {
	src := escaped()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, _, err := String(src, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStringEndEscaped is BenchmarkStringEscaped without the escapes' validation.
func BenchmarkStringEndEscaped(b *testing.B) {
	src := escaped()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := StringEnd(src, 0); err != nil {
			b.Fatal(err)
		}
	}
}
