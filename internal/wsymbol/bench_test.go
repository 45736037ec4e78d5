package wsymbol

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/testutil"
)

// BenchmarkWorkspaceSymbols measures the index over a generated history (docs/PERFORMANCE.md,
// issue 12): first build speed, its memory against the history's bytes, query latency, and the
// cost of an append. CCDAG_HISTORY names the folder holding projects/ (scripts/perf-history.sh
// makes one with go run ./scripts/genhistory).
func BenchmarkWorkspaceSymbols(b *testing.B) {
	dir := os.Getenv("CCDAG_HISTORY")
	if dir == "" {
		b.Skip("CCDAG_HISTORY is not set (go run ./scripts/genhistory -dir DIR, then CCDAG_HISTORY=DIR)")
	}
	roots := []string{filepath.Join(dir, "projects")}
	files, _, _ := history.Files(roots)
	var bytes int64
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil {
			bytes += fi.Size()
		}
	}
	for b.Loop() {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		x := New(roots, Poll, zap.NewNop(), func(context.Context, string, int64) Progress { return noProgress{} })
		start := time.Now()
		x.build(context.Background())
		took := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		syms := 0
		for _, f := range x.files {
			syms += len(f.syms)
		}
		b.ReportMetric(float64(bytes)/took.Seconds()/1e9, "build-GB/s")
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(bytes)*100, "index-%-of-history")
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/1e6, "index-MB")
		b.ReportMetric(float64(syms), "symbols")

		// Queries: common and rare words, several words, non-ASCII, no hit, empty.
		var lat []time.Duration
		for round := 0; round < 20; round++ {
			for _, q := range []string{"", "read", "file123.go", "Read file9", "retries timeout", "函数", "über", "zzqqxx", "explore"} {
				t := time.Now()
				x.Query(q, Limit)
				lat = append(lat, time.Since(t))
			}
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "query-p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "query-p99-ms")

		// An append of one record to one log: what the poll reads and what it costs.
		p := files[0]
		old := x.File(p)
		rec := fmt.Sprintf(`{"type":"user","uuid":"appended-%d","message":{"role":"user","content":"appended prompt"}}`+"\n", time.Now().UnixNano())
		fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fh.WriteString(rec)
		fh.Close()
		t := time.Now()
		f := x.indexFile(p, old)
		one := time.Since(t)
		t = time.Now()
		x.put(f)
		x.refresh()
		all := time.Since(t)
		if len(x.Query("appended prompt", 10)) == 0 {
			b.Fatal("the appended prompt is not found")
		}
		b.ReportMetric(float64(f.size-old.size), "append-bytes-read")
		b.ReportMetric(float64(one.Microseconds())/1000, "append-file-ms")
		b.ReportMetric(float64(all.Microseconds())/1000, "poll-all-ms")
		// Leave the log as it was.
		if err := os.Truncate(p, old.size); err != nil {
			b.Fatal(err)
		}
	}
}

type noProgress struct{}

func (noProgress) Report(int64) {}
func (noProgress) End(string)   {}

// BenchmarkPathQuery times queries naming a file against a built index of CCDAG_HISTORY (as
// BenchmarkWorkspaceSymbols): ranking the calls on the very file first makes such a query go on
// past Limit symbols until Limit of them are found, where it stopped at Limit matches before.
func BenchmarkPathQuery(b *testing.B) {
	dir := os.Getenv("CCDAG_HISTORY")
	if dir == "" {
		b.Skip("CCDAG_HISTORY is not set (go run ./scripts/genhistory -dir DIR, then CCDAG_HISTORY=DIR)")
	}
	x := New([]string{filepath.Join(dir, "projects")}, Poll, zap.NewNop(), func(context.Context, string, int64) Progress { return noProgress{} })
	x.build(context.Background())
	for _, q := range []string{"file1.go", "1.go", "src/file1.go", "read"} {
		b.Run(q, func(b *testing.B) {
			n := 0
			cpu := testutil.CPUTime() // the process's CPU time: the machine's other load inflates it little
			for b.Loop() {
				n = len(x.Query(q, Limit))
			}
			b.ReportMetric(float64((testutil.CPUTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(n), "symbols")
		})
	}
}
