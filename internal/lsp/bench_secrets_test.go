package lsp

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/testutil"
)

// BenchmarkOpenSecretScan: didOpen of a generated session to its diagnostics with the secret scan
// and without it (hooks.noSecrets), in turn on fresh servers: the time to the first publication
// (from scanLaterBytes on, without the scan's findings) and to the one with them, wall and process
// CPU, and the ratios to the open without the scan (issue 24: diagnostics no slower to appear).
//
//	go test ./internal/lsp -run '^$' -bench OpenSecretScan -benchtime 3x -cpu 2
func BenchmarkOpenSecretScan(b *testing.B) {
	for _, size := range []int{4 * mb, 100 * mb} {
		b.Run(fmt.Sprintf("%dMB", size/mb), func(b *testing.B) {
			text := genSession(size)
			fr := didOpenFrame("file:///bench/open.jsonl", text)
			open := func(noSecrets bool) (first, all, cpu time.Duration) {
				c := newBenchConn(b)
				defer c.close()
				c.srv.hooks.noSecrets = noSecrets // before the didOpen: the pipe orders it before the server's read
				var mu sync.Mutex
				var at []time.Time
				done := make(chan struct{})
				want := 1
				if !noSecrets && len(text) >= scanLaterBytes {
					want = 2
				}
				publish := c.srv.hooks.afterPublish
				c.srv.hooks.afterPublish = func(uri string) {
					mu.Lock()
					if at = append(at, time.Now()); len(at) == want {
						close(done)
					}
					mu.Unlock()
					publish(uri)
				}
				runtime.GC()
				t0, c0 := time.Now(), testutil.CPUTime()
				c.w.Write(fr)
				select {
				case <-done:
				case <-time.After(5 * time.Minute):
					b.Fatal("no diagnostics")
				}
				cpu = testutil.CPUTime() - c0
				mu.Lock()
				defer mu.Unlock()
				return at[0].Sub(t0), at[want-1].Sub(t0), cpu
			}
			open(false) // gitleaks' configuration read and the rules this log needs compiled, as in a running server
			b.ResetTimer()
			var first, all, cpu, off, offCPU time.Duration
			for i := 0; i < b.N; i++ {
				f, a, c := open(false)
				_, o, oc := open(true)
				first, all, cpu, off, offCPU = first+f, all+a, cpu+c, off+o, offCPU+oc
			}
			n := float64(b.N)
			b.ReportMetric(ms(first)/n, "ms-first-diagnostics")
			b.ReportMetric(ms(all)/n, "ms-with-secrets")
			b.ReportMetric(ms(off)/n, "ms-noscan")
			b.ReportMetric(ms(cpu)/n, "ms-cpu")
			b.ReportMetric(ms(offCPU)/n, "ms-cpu-noscan")
			b.ReportMetric(float64(first)/float64(off), "ratio-first")
			b.ReportMetric(float64(all)/float64(off), "ratio-with-secrets")
		})
	}
}
