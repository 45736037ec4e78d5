package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/testutil"
)

// Benchmarks of the server as a client sees it, over an in-memory pipe, on generated realistic
// sessions (internal/gen: the log the engine's benchmarks use). Times run from the first byte of
// a message written to the last byte of the answer read; the client's own JSON encoding is done
// before the clock starts. "server-ms" figures are the server's own work: from the message read
// off the wire to the diagnostics written.
//
//	go test ./internal/lsp -run '^$' -bench . -benchtime 3x

type benchConn struct {
	tb        testing.TB
	w         net.Conn
	srv       *server
	mu        sync.Mutex
	waiters   map[string]chan []byte // reply id, or "diag:<uri>:<version>"
	published chan time.Time         // server-side: when diagnostics were written
	stages    []stage
	close     func()
}

type stage struct {
	name string
	at   time.Time
}

func newBenchConn(tb testing.TB) *benchConn {
	a, b := net.Pipe()
	c := &benchConn{tb: tb, w: b, waiters: map[string]chan []byte{}}
	ready := make(chan struct{})
	h := hooks{log: zap.NewNop(), onServer: func(s *server) { c.srv = s; close(ready) }}
	c.published = make(chan time.Time, 1<<16)
	h.stage = func(name string) {
		c.mu.Lock()
		c.stages = append(c.stages, stage{name, time.Now()})
		c.mu.Unlock()
	}
	h.afterPublish = func(uri string) { c.published <- time.Now() }
	ctx, cancel := context.WithCancel(context.Background())
	go serve(ctx, jsonrpc.NewStream(a), Options{}, h)
	<-ready
	go c.read(bufio.NewReaderSize(b, 1<<20))
	c.close = func() { cancel(); a.Close(); b.Close() }
	tb.Cleanup(c.close)
	var res json.RawMessage
	c.call(1, "initialize", `{"capabilities":{"textDocument":{"hover":{"contentFormat":["markdown"]}}}}`, &res)
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	return c
}

func (c *benchConn) read(r *bufio.Reader) {
	for {
		body, err := readFrame(r)
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage
			Method string
			Params struct {
				URI     string
				Version *int32
			}
		}
		if len(body) > 64<<10 {
			// a big reply (a graph): only its id matters; decoding it whole would bill the
			// client's work to the server
			head := string(body[:64])
			if i := strings.Index(head, `"id":`); i >= 0 {
				id := head[i+5:]
				m.ID = json.RawMessage(id[:strings.IndexAny(id, ",}")])
			}
		} else {
			json.Unmarshal(body, &m)
		}
		key := string(m.ID)
		if m.Method == "textDocument/publishDiagnostics" && m.Params.Version != nil {
			key = fmt.Sprintf("diag:%s:%d", m.Params.URI, *m.Params.Version)
		} else if m.Method != "" {
			continue
		}
		c.mu.Lock()
		ch := c.waiters[key]
		delete(c.waiters, key)
		c.mu.Unlock()
		if ch != nil {
			ch <- body
		}
	}
}

func (c *benchConn) expect(key string) chan []byte {
	ch := make(chan []byte, 1)
	c.mu.Lock()
	c.waiters[key] = ch
	c.mu.Unlock()
	return ch
}

func (c *benchConn) wait(ch chan []byte, what string) []byte {
	select {
	case b := <-ch:
		return b
	case <-time.After(2 * time.Minute):
		c.tb.Fatalf("no %s", what)
	}
	return nil
}

func frame(body []byte) []byte {
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

func (c *benchConn) send(body string) { c.w.Write(frame([]byte(body))) }

func (c *benchConn) call(id int, method, params string, result any) time.Duration {
	ch := c.expect(strconv.Itoa(id))
	msg := frame([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + params + `}`))
	t0 := time.Now()
	c.w.Write(msg)
	b := c.wait(ch, method+" reply")
	d := time.Since(t0)
	if result != nil {
		var m struct{ Result json.RawMessage }
		json.Unmarshal(b, &m)
		json.Unmarshal(m.Result, result)
	}
	return d
}

func didOpenFrame(uri string, text []byte) []byte {
	t, _ := json.Marshal(string(text))
	return frame([]byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"jsonl","version":1,"text":` + string(t) + `}}}`))
}

// open sends a pre-encoded didOpen and returns the time until its diagnostics arrived.
func (c *benchConn) open(uri string, fr []byte) time.Duration {
	ch := c.expect("diag:" + uri + ":1")
	t0 := time.Now()
	c.w.Write(fr)
	c.wait(ch, "diagnostics after didOpen")
	d := time.Since(t0)
	for len(c.published) > 0 {
		<-c.published
	}
	return d
}

func (c *benchConn) lineCount(uri string) int {
	d := c.srv.doc(uri)
	out := make(chan int, 1)
	d.sess.do(nil, func() { out <- d.sess.session.File(d.path).LineCount() })
	return <-out
}

// appendRecord sends a didChange appending rec at line n, and returns the end-to-end time and
// the server's own time (message read to diagnostics written).
func (c *benchConn) appendRecord(uri string, version, line int, rec []byte) (e2e, server time.Duration) {
	t, _ := json.Marshal(string(rec))
	body := []byte(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":` + strconv.Itoa(version) +
		`},"contentChanges":[{"range":{"start":{"line":` + strconv.Itoa(line) + `,"character":0},"end":{"line":` + strconv.Itoa(line) + `,"character":0}},"text":` + string(t) + `}]}}`)
	fr := frame(body)
	ch := c.expect(fmt.Sprintf("diag:%s:%d", uri, version))
	for len(c.published) > 0 {
		<-c.published
	}
	t0 := time.Now()
	c.w.Write(fr)
	c.wait(ch, "diagnostics after an append")
	e2e = time.Since(t0)
	pub := <-c.published
	read := c.srv.stream.LastRead()
	return e2e, pub.Sub(read)
}

var genCache = map[int][]byte{}

func genSession(size int) []byte {
	if b, ok := genCache[size]; ok {
		return b
	}
	b := gen.Session(size, 1)
	genCache[size] = b
	return b
}

const mb = 1 << 20

// BenchmarkOpen: didOpen of a generated session to its first diagnostics, decoding included.
func BenchmarkOpen(b *testing.B) {
	for _, size := range []int{10 * mb, 100 * mb} {
		b.Run(fmt.Sprintf("%dMB", size/mb), func(b *testing.B) {
			text := genSession(size)
			fr := didOpenFrame("file:///bench/open.jsonl", text)
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			var total, cpu time.Duration
			stages := map[string]time.Duration{}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				c := newBenchConn(b)
				runtime.GC()
				b.StartTimer()
				t0, c0 := time.Now(), testutil.CPUTime()
				total += c.open("file:///bench/open.jsonl", fr)
				cpu += testutil.CPUTime() - c0
				c.mu.Lock()
				prev := t0
				for _, s := range c.stages {
					stages[s.name] += s.at.Sub(prev)
					prev = s.at
				}
				c.mu.Unlock()
				b.StopTimer()
				c.close() // the server ends: its session is garbage
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-diagnostics")
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "ms-cpu")
			for name, d := range stages {
				b.ReportMetric(ms(d)/float64(b.N), "ms-"+strings.ReplaceAll(name, " ", "-"))
			}
		})
	}
}

// BenchmarkAppend: one record appended to an open session, to its republished diagnostics.
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{1 * mb, 10 * mb, 100 * mb} {
		b.Run(fmt.Sprintf("%dMB", size/mb), func(b *testing.B) {
			w := gen.New(gen.Options{Seed: 1})
			for len(w.Bytes()) < size {
				w.Turn()
			}
			text := w.Take()
			uri := "file:///bench/append.jsonl"
			c := newBenchConn(b)
			c.open(uri, didOpenFrame(uri, text))
			line := c.lineCount(uri)
			const perOp = 200 // appends per iteration: enough for a median and a p99
			recs := make([][]byte, b.N*perOp)
			for i := range recs {
				recs[i] = w.Record()
			}
			runtime.GC()
			b.ResetTimer()
			var e2e, srv []time.Duration
			for i := range recs {
				a, s := c.appendRecord(uri, 2+i, line+i, recs[i])
				e2e, srv = append(e2e, a), append(srv, s)
			}
			b.StopTimer()
			b.ReportMetric(ms(median(e2e)), "ms-e2e-median")
			b.ReportMetric(ms(median(srv)), "ms-server-median")
			b.ReportMetric(ms(percentile(srv, 0.99)), "ms-server-p99")
			b.ReportMetric(ms(slices.Max(srv)), "ms-server-max")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkHoverDefinition: hover and definition on records all over a 100 MB session; p99.
func BenchmarkHoverDefinition(b *testing.B) {
	text := genSession(100 * mb)
	uri := "file:///bench/hover.jsonl"
	c := newBenchConn(b)
	c.open(uri, didOpenFrame(uri, text))
	runtime.GC()
	// positions: the parentUuid value of records spread over the file
	var targets []string
	lines := 0
	for i, off := 0, 0; off < len(text); i++ {
		end := off + strings.IndexByte(string(text[off:min(len(text), off+4<<20)]), '\n')
		if end < off {
			break
		}
		line := text[off:end]
		if k := strings.Index(string(line[:min(len(line), 200)]), `"parentUuid":"`); k >= 0 && i%7 == 0 {
			targets = append(targets, fmt.Sprintf(`{"textDocument":{"uri":"%s"},"position":{"line":%d,"character":%d}}`, uri, i, k+16))
		}
		off = end + 1
		lines++
	}
	b.ResetTimer()
	var hov, def []time.Duration
	id := 100
	for i := 0; i < b.N; i++ {
		for k := 0; k < 2000; k++ {
			t := targets[(k*7919)%len(targets)]
			id++
			hov = append(hov, c.call(id, "textDocument/hover", t, nil))
			id++
			def = append(def, c.call(id, "textDocument/definition", t, nil))
		}
	}
	b.StopTimer()
	b.ReportMetric(ms(percentile(hov, 0.5)), "ms-hover-p50")
	b.ReportMetric(ms(percentile(hov, 0.99)), "ms-hover-p99")
	b.ReportMetric(ms(percentile(def, 0.5)), "ms-definition-p50")
	b.ReportMetric(ms(percentile(def, 0.99)), "ms-definition-p99")
	b.ReportMetric(ms(slices.Max(hov)), "ms-hover-max")
}

// BenchmarkMemory: the server's heap with a 100 MB session open, over the document's size.
func BenchmarkMemory(b *testing.B) {
	text := genSession(100 * mb)
	uri := "file:///bench/mem.jsonl"
	fr := didOpenFrame(uri, text)
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		c := newBenchConn(b)
		runtime.GC()
		debug.FreeOSMemory()
		runtime.ReadMemStats(&before)
		c.open(uri, fr)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(text)), "heap/doc")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/mb, "heap-MB")
		runtime.KeepAlive(c)
		c.close()
	}
}

// BenchmarkScaling compares a 10 MB and a 100 MB session on every operation: open (CPU time),
// append (server time), hover, definition, the outline and the graph. Linear work shows a ratio
// near 10, work that must not grow with the file a ratio near 1; anything quadratic would show
// ~100.
func BenchmarkScaling(b *testing.B) {
	type fig struct{ open, append, hover, def, symbols, graph time.Duration }
	measure := func(size int) fig {
		w := gen.New(gen.Options{Seed: 1})
		for len(w.Bytes()) < size {
			w.Turn()
		}
		text := w.Take()
		uri := fmt.Sprintf("file:///bench/scale-%d.jsonl", size)
		fr := didOpenFrame(uri, text)
		c := newBenchConn(b)
		defer c.close()
		runtime.GC()
		c0 := testutil.CPUTime()
		c.open(uri, fr)
		var f fig
		f.open = testutil.CPUTime() - c0
		// the graph and the outline first, before a hover (which builds the graph of a small
		// session on the spot) could leave a cached graph behind
		c0 = testutil.CPUTime()
		c.call(5001, methodWorkflowGraph, `{"textDocument":{"uri":"`+uri+`"}}`, nil)
		f.graph = testutil.CPUTime() - c0
		c0 = testutil.CPUTime()
		c.call(5000, "textDocument/documentSymbol", `{"textDocument":{"uri":"`+uri+`"}}`, nil)
		f.symbols = testutil.CPUTime() - c0
		line := c.lineCount(uri)
		var srv []time.Duration
		for i := 0; i < 200; i++ {
			_, s := c.appendRecord(uri, 2+i, line+i, w.Record())
			srv = append(srv, s)
		}
		f.append = median(srv)
		p := `{"textDocument":{"uri":"` + uri + `"},"position":{"line":` + strconv.Itoa(line/2) + `,"character":20}}`
		var hov, def []time.Duration
		for i := 0; i < 300; i++ {
			hov = append(hov, c.call(1000+2*i, "textDocument/hover", p, nil))
			def = append(def, c.call(1001+2*i, "textDocument/definition", p, nil))
		}
		f.hover, f.def = median(hov), median(def)
		return f
	}
	for i := 0; i < b.N; i++ {
		small, big := measure(10*mb), measure(100*mb)
		ratio := func(a, b time.Duration) float64 { return float64(b) / float64(max(a, 1)) }
		b.ReportMetric(ratio(small.open, big.open), "open-ratio")
		b.ReportMetric(ratio(small.append, big.append), "append-ratio")
		b.ReportMetric(ratio(small.hover, big.hover), "hover-ratio")
		b.ReportMetric(ratio(small.def, big.def), "definition-ratio")
		b.ReportMetric(ratio(small.symbols, big.symbols), "symbols-ratio")
		b.ReportMetric(ratio(small.graph, big.graph), "graph-ratio")
		b.ReportMetric(ms(big.open), "ms-cpu-open-100MB")
		b.ReportMetric(ms(big.symbols), "ms-cpu-symbols-100MB")
		b.ReportMetric(ms(big.graph), "ms-cpu-graph-100MB")
		b.ReportMetric(ms(big.append), "ms-append-100MB")
		b.ReportMetric(ms(big.hover), "ms-hover-100MB")
	}
}

// BenchmarkServeProcess runs the real binary (go build ./cmd/ccdag) over OS pipes: didOpen of a
// 100 MB session to its diagnostics, and the process's resident memory after it (VmRSS) and at
// its peak (VmHWM), over the document's size.
func BenchmarkServeProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "ccdag")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/ccdag").CombinedOutput(); err != nil {
		b.Skipf("SKIP: cannot build ccdag: %v\n%s", err, out)
	}
	text := genSession(100 * mb)
	uri := "file:///bench/process.jsonl"
	fr := didOpenFrame(uri, text)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "serve", "--log-level", "error")
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReaderSize(stdout, 1<<20)
		next := func() string {
			n := -1
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					b.Fatalf("read: %v", err)
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
			}
			body := make([]byte, n)
			io.ReadFull(r, body)
			return string(body)
		}
		stdin.Write(frame([]byte(initReq)))
		next()
		stdin.Write(frame([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)))
		t0 := time.Now()
		stdin.Write(fr)
		for !strings.Contains(next(), `"method":"textDocument/publishDiagnostics"`) {
		}
		d := time.Since(t0)
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		kb := func(key string) float64 {
			for _, l := range strings.Split(string(status), "\n") {
				if v, ok := strings.CutPrefix(l, key+":"); ok {
					n, _ := strconv.Atoi(strings.Fields(v)[0])
					return float64(n) * 1024
				}
			}
			return 0
		}
		b.ReportMetric(float64(d.Milliseconds()), "ms-to-diagnostics")
		b.ReportMetric(kb("VmRSS")/float64(len(text)), "rss/doc")
		b.ReportMetric(kb("VmHWM")/float64(len(text)), "peak-rss/doc")
		stdin.Write(frame([]byte(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)))
		next()
		stdin.Write(frame([]byte(`{"jsonrpc":"2.0","method":"exit"}`)))
		if err := cmd.Wait(); err != nil {
			b.Errorf("exit: %v", err)
		}
	}
}
