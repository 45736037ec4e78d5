package lsp

// The soak test of issue 5: 20 sessions open (200 MB in all), a writer appending a record to three
// of them 50 times a second each, a client asking for hover, definition and the workflow graph in a
// loop, for 60 s. It reports request latency (p50, p99, max: from sending a request to receiving its
// response whole) and the server's live heap over time, and fails on any error reply, a p99 over
// 10 ms, a live heap that grows beyond what the appended records explain, any disagreement between
// the server's final state and a fresh parse of the same text, or a heap that does not return to
// its baseline once the documents are closed.
//
// It runs only when CCDAG_SOAK is set to a duration: `make soak` (60 s, 200 MB) and `make
// soak-short` (10 s, 40 MB; part of `make test`). CCDAG_SOAK_MB sets the total size;
// CCDAG_SOAK_LATENCY=report reports latency over the limit without failing (a slow machine).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
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

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonrpc"
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

// The client runs in a process of its own (this test binary, started again with
// CCDAG_SOAK_ROLE=client), as an editor would: its decoding of megabyte-sized graphs then neither
// shares the server's heap and garbage collector nor skews the server's memory figures. They talk
// over OS pipes; a control pipe tells the server's side when the documents are open, when the run
// is over and when every document is closed, and the client waits for its answer before it exits
// (the server's heap is measured with the connection still up).

// soakPlan is what the server's side tells the client: the sessions on disk and the run's shape.
type soakPlan struct {
	Duration string        `json:"duration"`
	Docs     []soakPlanDoc `json:"docs"`
}

type soakPlanDoc struct {
	Path      string `json:"path"`
	SessionID string `json:"sessionId"`
	Seed      uint64 `json:"seed"`
	Written   bool   `json:"written"` // the writer appends to it
}

const nSoakDocs, nSoakWritten, soakRate = 20, 3, 50

// soakSession generates session i of the run: the same bytes and writer state on both sides.
func soakSession(i, totalMB int) (sid string, w *gen.Writer) {
	sid = fmt.Sprintf("50a1c0de-0000-4000-8000-%012d", i)
	w = gen.New(gen.Options{SessionID: sid, Seed: uint64(i + 1)})
	for len(w.Bytes()) < totalMB<<20/nSoakDocs {
		w.Turn()
	}
	return sid, w
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
	if os.Getenv("CCDAG_SOAK_ROLE") == "client" {
		soakClientProcess(t, dur, totalMB)
		return
	}
	base := liveHeap()

	// 20 realistic sessions on disk, each in its own project folder.
	root := t.TempDir()
	plan := soakPlan{Duration: dur.String()}
	genStart := time.Now()
	for i := range nSoakDocs {
		sid, w := soakSession(i, totalMB)
		dir := filepath.Join(root, fmt.Sprintf("p%02d", i))
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, sid+".jsonl")
		if err := os.WriteFile(path, w.Take(), 0o644); err != nil {
			t.Fatal(err)
		}
		plan.Docs = append(plan.Docs, soakPlanDoc{Path: path, SessionID: sid, Seed: uint64(i + 1), Written: i < nSoakWritten})
	}
	t.Logf("generated %d sessions, %d MB in all, in %v", nSoakDocs, totalMB, time.Since(genStart).Round(time.Millisecond))
	planPath := filepath.Join(root, "plan.json")
	pj, _ := json.Marshal(plan)
	os.WriteFile(planPath, pj, 0o644)
	runtime.GC()

	// Pipes: the protocol both ways, the client's control messages and the server side's answer.
	toSrvR, toSrvW := mustPipe(t)
	toCliR, toCliW := mustPipe(t)
	ctlR, ctlW := mustPipe(t)
	ackR, ackW := mustPipe(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSoak$", "-test.v", "-test.count=1", "-test.timeout=30m")
	cmd.Env = append(os.Environ(), "CCDAG_SOAK_ROLE=client", "CCDAG_SOAK_PLAN="+planPath)
	cmd.ExtraFiles = []*os.File{toCliR, toSrvW, ctlW, ackR} // fds 3, 4, 5, 6
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toCliR.Close()
	toSrvW.Close()
	ctlW.Close()
	ackR.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan int, 1)
	go func() {
		served <- serve(ctx, jsonrpc.NewSplitStream(toSrvR, toCliW, toCliW), Options{}, hooks{log: zap.NewNop()})
	}()

	// The server's heap, sampled every second, and the client's control messages.
	type sample struct {
		at   time.Duration
		live uint64
		gor  int
	}
	var samples []sample
	var smu sync.Mutex
	start := time.Now()
	stopSampling := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
				smu.Lock()
				samples = append(samples, sample{time.Since(start), liveBytes(), runtime.NumGoroutine()})
				smu.Unlock()
			}
		}
	}()
	ctl := bufio.NewScanner(ctlR)
	var opened, runFrom, runTo int
	var appended int64
	closed := false
	for !closed && ctl.Scan() {
		f := strings.Fields(ctl.Text())
		smu.Lock()
		switch f[0] {
		case "opened":
			runtime.GC()
			t.Logf("live heap after opening: %d MB (baseline %d MB)", liveBytes()>>20, base>>20)
			opened, runFrom = len(samples), len(samples)
		case "ran":
			runTo = len(samples)
			appended, _ = strconv.ParseInt(f[1], 10, 64)
		case "closed":
			closed = true
		}
		smu.Unlock()
	}
	_ = opened
	var after uint64
	if closed {
		// Every document is closed and the client waits: the heap returns to its baseline.
		after = waitHeapBelow(base + 32<<20)
	}
	close(stopSampling)
	ackW.Write([]byte("bye\n"))
	ackW.Close()
	select {
	case err = <-exited:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		err = <-exited
	}
	toCliW.Close()
	toSrvR.Close()
	<-served
	t.Logf("client process:\n%s", out.String())
	if err != nil {
		t.Fatalf("the client failed: %v", err)
	}
	if !closed {
		t.Fatal("the client ended without closing its documents")
	}

	// Memory over time: growth beyond what the appended text explains fails.
	smu.Lock()
	run := samples[runFrom:max(runFrom, runTo)]
	var mem []string
	for _, s := range samples {
		mem = append(mem, fmt.Sprintf("%3.0fs %4d MB %4d goroutines", s.at.Seconds(), s.live>>20, s.gor))
	}
	smu.Unlock()
	t.Logf("server's live heap over time (the run is samples %d to %d):\n%s", runFrom, runTo, strings.Join(mem, "\n"))
	if len(run) >= 4 {
		q := run[len(run)/4].live
		end := run[len(run)-1].live
		allowed := uint64(3*appended) + 48<<20
		if end > q && end-q > allowed {
			t.Errorf("live heap grew by %d MB from a quarter of the run to its end; the appended records explain %d MB at most", (end-q)>>20, allowed>>20)
		}
	} else {
		t.Errorf("only %d heap samples during the run", len(run))
	}
	t.Logf("after closing every document: live heap %d MB (baseline %d MB)", after>>20, base>>20)
	if after > base+32<<20 {
		t.Errorf("the live heap did not return to its baseline after close: %d MB over", (after-base)>>20)
	}
}

func mustPipe(t *testing.T) (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

// soakClientProcess is the client: it opens the documents, runs the writer and the querying loop,
// reports latency, and checks the final state against a fresh parse.
func soakClientProcess(t *testing.T, dur time.Duration, totalMB int) {
	pj, err := os.ReadFile(os.Getenv("CCDAG_SOAK_PLAN"))
	if err != nil {
		t.Fatal(err)
	}
	var plan soakPlan
	if err := json.Unmarshal(pj, &plan); err != nil {
		t.Fatal(err)
	}
	fromSrv, toSrv := os.NewFile(3, "from-server"), os.NewFile(4, "to-server")
	ctl, ack := os.NewFile(5, "control"), os.NewFile(6, "ack")
	control := func(msg string) {
		if _, err := ctl.Write([]byte(msg + "\n")); err != nil {
			t.Fatalf("control: %v", err)
		}
	}

	docs := make([]*soakDoc, len(plan.Docs))
	for i, pd := range plan.Docs {
		text, err := os.ReadFile(pd.Path)
		if err != nil {
			t.Fatal(err)
		}
		d := &soakDoc{uri: pathToURI(pd.Path), path: pd.Path, text: text, lines: strings.Count(string(text), "\n"), version: 1}
		if pd.Written {
			_, d.w = soakSession(i, totalMB) // the writer continues the chain where the file ends
			if got := d.w.Take(); !slices.Equal(got, text) {
				t.Fatalf("%s: the regenerated session differs from the file", pd.Path)
			}
		}
		docs[i] = d
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &soakClient{t: t, last: map[string]publishParams{}, changed: make(chan struct{})}
	cs := newArrivalStream(fromSrv, toSrv)
	c.conn = jsonrpc2.NewConn(cs)
	c.conn.Go(ctx, c.handle)
	defer c.conn.Close()
	// call returns the request's latency (sent to response received whole) and the time until the
	// client had decoded the response too.
	call := func(method string, params any) (latency, decoded time.Duration, err error) {
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		defer ccancel()
		var res json.RawMessage
		start := time.Now()
		id, err := c.conn.Call(cctx, method, params, &res)
		decoded = time.Since(start)
		if at, ok := cs.arrival(id); ok {
			latency = at.Sub(start)
		} else {
			latency = decoded
		}
		return latency, decoded, err
	}
	notify := func(method string, params any) {
		if err := c.conn.Notify(ctx, method, params); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	if _, _, err := call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
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
	t.Logf("opened: diagnostics of all %d documents after %v", len(docs), time.Since(openStart).Round(time.Millisecond))
	control("opened")

	// The run: a writer and the querying loop.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var appended int64
	var writerErr error
	wg.Add(1)
	go func() { // 50 appends a second to each of three sessions, as a live Claude Code session writes
		defer wg.Done()
		tick := time.NewTicker(time.Second / soakRate)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for _, d := range docs {
				if d.w == nil {
					continue
				}
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
	runStart := time.Now()
	lat := map[string][]time.Duration{}
	dec := map[string][]time.Duration{}
	var errs []string
	rnd := rand.New(rand.NewPCG(7, 7))
	methods := []string{"textDocument/hover", "textDocument/definition", methodWorkflowGraph}
	for i := 0; time.Since(runStart) < dur; i++ {
		d := docs[rnd.IntN(len(docs))]
		if rnd.IntN(3) == 0 {
			d = docs[rnd.IntN(nSoakWritten)] // the growing sessions get a third of the requests or more
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
		took, decoded, err := call(m, params)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", m, err))
			continue
		}
		kind := " (static)"
		if d.w != nil {
			kind = " (growing)"
		}
		lat[m] = append(lat[m], took)
		lat[m+kind] = append(lat[m+kind], took)
		dec[m] = append(dec[m], decoded)
		dec[m+kind] = append(dec[m+kind], decoded)
	}
	close(stop)
	wg.Wait()
	control(fmt.Sprintf("ran %d", appended))
	if writerErr != nil {
		t.Errorf("writer: %v", writerErr)
	}

	// Latency: from sending a request to receiving its response whole, what the server answers
	// for. The client's own decoding of the response (over a megabyte of JSON for a graph) is
	// reported beside it, not held to the limit.
	var all, allDec []time.Duration
	report := []string{fmt.Sprintf("%-36s %7s %9s %9s %9s   %s", "request", "count", "p50", "p99", "max", "p99 with the client's decoding")}
	for _, m := range methods {
		all = append(all, lat[m]...)
		allDec = append(allDec, dec[m]...)
	}
	lat["all"], dec["all"] = all, allDec
	var rows []string
	for _, m := range methods {
		rows = append(rows, m, m+" (static)", m+" (growing)")
	}
	var slow []string
	for _, m := range append(rows, "all") {
		ds, dd := slices.Clone(lat[m]), slices.Clone(dec[m])
		slices.Sort(ds)
		slices.Sort(dd)
		p99 := pct(ds, .99)
		report = append(report, fmt.Sprintf("%-36s %7d %9v %9v %9v   %9v", m, len(ds), pct(ds, .5).Round(time.Microsecond), p99.Round(time.Microsecond), pct(ds, 1).Round(time.Microsecond), pct(dd, .99).Round(time.Microsecond)))
		if p99 > 10*time.Millisecond && !strings.HasSuffix(m, ")") {
			slow = append(slow, fmt.Sprintf("%s p99 %v", m, p99.Round(time.Microsecond)))
		}
	}
	t.Logf("%v run, %.1f MB appended to %d sessions (%d appends/s each):\n%s", dur, float64(appended)/(1<<20), nSoakWritten, soakRate, strings.Join(report, "\n"))
	if len(errs) > 0 {
		t.Errorf("%d error replies, first: %s", len(errs), errs[0])
	}
	if len(slow) > 0 {
		msg := "latency over 10 ms: " + strings.Join(slow, "; ")
		if os.Getenv("CCDAG_SOAK_LATENCY") == "report" {
			t.Log("not failed (CCDAG_SOAK_LATENCY=report): " + msg) // for a machine known to be slow
		} else {
			t.Error(msg)
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
	for _, d := range docs[:nSoakWritten] {
		var gotG any
		if err := c.callInto(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": d.uri}}, &gotG); err != nil {
			t.Fatal(err)
		}
		s := session.New(strings.TrimSuffix(filepath.Base(d.path), ".jsonl"), filepath.Dir(d.path))
		s.AddFile(session.NewFile(d.path, slices.Clone(d.text)))
		uri := d.uri
		full := graph.BuildWith(s, graph.Options{URI: func(string) string { return uri }})
		raw := graphJSON(nil, full, graph.Collapsed(full, graph.CollapseOptions{MaxNodes: graph.DefaultMaxNodes}), check.New(s).All(nil), nil)
		var wantG any
		json.Unmarshal(raw, &wantG)
		if !reflect.DeepEqual(gotG, wantG) {
			t.Errorf("%s: the server's workflow graph differs from one built from a fresh parse", filepath.Base(d.path))
		}
	}
	t.Logf("final state: diagnostics of %d documents and graphs of %d agree with a fresh parse", len(docs), nSoakWritten)

	// Close everything, then wait for the server's side to measure its heap.
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
	control("closed")
	io.Copy(io.Discard, ack)
}

// arrivalStream is the client's end of the connection: it notes when each response has been
// received whole, before the client library decodes it.
type arrivalStream struct {
	jsonrpc2.Stream // writes (and closes) as the library does
	in              *bufio.Reader

	mu sync.Mutex
	at map[string]time.Time
}

func newArrivalStream(r io.ReadCloser, w io.WriteCloser) *arrivalStream {
	return &arrivalStream{Stream: jsonrpc2.NewStream(rwPair{r, w}), in: bufio.NewReaderSize(r, 64<<10), at: map[string]time.Time{}}
}

// rwPair is a connection made of two pipes.
type rwPair struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p rwPair) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p rwPair) Close() error {
	p.w.Close()
	return p.ReadCloser.Close()
}

func (s *arrivalStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, err := readFrame(s.in)
	if err != nil {
		return nil, 0, err
	}
	at := time.Now()
	msg, err := jsonrpc2.DecodeMessage(body)
	if r, ok := msg.(*jsonrpc2.Response); ok {
		s.mu.Lock()
		s.at[fmt.Sprint(r.ID())] = at
		s.mu.Unlock()
	}
	return msg, int64(len(body)), err
}

// arrival returns (and forgets) when the response to id arrived.
func (s *arrivalStream) arrival(id jsonrpc2.ID) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := fmt.Sprint(id)
	at, ok := s.at[k]
	delete(s.at, k)
	return at, ok
}

func (c *soakClient) callInto(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}
