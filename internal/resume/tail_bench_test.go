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

// BenchmarkTailVersionCorpus reads the tail of each real log from the disk (the page cache, after
// the first round) and its newest version: NewestVersion's work per log on a cold history.
func BenchmarkTailVersionCorpus(b *testing.B) {
	files := testcorpus.Files(b, "the tail version read's speed on real logs")
	for b.Loop() {
		for _, p := range files {
			tailVersion(p, "")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files)), "ns/log")
}
