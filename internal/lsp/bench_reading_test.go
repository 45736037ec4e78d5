package lsp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"testing"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/transcript"
)

// Reading features on the generated 100 MB session (docs/PERFORMANCE.md):
//
//	go test ./internal/lsp -run '^$' -bench 'Reading|TranscriptAppend' -benchtime 1x

// onWorker runs f on the session's worker (the session is not safe for concurrent use) and
// returns how long it took.
func (c *benchConn) onWorker(uri string, f func(ss *sess)) time.Duration {
	d := c.srv.doc(uri)
	out := make(chan time.Duration, 1)
	d.sess.do(nil, func() {
		t0 := time.Now()
		f(d.sess)
		out <- time.Since(t0)
	})
	return <-out
}

func BenchmarkReading(b *testing.B) {
	text := genSession(100 * mb)
	uri := "file:///bench/reading.jsonl"
	c := newBenchConn(b)
	c.open(uri, didOpenFrame(uri, text))
	n := c.lineCount(uri)
	doc := `{"textDocument":{"uri":"` + uri + `"}}`
	id := 1000
	for i := 0; i < b.N; i++ {
		// The graph is built (and cached per version) by the first request that needs it.
		id++
		first := c.call(id, "ccdag/transcript", doc, nil)
		var build []time.Duration
		for k := 0; k < 5; k++ {
			build = append(build, c.onWorker(uri, func(ss *sess) {
				transcript.Build(ss.session, ss.current(nil), transcript.Options{})
			}))
		}
		id++
		req := c.call(id, "ccdag/transcript", doc, nil)
		var hints []time.Duration
		rng := rand.New(rand.NewPCG(1, 2))
		for k := 0; k < 2000; k++ {
			l := rng.IntN(n - 100)
			id++
			hints = append(hints, c.call(id, "textDocument/inlayHint", fmt.Sprintf(`{"textDocument":{"uri":"%s"},"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":0}}}`, uri, l, l+100), nil))
		}
		var lens, fold []time.Duration
		for k := 0; k < 400; k++ {
			id++
			lens = append(lens, c.call(id, "textDocument/codeLens", doc, nil))
			if k%20 == 0 {
				id++
				fold = append(fold, c.call(id, "textDocument/foldingRange", doc, nil))
			}
		}
		b.ReportMetric(ms(first), "ms-transcript-first(graph-built)")
		b.ReportMetric(ms(slices.Min(build)), "ms-transcript-build-fresh")
		b.ReportMetric(ms(req), "ms-transcript-request")
		b.ReportMetric(ms(percentile(hints, 0.5)), "ms-inlay100-p50")
		b.ReportMetric(ms(percentile(hints, 0.99)), "ms-inlay100-p99")
		b.ReportMetric(ms(percentile(lens, 0.5)), "ms-codelens-p50")
		b.ReportMetric(ms(percentile(lens, 0.99)), "ms-codelens-p99")
		b.ReportMetric(ms(percentile(fold, 0.5)), "ms-folding-p50")
	}
}

// BenchmarkTranscriptAppend: a live session grows by one record, then its transcript is built
// again with the session's builder (its graph rebuilt with the memo first). 10 MB vs 100 MB.
func BenchmarkTranscriptAppend(b *testing.B) {
	for _, size := range []int{10, 100} {
		b.Run(fmt.Sprintf("%dMB", size), func(b *testing.B) {
			w := gen.New(gen.Options{Seed: 1})
			for len(w.Bytes()) < size*mb {
				w.Turn()
			}
			text := w.Take()
			uri := fmt.Sprintf("file:///bench/tappend%d.jsonl", size)
			c := newBenchConn(b)
			c.open(uri, didOpenFrame(uri, text))
			line := c.lineCount(uri) // after the last line (the text ends with a newline)
			c.onWorker(uri, func(ss *sess) { ss.readingState().transcript.Build(ss.session, ss.current(nil), transcript.Options{}) })
			var graphT, trT []time.Duration
			version := 1
			for i := 0; i < b.N*20; i++ {
				version++
				c.appendRecord(uri, version, line, w.Record())
				line++
				var g time.Duration
				t := c.onWorker(uri, func(ss *sess) {
					t0 := time.Now()
					gr := ss.current(nil)
					g = time.Since(t0)
					ss.readingState().transcript.Build(ss.session, gr, transcript.Options{})
				})
				graphT = append(graphT, g)
				trT = append(trT, t-g)
			}
			b.ReportMetric(ms(median(graphT)), "ms-graph-rebuild")
			b.ReportMetric(ms(median(trT)), "ms-transcript-update")
		})
	}
}
