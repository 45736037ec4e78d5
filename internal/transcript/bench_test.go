package transcript

import (
	"syscall"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/graph"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBuild: the transcript of the generated 100 MB session, from its graph (built once,
// as the language server caches it): a fresh build and a rebuild with the builder's memo (an
// unchanged session), in CPU time (the machine is shared).
//
//	go test ./internal/transcript -run '^$' -bench Build -benchtime 3x
func BenchmarkBuild(b *testing.B) {
	s := genSession(b, 100<<20)
	c0 := cpu()
	g := graph.Build(s)
	graphCPU := cpu() - c0
	var fresh, memo time.Duration
	size := 0
	for i := 0; i < b.N; i++ {
		c0 = cpu()
		bl := NewBuilder()
		size = len(bl.Build(s, g, Options{}).Markdown)
		fresh += cpu() - c0
		c0 = cpu()
		bl.Build(s, g, Options{})
		memo += cpu() - c0
	}
	b.ReportMetric(float64(graphCPU.Microseconds())/1000, "ms-graph-cpu")
	b.ReportMetric(float64(fresh.Microseconds())/1000/float64(b.N), "ms-fresh-cpu")
	b.ReportMetric(float64(memo.Microseconds())/1000/float64(b.N), "ms-memo-cpu")
	b.ReportMetric(float64(size)/1e6, "MB-markdown")
}
