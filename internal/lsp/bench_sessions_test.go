package lsp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSessionsCache: ccdag/sessions on a history (CCDAG_HISTORY: the folder holding
// projects/, e.g. a genuine-like one made by copying ../shared/corpus, docs/PERFORMANCE.md) from
// an empty history cache (cold-s, once), then from the warm cache (each op; warm-s). Wall time:
// run it on a quiet machine and read it beside `ccdag sessions`' figures.
func BenchmarkSessionsCache(b *testing.B) {
	hist := os.Getenv("CCDAG_HISTORY")
	if hist == "" {
		b.Skip("CCDAG_HISTORY is not set (the folder holding projects/)")
	}
	b.Setenv("CCDAG_CACHE_DIR", b.TempDir())
	c := newClient(b, clientOpt{})
	params := map[string]any{"folders": []string{pathToURI(filepath.Join(hist, "projects"))}}
	var out struct{ Sessions []struct{ ID string } }
	start := time.Now()
	c.mustCall(methodSessions, params, &out)
	cold := time.Since(start)
	n := len(out.Sessions)
	b.ResetTimer()
	for b.Loop() {
		c.mustCall(methodSessions, params, &out)
	}
	if len(out.Sessions) != n {
		b.Fatalf("warm: %d sessions, cold %d", len(out.Sessions), n)
	}
	b.ReportMetric(cold.Seconds(), "cold-s")
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "warm-s")
	b.ReportMetric(float64(n), "sessions")
}
