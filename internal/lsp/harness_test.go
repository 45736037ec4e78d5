package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/ccdag/ccdag/internal/jsonrpc"
)

// The fake client: an in-memory server on one end of a net.Pipe, the library's own stream and
// connection on the other (the buf pattern). It records every notification and answers the
// server's requests; tests wait for conditions on what it recorded (never sleep).

const waitLimit = 20 * time.Second

type note struct {
	method string
	params json.RawMessage
}

type client struct {
	t    testing.TB
	conn jsonrpc2.Conn
	srv  *server
	code chan int

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every notification
	notes    []note
	diags    map[string][]publishParams
	settings json.RawMessage // answer to workspace/configuration
	calls    []string        // methods the server called on the client
}

type clientOpt struct {
	caps  any // client capabilities (default: markdown hover, hierarchical symbols)
	init  any // initializationOptions
	hooks hooks
	skip  bool   // do not initialize
	root  string // the workspace folder (rootUri and workspaceFolders); "" for none
	opts  Options
}

func newClient(t testing.TB, o clientOpt) *client {
	t.Helper()
	a, b := net.Pipe()
	c := &client{t: t, code: make(chan int, 1), changed: make(chan struct{}), diags: map[string][]publishParams{}}
	h := o.hooks
	if h.log == nil {
		if tt, ok := t.(*testing.T); ok && os.Getenv("LSP_TEST_LOG") != "" {
			h.log = zaptest.NewLogger(tt)
		} else {
			h.log = zap.NewNop()
		}
	}
	var srvOnce sync.Once
	srvReady := make(chan struct{})
	h.onServer = func(s *server) { srvOnce.Do(func() { c.srv = s; close(srvReady) }) }
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.code <- serve(ctx, jsonrpc.NewStream(a), o.opts, h) }()
	<-srvReady
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	c.conn.Go(ctx, c.handle)
	t.Cleanup(func() {
		cancel()
		c.conn.Close()
		b.Close()
		a.Close()
	})
	if !o.skip {
		caps := o.caps
		if caps == nil {
			caps = map[string]any{"textDocument": map[string]any{
				"hover":          map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true},
			}}
		}
		var res json.RawMessage
		params := map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps, "initializationOptions": o.init}
		if o.root != "" {
			params["rootUri"] = pathToURI(o.root)
			params["workspaceFolders"] = []map[string]any{{"uri": pathToURI(o.root), "name": filepath.Base(o.root)}}
		}
		c.call("initialize", params, &res)
		c.notify("initialized", map[string]any{})
	}
	return c
}

func (c *client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	c.mu.Lock()
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		c.calls = append(c.calls, req.Method())
	}
	c.notes = append(c.notes, note{req.Method(), json.RawMessage(req.Params())})
	if req.Method() == "textDocument/publishDiagnostics" {
		var p publishParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			c.t.Errorf("publishDiagnostics does not decode: %v", err)
		}
		c.diags[p.URI] = append(c.diags[p.URI], p)
	}
	settings := c.settings
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	// reply's error is not returned: jsonrpc2 v0.10.0 panics when a connection fails a second time
	// with an error of another type (sync/atomic: store of inconsistently typed value).
	switch req.Method() {
	case "workspace/configuration":
		if settings == nil {
			_ = reply(ctx, []any{nil}, nil)
			return nil
		}
		_ = reply(ctx, []json.RawMessage{settings}, nil)
		return nil
	}
	_ = reply(ctx, nil, nil)
	return nil
}

// await waits until cond (called under the client's lock) holds.
func (c *client) await(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok := cond()
		ch := c.changed
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

// diagsAt waits for diagnostics of uri at version v and returns them.
func (c *client) diagsAt(uri string, v int32) []diagnostic {
	c.t.Helper()
	var got []diagnostic
	c.await(fmt.Sprintf("diagnostics of %s at version %d", uri, v), func() bool {
		for _, p := range c.diags[uri] {
			if p.Version != nil && *p.Version == v {
				got = p.Diagnostics
				return true
			}
		}
		return false
	})
	return got
}

// lastDiags waits for n publications for uri in all and returns the last.
func (c *client) publications(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.diags[uri])
}

func (c *client) call(method string, params, result any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	if ctx.Err() != nil {
		c.t.Fatalf("%s: no answer", method)
	}
	return err
}

func (c *client) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

func (c *client) open(uri, text string, version int32) {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "jsonl", "version": version, "text": text}})
}

type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type rng struct {
	Start pos `json:"start"`
	End   pos `json:"end"`
}

func (c *client) change(uri string, version int32, changes ...map[string]any) {
	c.t.Helper()
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes})
}

func edit(r rng, text string) map[string]any { return map[string]any{"range": r, "text": text} }

func at(line, char int) pos { return pos{line, char} }

func tdp(uri string, p pos) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": p}
}

// hoverText asks for a hover and returns its markdown ("" for none).
func (c *client) hoverText(uri string, p pos) string {
	c.t.Helper()
	var h *hoverResult
	c.mustCall("textDocument/hover", tdp(uri, p), &h)
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

func (c *client) definition(uri string, p pos) []location {
	c.t.Helper()
	var locs []location
	c.mustCall("textDocument/definition", tdp(uri, p), &locs)
	return locs
}

// fixture returns the absolute path and URI of a file under testdata, and its text.
func fixture(t testing.TB, rel string) (path, uri, text string) {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, pathToURI(p), string(b)
}

// valuePos returns the position (UTF-16) of the first character of a JSON string value
// "key":"value" on line l of text.
func valuePos(t testing.TB, text string, l int, key, value string) pos {
	t.Helper()
	line := strings.Split(text, "\n")[l]
	needle := fmt.Sprintf("%q:%q", key, value)
	i := strings.Index(line, needle)
	if i < 0 {
		t.Fatalf("line %d has no %s", l, needle)
	}
	return pos{l, utf16Len(line[:i+len(key)+4])}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// lineOf returns the first line of text holding needle.
func lineOf(t testing.TB, text, needle string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, needle) {
			return i
		}
	}
	t.Fatalf("no line holds %s", needle)
	return -1
}

// errNoLength is readFrame's error for a frame whose headers carry no usable Content-Length.
var errNoLength = errors.New("a frame without Content-Length")

// readFrame reads one frame the server wrote: its headers, then its body.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.Atoi(v); err != nil {
				n = -1
			}
		}
	}
	if n < 0 {
		return nil, errNoLength
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}
