package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/ccdag/ccdag/internal/jsonrpc"
)

// raw is the tests' one raw-wire client (wire_test.go, abuse_test.go): bytes in, bytes out, an
// in-memory server on the other end of a net.Pipe, messages compared as JSON values (so null is
// not [], a missing key is not a zero value; "*" in an expected message matches any string).
type raw struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
	in   chan string // with a drain (newWire): bodies read from the server, in order
	code chan int
	srv  *server
}

// newRaw starts a server and a client that reads its output only when asked (next).
func newRaw(t *testing.T, h hooks) *raw {
	t.Helper()
	a, b := net.Pipe()
	c := &raw{t: t, conn: b, r: bufio.NewReader(b), code: make(chan int, 1)}
	if h.log == nil {
		h.log = zap.NewNop()
		if os.Getenv("LSP_TEST_LOG") != "" {
			h.log = zaptest.NewLogger(t)
		}
	}
	ready := make(chan struct{})
	h.onServer = func(s *server) { c.srv = s; close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.code <- serve(ctx, jsonrpc.NewStream(a), Options{}, h) }()
	<-ready
	t.Cleanup(func() { cancel(); a.Close(); b.Close() })
	return c
}

// newWire is newRaw with a reader that drains the server's output as it comes, as a real client
// does (net.Pipe is synchronous: a server blocked writing a notification nobody reads would stop
// its work).
func newWire(t *testing.T, h hooks) *raw {
	c := newRaw(t, h)
	c.in = make(chan string, 1<<16)
	go c.read(c.r)
	return c
}

// newAbuse is newWire, initialized when asked.
func newAbuse(t *testing.T, h hooks, initialize bool) *raw {
	t.Helper()
	c := newWire(t, h)
	if initialize {
		c.frame(initReq)
		c.reply()
		c.frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	}
	return c
}

func initRaw(t *testing.T, h hooks) *raw { return newAbuse(t, h, true) }

// noLength stands in c.in for a message the server wrote without a Content-Length header.
const noLength = `{"ccdag-test":"a message without Content-Length"}`

// read drains the server's output into c.in.
func (c *raw) read(r *bufio.Reader) {
	defer close(c.in)
	for {
		buf, err := readFrame(r)
		if err == errNoLength {
			c.in <- noLength
			continue
		}
		if err != nil {
			return
		}
		c.in <- string(buf)
	}
}

func (c *raw) frame(body string) {
	c.t.Helper()
	c.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

func (c *raw) write(s string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(waitLimit))
	if _, err := io.WriteString(c.conn, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next returns the next message body from the server; the test fails when the server has closed.
func (c *raw) next() string {
	c.t.Helper()
	m, ok := c.nextOK()
	if !ok {
		c.t.Fatal("the server closed the connection")
	}
	return m
}

// nextOK returns the next message body from the server; ok is false when the server has closed.
func (c *raw) nextOK() (string, bool) {
	c.t.Helper()
	if c.in == nil {
		c.conn.SetReadDeadline(time.Now().Add(waitLimit))
		n := -1
		for {
			line, err := c.r.ReadString('\n')
			if err != nil {
				c.t.Fatalf("read header: %v", err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		buf := make([]byte, max(n, 0))
		if _, err := io.ReadFull(c.r, buf); err != nil {
			c.t.Fatalf("read body: %v", err)
		}
		return string(buf), true
	}
	select {
	case m, ok := <-c.in:
		return m, ok
	case <-time.After(waitLimit):
		c.t.Fatal("no message from the server")
	}
	return "", false
}

// reply returns the next reply (skipping the server's notifications and requests).
func (c *raw) reply() string {
	c.t.Helper()
	for {
		m := c.next()
		var probe map[string]json.RawMessage
		json.Unmarshal([]byte(m), &probe)
		if _, isReq := probe["method"]; !isReq {
			return m
		}
	}
}

func (c *raw) expect(want string) {
	c.t.Helper()
	got := c.reply()
	if !jsonMatch(c.t, got, want) {
		c.t.Fatalf("got  %.500s\nwant %s", got, want)
	}
}

func (c *raw) exit() int {
	c.t.Helper()
	select {
	case code := <-c.code:
		return code
	case <-time.After(waitLimit):
		c.t.Fatal("the server did not end")
	}
	return -1
}

// alive checks the server still answers: an unknown method gets MethodNotFound (error replies
// for earlier junk may come first).
func (c *raw) alive(id int) []string {
	c.t.Helper()
	c.frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ccdag/ping"}`, id))
	var before []string
	for {
		got := c.reply()
		if strings.Contains(got, fmt.Sprintf(`"id":%d,`, id)) {
			if !jsonMatch(c.t, got, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"*"}}`, id)) {
				c.t.Fatalf("server not answering after abuse: %s", got)
			}
			return before
		}
		before = append(before, got)
	}
}

// answeredWithin collects replies until the ping with this id is answered or d passes.
func (c *raw) answeredWithin(id int, d time.Duration) (before []string, ok bool) {
	c.t.Helper()
	c.frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ccdag/ping"}`, id))
	deadline := time.After(d)
	for {
		select {
		case m, open := <-c.in:
			if !open {
				return before, false
			}
			if strings.Contains(m, fmt.Sprintf(`"id":%d,`, id)) {
				return before, true
			}
			before = append(before, m)
		case <-deadline:
			return before, false
		}
	}
}

// jsonMatch compares JSON values; "*" in want matches any string.
func jsonMatch(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("not JSON: %.300s", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %s", want)
	}
	return match(g, w)
}

func match(g, w any) bool {
	switch wv := w.(type) {
	case string:
		if wv == "*" {
			_, ok := g.(string)
			return ok
		}
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok || len(gv) != len(wv) {
			return false
		}
		for k, v := range wv {
			x, ok := gv[k]
			if !ok || !match(x, v) {
				return false
			}
		}
		return true
	case []any:
		gv, ok := g.([]any)
		if !ok || len(gv) != len(wv) {
			return false
		}
		for i := range wv {
			if !match(gv[i], wv[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(g, w)
}
