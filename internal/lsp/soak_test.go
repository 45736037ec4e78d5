package lsp

// The soak test of issue 5: 20 sessions open (200 MB in all), a writer appending a record to three
// of them 50 times a second each, a client asking for hover, definition and the workflow graph in a
// loop, for 60 s. It reports request latency (p50, p99, max) and live heap over time, and fails on
// any error reply, a p99 over 10 ms, a live heap that grows beyond what the appended records
// explain, any disagreement between the server's final state and a fresh parse of the same text,
// or a heap that does not return to its baseline once the documents are closed.
//
// It runs only when CCDAG_SOAK is set to a duration: `make soak` (60 s, 200 MB, strict) and `make
// soak-short` (10 s, 40 MB; part of `make test`, where a p99 over 10 ms is reported, not failed,
// until the server meets it). CCDAG_SOAK_MB sets the total size, CCDAG_SOAK_STRICT=1 fails on
// latency.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/session"
)

// soakClient is a lean client: it keeps only the last diagnostics of each document, so that its
// own memory does not grow with the run.
type soakClient struct {
	t    *testing.T
	conn jsonrpc2.Conn

	mu      sync.Mutex
	last    map[string]publishParams
	changed chan struct{}
}

func (c *soakClient) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if req.Method() == "textDocument/publishDiagnostics" {
		var p publishParams
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			c.mu.Lock()
			c.last[p.URI] = p
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
		}
	}
	// Never return reply's error: jsonrpc2 v0.10.0 stores a handler's error and then the stream's
	// when the connection ends, and panics when their types differ.
	reply(ctx, nil, nil)
	return nil
}

// await waits until cond (called under the lock) holds.
func (c *soakClient) await(what string, limit time.Duration, cond func() bool) {
	c.t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok, ch := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

type soakDoc struct {
	uri, path string
	w         *gen.Writer // nil for documents that are not written to

	mu      sync.Mutex
	text    []byte
	lines   int
	version int32
}

func (d *soakDoc) snapshot() (lines int, text []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lines, d.text
}

// liveBytes reads the live heap as of the last collection, without forcing one.
func liveBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func TestSoak(t *testing.T) {
	dur, err := time.ParseDuration(os.Getenv("CCDAG_SOAK"))
	if err != nil {
		t.Skip("CCDAG_SOAK is not set (make soak runs this for 60 s, make soak-short for 10 s)")
	}
	totalMB := 200
	if v, err := strconv.Atoi(os.Getenv("CCDAG_SOAK_MB")); err == nil && v > 0 {
		totalMB = v
	}
	const nDocs, nWritten, rate = 20, 3, 50
	base := liveHeap()

	// 20 realistic sessions on disk, each in its own project folder.
	root := t.TempDir()
	docs := make([]*soakDoc, nDocs)
	genStart := time.Now()
	for i := range docs {
		sid := fmt.Sprintf("50a1c0de-0000-4000-8000-%012d", i)
		w := gen.New(gen.Options{SessionID: sid, Seed: uint64(i + 1)})
		for len(w.Bytes()) < totalMB<<20/nDocs {
			w.Turn()
		}
		text := w.Take()
		dir := filepath.Join(root, fmt.Sprintf("p%02d", i))
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, sid+".jsonl")
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		d := &soakDoc{uri: pathToURI(path), path: path, text: text, lines: strings.Count(string(text), "\n"), version: 1}
		if i < nWritten {
			d.w = w
		}
		docs[i] = d
	}
	t.Logf("generated %d sessions, %d MB in all, in %v", nDocs, totalMB, time.Since(genStart).Round(time.Millisecond))

	// The server, in this process (so that its heap can be measured), and the client.
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() { code <- serve(ctx, NewStream(a), Options{}, hooks{log: zap.NewNop()}) }()
	c := &soakClient{t: t, last: map[string]publishParams{}, changed: make(chan struct{})}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	c.conn.Go(ctx, c.handle)
	defer func() { c.conn.Close(); a.Close(); b.Close() }()
	call := func(method string, params any) (time.Duration, error) {
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		defer ccancel()
		var res json.RawMessage
		start := time.Now()
		_, err := c.conn.Call(cctx, method, params, &res)
		return time.Since(start), err
	}
	notify := func(method string, params any) {
		if err := c.conn.Notify(ctx, method, params); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	if _, err := call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	notify("initialized", map[string]any{})

	openStart := time.Now()
	for _, d := range docs {
		notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": d.uri, "languageId": "jsonl", "version": 1, "text": string(d.text)}})
	}
	c.await("diagnostics of every document", 5*time.Minute, func() bool {
		for _, d := range docs {
			if p, ok := c.last[d.uri]; !ok || p.Version == nil || *p.Version != 1 {
				return false
			}
		}
		return true
	})
	t.Logf("opened: diagnostics of all %d documents after %v", nDocs, time.Since(openStart).Round(time.Millisecond))
	runtime.GC()
	opened := liveBytes()

	// The run: a writer, a querying client, a memory sampler.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var appended int64
	var writerErr error
	wg.Add(1)
	go func() { // 50 appends a second to each of three sessions, as a live Claude Code session writes
		defer wg.Done()
		tick := time.NewTicker(time.Second / rate)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for _, d := range docs[:nWritten] {
				rec := d.w.Record()
				d.mu.Lock()
				line := d.lines
				d.text = append(d.text, rec...)
				d.lines++
				d.version++
				v := d.version
				d.mu.Unlock()
				appended += int64(len(rec))
				err := c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
					"textDocument":   map[string]any{"uri": d.uri, "version": v},
					"contentChanges": []any{map[string]any{"range": rng{Start: at(line, 0), End: at(line, 0)}, "text": string(rec)}},
				})
				if err != nil && writerErr == nil {
					writerErr = err
				}
			}
		}
	}()
	type sample struct {
		at   time.Duration
		live uint64
		gor  int
	}
	var samples []sample
	var smu sync.Mutex
	runStart := time.Now()
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				smu.Lock()
				samples = append(samples, sample{time.Since(runStart), liveBytes(), runtime.NumGoroutine()})
				smu.Unlock()
			}
		}
	}()
	lat := map[string][]time.Duration{}
	var errs []string
	rnd := rand.New(rand.NewPCG(7, 7))
	methods := []string{"textDocument/hover", "textDocument/definition", methodWorkflowGraph}
	for i := 0; time.Since(runStart) < dur; i++ {
		d := docs[rnd.IntN(nDocs)]
		if rnd.IntN(3) == 0 {
			d = docs[rnd.IntN(nWritten)] // the growing sessions get a third of the requests or more
		}
		m := methods[i%len(methods)]
		lines, _ := d.snapshot()
		l := rnd.IntN(lines)
		var params any
		switch m {
		case methodWorkflowGraph:
			params = map[string]any{"textDocument": map[string]any{"uri": d.uri}}
		case "textDocument/definition": // on the parentUuid value, which every generated record starts with
			params = tdp(d.uri, at(l, len(`{"parentUuid":"`)+3))
		default:
			params = tdp(d.uri, at(l, 2+rnd.IntN(300)))
		}
		took, err := call(m, params)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", m, err))
			continue
		}
		lat[m] = append(lat[m], took)
		kind := " (static)"
		if d.w != nil {
			kind = " (growing)"
		}
		lat[m+kind] = append(lat[m+kind], took)
	}
	close(stop)
	wg.Wait()
	if writerErr != nil {
		t.Errorf("writer: %v", writerErr)
	}

	// Latency.
	var all []time.Duration
	report := []string{fmt.Sprintf("%-36s %7s %9s %9s %9s", "request", "count", "p50", "p99", "max")}
	for _, m := range methods {
		all = append(all, lat[m]...)
	}
	var rows []string
	for _, m := range methods {
		rows = append(rows, m, m+" (static)", m+" (growing)")
	}
	for _, m := range append(rows, "all") {
		ds := lat[m]
		if m == "all" {
			ds = all
		}
		ds = slices.Clone(ds)
		slices.Sort(ds)
		report = append(report, fmt.Sprintf("%-36s %7d %9v %9v %9v", m, len(ds), pct(ds, .5).Round(time.Microsecond), pct(ds, .99).Round(time.Microsecond), pct(ds, 1).Round(time.Microsecond)))
	}
	t.Logf("%v run, %.1f MB appended to %d sessions (%d appends/s each):\n%s", dur, float64(appended)/(1<<20), nWritten, rate, strings.Join(report, "\n"))
	if len(errs) > 0 {
		t.Errorf("%d error replies, first: %s", len(errs), errs[0])
	}
	slices.Sort(all)
	slow := ""
	if p99 := pct(all, .99); p99 > 10*time.Millisecond {
		slow = fmt.Sprintf("p99 latency %v is over 10 ms", p99.Round(time.Microsecond))
		if os.Getenv("CCDAG_SOAK_STRICT") != "" || os.Getenv("CCDAG_KNOWN_BUGS") != "" {
			t.Error(slow)
		}
	}

	// Memory over time: growth beyond what the appended text explains fails.
	var mem []string
	for _, s := range samples {
		mem = append(mem, fmt.Sprintf("%3.0fs %4d MB %4d goroutines", s.at.Seconds(), s.live>>20, s.gor))
	}
	t.Logf("live heap after opening: %d MB (baseline %d MB); during the run:\n%s", opened>>20, base>>20, strings.Join(mem, "\n"))
	if len(samples) >= 4 {
		q := samples[len(samples)/4].live
		end := samples[len(samples)-1].live
		allowed := uint64(3*appended) + 48<<20
		if end > q && end-q > allowed {
			t.Errorf("live heap grew by %d MB from a quarter of the run to its end; the appended records explain %d MB at most", (end-q)>>20, allowed>>20)
		}
	}

	// Final state: the last diagnostics of every written session, and its graph, equal those of a
	// fresh parse of the text the client holds.
	for _, d := range docs {
		d := d
		c.await("the last version's diagnostics of "+filepath.Base(d.path), time.Minute, func() bool {
			p, ok := c.last[d.uri]
			return ok && p.Version != nil && *p.Version == d.version
		})
		c.mu.Lock()
		got := wireDiags(c.last[d.uri].Diagnostics)
		c.mu.Unlock()
		if want := freshDiags(d.uri, d.text); !slices.Equal(got, want) {
			t.Errorf("%s: the server's diagnostics (%d) differ from a fresh parse (%d):\n got  %.400q\n want %.400q", filepath.Base(d.path), len(got), len(want), got, want)
		}
	}
	for _, d := range docs[:nWritten] {
		var gotG any
		if err := c.callInto(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": d.uri}}, &gotG); err != nil {
			t.Fatal(err)
		}
		s := session.New(strings.TrimSuffix(filepath.Base(d.path), ".jsonl"), filepath.Dir(d.path))
		s.AddFile(session.NewFile(d.path, slices.Clone(d.text)))
		uri := d.uri
		raw, _ := json.Marshal(graph.BuildWith(s, graph.Options{URI: func(string) string { return uri }}))
		var wantG any
		json.Unmarshal(raw, &wantG)
		if !reflect.DeepEqual(gotG, wantG) {
			t.Errorf("%s: the server's workflow graph differs from one built from a fresh parse", filepath.Base(d.path))
		}
	}
	t.Logf("final state: diagnostics of %d documents and graphs of %d agree with a fresh parse", nDocs, nWritten)

	// Close everything: the heap returns to its baseline.
	for _, d := range docs {
		notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": d.uri}})
	}
	c.await("diagnostics cleared", time.Minute, func() bool {
		for _, d := range docs {
			if p := c.last[d.uri]; len(p.Diagnostics) != 0 || p.Version != nil {
				return false
			}
		}
		return true
	})
	call("ccdag/ping", nil) // every close has been read and queued before this is answered
	for _, d := range docs {
		d.text, d.w = nil, nil
	}
	after := waitHeapBelow(base + 32<<20)
	t.Logf("after closing every document: live heap %d MB (baseline %d MB)", after>>20, base>>20)
	if after > base+32<<20 {
		t.Errorf("the live heap did not return to its baseline after close: %d MB over", (after-base)>>20)
	}
	if slow != "" && !t.Failed() {
		// Everything else held. The latency goal is not met yet (reported to the server's author);
		// `make soak` (CCDAG_SOAK_STRICT=1) fails on it, the short run in `make test` reports it.
		t.Skipf("KNOWN BUG (reported; CCDAG_SOAK_STRICT=1 makes it fail): %s", slow)
	}
}

func (c *soakClient) callInto(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}
