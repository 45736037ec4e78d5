package secrets

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/testutil"
)

var bigLog = sync.OnceValue(func() []byte { return gen.Session(100<<20, 1) })

// BenchmarkLines scans every line of the generated 100 MB log (what `check` adds with the scan on)
// and reports, beside ns/op, the process's CPU time per scan (cpu-ms/op: user+sys, steadier than
// wall time on a loaded machine). -cpuprofile shows where it goes.
//
//	go test ./internal/secrets -run '^$' -bench Lines -benchtime 4x -cpu 1
func BenchmarkLines(b *testing.B) {
	log := bigLog()
	sc := Default()
	var hits []Hit
	runtime.GC()
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	c0 := testutil.CPUTime()
	for range b.N {
		sc.memo = newMemo() // each pass as the first
		for rest := log; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest) - 1
			}
			hits = sc.Line(rest[:i], hits[:0])
			rest = rest[i+1:]
		}
	}
	b.ReportMetric(float64(testutil.CPUTime()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
