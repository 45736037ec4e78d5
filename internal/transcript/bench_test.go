package transcript

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testutil"
)

// BenchmarkBuild: the transcript of the generated 10 MB and 100 MB sessions, from their graph
// (built once, as the language server caches it), by a fresh builder, in CPU time (the machine is
// shared), and per MB of log to show it is linear; then a build by the same builder of the
// unchanged session (incremental: the last turn only).
//
//	go test ./internal/transcript -run '^$' -bench Build -benchtime 5x -cpu 1
func BenchmarkBuild(b *testing.B) {
	for _, size := range []int{10, 100} {
		b.Run(fmt.Sprintf("%dMB", size), func(b *testing.B) {
			s := genSession(b, size<<20)
			g := graph.Build(s)
			var fresh, again time.Duration
			n := 0
			for i := 0; i < b.N; i++ {
				c0 := testutil.CPUTime()
				bl := NewBuilder()
				n = len(bl.Build(s, g, Options{}).Markdown)
				fresh += testutil.CPUTime() - c0
				c0 = testutil.CPUTime()
				bl.Build(s, g, Options{})
				again += testutil.CPUTime() - c0
			}
			per := float64(fresh.Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(per, "ms-fresh-cpu")
			b.ReportMetric(per/(float64(len(s.Files[0].Text()))/(1<<20)), "ms-fresh-cpu/MB")
			b.ReportMetric(float64(again.Microseconds())/1000/float64(b.N), "ms-unchanged-cpu")
			b.ReportMetric(float64(n)/1e6, "MB-markdown")
		})
	}
}

// BenchmarkAppend: a live session of 10 MB and of 100 MB grows by one record at a time (a
// realistic mix: prompts, thinking, calls, results); after each append its graph is rebuilt (with
// the graph's memo, as the server does; not timed) and the transcript updated by the session's
// builder (timed). The update must cost the appended records, not the session: compare the two
// sizes.
//
//	go test ./internal/transcript -run '^$' -bench Append -benchtime 40x -cpu 1
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{10, 100} {
		b.Run(fmt.Sprintf("%dMB", size), func(b *testing.B) {
			w := gen.New(gen.Options{Seed: 1})
			for len(w.Bytes()) < size<<20 {
				w.Turn()
			}
			s := session.New("s", "/tmp/gen")
			f := session.NewFile("/tmp/gen/s.jsonl", w.Take())
			s.AddFile(f)
			memo := graph.NewMemo()
			bl := NewBuilder()
			full, tail := 0, 0
			bl.Stats = func(f bool, t int) {
				if f {
					full++
				}
				tail += t
			}
			bl.Build(s, graph.BuildWith(s, graph.Options{Memo: memo}), Options{})
			full, tail = 0, 0
			var took []time.Duration
			var spent time.Duration
			for i := 0; i < b.N; i++ {
				s.Edit(f, len(f.Text()), len(f.Text()), w.Record())
				g := graph.BuildWith(s, graph.Options{Memo: memo})
				c0, t0 := testutil.CPUTime(), time.Now()
				bl.Build(s, g, Options{})
				took = append(took, time.Since(t0))
				spent += testutil.CPUTime() - c0
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-update-p50")
			b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "ms-update-p90")
			b.ReportMetric(float64(spent.Microseconds())/1000/float64(b.N), "ms-update-cpu")
			b.ReportMetric(float64(full), "full-builds")
			b.ReportMetric(float64(tail)/float64(b.N), "nodes-walked")
		})
	}
}
