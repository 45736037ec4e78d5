package resume

import (
	"bytes"
	"os"
	"testing"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

// BenchmarkVersionInCorpus reads the newest version of the last 64 KB of each real log
// (internal/testcorpus), as tailVersion does once the bytes are read.
func BenchmarkVersionInCorpus(b *testing.B) {
	var tails [][]byte
	var size int64
	for _, p := range testcorpus.Files(b, "the tail version read's speed on real logs") {
		t, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(t) > tailBytes {
			t = t[len(t)-tailBytes:]
			if i := bytes.IndexByte(t, '\n'); i >= 0 {
				t = t[i+1:]
			}
		}
		tails = append(tails, t)
		size += int64(len(t))
	}
	b.SetBytes(size)
	for b.Loop() {
		for _, t := range tails {
			versionIn(t)
		}
	}
}
