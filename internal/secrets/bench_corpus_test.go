package secrets

import (
	"bytes"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/testcorpus"
	"github.com/ccdag/ccdag/internal/testutil"
)

// BenchmarkCorpus scans every line of the real logs (genuine text: "token", "key", "secret" in
// code and commands), reporting the process's CPU time per pass beside ns/op.
//
//	go test ./internal/secrets -run '^$' -bench Corpus -benchtime 10x -cpu 1 -cpuprofile /tmp/cpu.out
func BenchmarkCorpus(b *testing.B) {
	var logs [][]byte
	size := 0
	for _, p := range testcorpus.Files(b, "the scan's cost on real logs") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		logs = append(logs, data)
		size += len(data)
	}
	benchScan(b, logs, size)
}

// benchScan scans every line of logs per pass, each pass as the first (an empty memo), and
// reports the process's CPU time per pass and the hits of one.
func benchScan(b *testing.B, logs [][]byte, size int) {
	sc := Default()
	var hits []Hit
	n := 0
	runtime.GC()
	b.SetBytes(int64(size))
	b.ResetTimer()
	c0 := testutil.CPUTime()
	for range b.N {
		n = 0
		sc.memo = newMemo()
		for _, log := range logs {
			for rest := log; len(rest) > 0; {
				i := bytes.IndexByte(rest, '\n')
				if i < 0 {
					i = len(rest)
				}
				hits = sc.Line(rest[:i], hits[:0])
				n += len(hits)
				rest = rest[min(i+1, len(rest)):]
			}
		}
	}
	b.ReportMetric(float64(testutil.CPUTime()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(n), "hits")
}
