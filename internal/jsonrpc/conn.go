package jsonrpc

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	json "github.com/goccy/go-json"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// The middleware chain, outermost first, all on the connection's read loop:
//
//	handle   — $/cancelRequest with numeric or string ids (the library's CancelHandler drops
//	           numeric ones); every call gets a context and a reply that can be sent once
//	recover  — a panic in a handler becomes an InternalError reply, never a closed connection
//	gate     — initialize first (ServerNotInitialized), shutdown then only exit (InvalidRequest),
//	           exit ends the server whatever its params
//	route    — the method table; unknown requests get MethodNotFound, unknown notifications are
//	           ignored
//
// Handlers never return errors to the library (an error closes the connection): they reply.

// Code is a JSON-RPC error code.
type Code = jsonrpc2.Code

// The error codes handlers answer with.
const (
	InvalidRequest       = jsonrpc2.InvalidRequest
	InvalidParams        = jsonrpc2.InvalidParams
	InternalError        = jsonrpc2.InternalError
	MethodNotFound       = jsonrpc2.MethodNotFound
	ServerNotInitialized = jsonrpc2.ServerNotInitialized
	RequestCancelled     = Code(-32800) // LSP's, absent from jsonrpc2 v0.10.0
)

// A Handler handles one request or notification. It runs on the read loop: it decodes, then
// answers at once or hands the request to work that answers later (Request.ReplyLater).
type Handler func(*Request)

// Methods is a method table. "initialize" must be in it; shutdown and exit are the Conn's own.
type Methods map[string]Handler

type lifecycleState int

const (
	stateNew lifecycleState = iota
	stateRunning
	stateShutdown
	stateExited
)

// Conn serves one client over a Stream.
type Conn struct {
	stream *Stream
	conn   jsonrpc2.Conn
	log    *zap.Logger
	ctx    context.Context

	mu       sync.Mutex
	state    lifecycleState
	exited   chan struct{}
	exitCode int
	inflight map[string]*flight
	methods  Methods
}

// NewConn returns a connection over st; Run serves it.
func NewConn(st *Stream, log *zap.Logger) *Conn {
	return &Conn{stream: st, conn: jsonrpc2.NewConn(st), log: log, exited: make(chan struct{}), inflight: map[string]*flight{}}
}

// Run serves methods until exit, the end of the stream or ctx's end, and returns the process's
// exit code: 0 after shutdown, 1 otherwise. Every request's context ends when Run returns.
func (c *Conn) Run(ctx context.Context, methods Methods) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.ctx, c.methods = ctx, methods
	c.conn.Go(ctx, c.handle)
	select {
	case <-c.exited:
	case <-c.conn.Done():
		if err := c.conn.Err(); err != nil && err != io.EOF {
			c.log.Info("connection ended", zap.Error(err))
		}
	case <-ctx.Done():
	}
	cancel()
	c.conn.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == stateExited {
		return c.exitCode
	}
	if c.state == stateShutdown {
		return 0
	}
	return 1
}

// Notify sends a notification to the client.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// Call sends a request to the client and decodes its result into result (unless nil).
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

// Request is one incoming message as a handler sees it: the params and the id the client sent,
// whatever the stream did to carry them through the library.
type Request struct {
	Method  string
	Params  []byte // the params, nil when absent or null
	Decoded any    // the params decoded by the stream's ParamsDecoder (a big didOpen), else nil

	ctx     context.Context
	call    bool
	id      string // the id as the client sent it, whole numbers as integers (flightKey)
	callID  jsonrpc2.ID
	once    sync.Once
	send    jsonrpc2.Replier
	conn    *Conn // nil for a call made by NewCall
	log     *zap.Logger
	later   atomic.Bool
	replied atomic.Bool
}

// NewCall returns a call that did not come over the wire: its one reply goes to reply. Tests
// run handlers and their adapters with it.
func NewCall(ctx context.Context, method string, params []byte, reply func(result any, err error)) *Request {
	r := &Request{Method: method, Params: params, ctx: ctx, call: true, log: zap.NewNop()}
	r.send = func(_ context.Context, result any, err error) error {
		reply(result, err)
		return nil
	}
	return r
}

// Context ends when the request is cancelled, answered, or the connection ends.
func (r *Request) Context() context.Context { return r.ctx }

// IsCall reports whether the message is a call (it has an id and wants a reply).
func (r *Request) IsCall() bool { return r.call }

// Replied reports whether the call was answered (or the message is a notification).
func (r *Request) Replied() bool { return !r.call || r.replied.Load() }

// ReplyLater marks a call as answered by work that runs after the handler returned. A call whose
// handler returns without replying or calling ReplyLater is answered with a null result.
func (r *Request) ReplyLater() { r.later.Store(true) }

// Encoded is a result already encoded as compact, valid JSON: the stream writes it as it is,
// where the library would re-encode it (a megabyte-sized graph, several milliseconds).
type Encoded []byte

// Reply answers a call once; later replies (after a cancellation answered it) are dropped.
// Notifications ignore it. err should be an *jsonrpc2.Error (see ReplyError); another error goes
// out as an InternalError.
func (r *Request) Reply(result any, err error) {
	if !r.call {
		return
	}
	sent := false
	r.once.Do(func() {
		sent = true
		r.replied.Store(true)
		if c := r.conn; c != nil {
			c.mu.Lock()
			if f := c.inflight[r.id]; f != nil && f.req == r {
				delete(c.inflight, r.id)
				f.cancel()
			}
			c.mu.Unlock()
			if raw, ok := result.(Encoded); ok && err == nil {
				if _, e := c.stream.writeResult(r.callID, raw); e != nil {
					r.log.Debug("reply not sent", zap.String("method", r.Method), zap.Error(e))
				}
				return
			}
		}
		if e := r.send(context.Background(), result, err); e != nil {
			r.log.Debug("reply not sent", zap.String("method", r.Method), zap.Error(e))
		}
	})
	if !sent {
		r.log.Debug("late reply dropped", zap.String("method", r.Method), zap.String("id", r.id))
	}
}

// ReplyError answers a call with an error.
func (r *Request) ReplyError(code Code, format string, args ...any) {
	r.Reply(nil, jsonrpc2.NewError(code, fmt.Sprintf(format, args...)))
}

// Decode reads the params into v, answering InvalidParams (calls) or logging (notifications) on
// failure. It reports whether v is usable.
func (r *Request) Decode(v any) bool {
	if r.Params == nil {
		r.ReplyError(InvalidParams, "%s needs params", r.Method)
		return false
	}
	if err := Unmarshal(r.Params, v); err != nil {
		if r.call {
			r.ReplyError(InvalidParams, "invalid params for %s: %v", r.Method, err)
		} else {
			r.log.Warn("invalid params", zap.String("method", r.Method), zap.Error(err))
		}
		return false
	}
	return true
}

// Unmarshal decodes JSON; a decoder panic on hostile input becomes an error.
func Unmarshal(b []byte, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("cannot decode: %v", p)
		}
	}()
	return json.Unmarshal(b, v)
}

// flight is a call in progress, for $/cancelRequest.
type flight struct {
	req    *Request
	cancel context.CancelFunc
}

// handle is the outermost handler.
func (c *Conn) handle(_ context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	r := &Request{Method: req.Method(), send: reply, conn: c, log: c.log, ctx: c.ctx}
	params, decoded := c.stream.blobs.take(req.Params())
	r.Decoded = decoded
	if len(params) > 0 && string(params) != "null" {
		r.Params = params
	}
	if call, ok := req.(*jsonrpc2.Call); ok {
		r.call = true
		r.callID = call.ID()
		r.id = flightKey(c.stream.idString(call.ID()))
		cctx, cancel := context.WithCancel(c.ctx)
		r.ctx = cctx
		c.mu.Lock()
		c.inflight[r.id] = &flight{req: r, cancel: cancel}
		c.mu.Unlock()
	}
	if r.Method == "$/cancelRequest" {
		c.cancelRequest(r.Params)
	} else {
		r.Guard(func() { c.gate(r) })
	}
	if r.call && !r.later.Load() && !r.replied.Load() {
		// A notification sent as a request (didOpen with an id, say): answer it, so that the
		// client does not wait forever.
		r.Reply(nil, nil)
	}
	return nil
}

// cancelRequest cancels a call in progress and answers it with RequestCancelled at once; the work,
// if it runs on, finds its context cancelled and its late reply is dropped.
func (c *Conn) cancelRequest(params []byte) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if Unmarshal(params, &p) != nil || len(p.ID) == 0 {
		return
	}
	key := flightKey(string(p.ID))
	c.mu.Lock()
	f := c.inflight[key]
	c.mu.Unlock()
	if f == nil {
		return // finished already, or never was
	}
	f.cancel()
	f.req.ReplyError(RequestCancelled, "request cancelled")
}

// flightKey is the key of a request id among the calls in flight: its JSON, with a whole number
// written as an integer, so that cancelling 7 or 7.0 finds the request sent as 7.0 or 7.
func flightKey(raw string) string {
	key := strings.TrimSpace(raw)
	if key != "" && key[0] != '"' {
		if n, err := strconv.ParseFloat(key, 64); err == nil && n == float64(int64(n)) {
			return strconv.FormatInt(int64(n), 10)
		}
	}
	return key
}

// Guard runs fn; a panic becomes an InternalError reply and a log entry with the stack. Handlers
// run guarded; work they start on another goroutine guards itself.
func (r *Request) Guard(fn func()) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("panic in handler", zap.String("method", r.Method), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
			r.ReplyError(InternalError, "internal error in %s: %v", r.Method, p)
		}
	}()
	fn()
}

// gate applies the lifecycle of docs/spec.md §3.
func (c *Conn) gate(r *Request) {
	c.mu.Lock()
	state := c.state
	c.mu.Unlock()
	switch {
	case r.Method == "exit":
		c.exit()
		return
	case state == stateShutdown || state == stateExited:
		r.ReplyError(InvalidRequest, "the server is shut down: only exit is accepted")
		return
	case r.Method == "initialize":
		if state != stateNew {
			r.ReplyError(InvalidRequest, "initialize was already received")
			return
		}
		c.methods["initialize"](r)
		c.mu.Lock()
		c.state = stateRunning
		c.mu.Unlock()
		return
	case state == stateNew:
		r.ReplyError(ServerNotInitialized, "the server is not initialized: send initialize first")
		return
	case r.Method == "shutdown":
		c.mu.Lock()
		c.state = stateShutdown
		c.mu.Unlock()
		r.Reply(nil, nil)
		return
	}
	h, ok := c.methods[r.Method]
	if !ok {
		if r.call {
			r.ReplyError(MethodNotFound, "method not found: %s", r.Method)
		}
		return
	}
	h(r)
}

func (c *Conn) exit() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == stateExited {
		return
	}
	c.exitCode = 1
	if c.state == stateShutdown {
		c.exitCode = 0
	}
	c.state = stateExited
	close(c.exited)
}
