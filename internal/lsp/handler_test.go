package lsp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
)

// The adapter of handler.go, run without the wire: a call made by jsonrpc.NewCall, its replies
// counted.

type replies struct {
	mu   sync.Mutex
	got  []reply
	done chan struct{}
}

type reply struct {
	result any
	err    *jsonrpc2.Error
}

func newReplies() *replies { return &replies{done: make(chan struct{}, 8)} }

func (rs *replies) add(result any, err error) {
	rs.mu.Lock()
	var e *jsonrpc2.Error
	if err != nil && !errors.As(err, &e) {
		e = &jsonrpc2.Error{Code: -1, Message: "not a jsonrpc2.Error: " + err.Error()}
	}
	rs.got = append(rs.got, reply{result, e})
	rs.mu.Unlock()
	rs.done <- struct{}{}
}

// one waits for the call's reply and returns it; it fails on none, or on more than one.
func (rs *replies) one(t *testing.T) reply {
	t.Helper()
	select {
	case <-rs.done:
	case <-time.After(10 * time.Second):
		t.Fatal("no reply")
	}
	time.Sleep(10 * time.Millisecond) // a second reply, if there were one, has come by now
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.got) != 1 {
		t.Fatalf("%d replies, want 1: %+v", len(rs.got), rs.got)
	}
	return rs.got[0]
}

// adapterServer is a server with one open document, untitled:a, holding text.
func adapterServer(t *testing.T, text string) *server {
	t.Helper()
	srv := &server{log: zap.NewNop(), ctx: context.Background(), docs: map[string]*document{}, sessions: map[string]*sess{}}
	ss := &sess{srv: srv, key: "uri:untitled:a", docs: map[string]*document{}}
	ss.session = layout.SessionOf(session.NewFile("untitled:a", []byte(text)))
	d := &document{uri: "untitled:a", path: "untitled:a", sess: ss, opened: true}
	srv.docs[d.uri], ss.docs[d.path], srv.sessions[ss.key] = d, d, ss
	return srv
}

// call runs h for one call of method with params, and returns its one reply.
func call(t *testing.T, srv *server, h handler, params string) reply {
	t.Helper()
	return callCtx(t, context.Background(), srv, h, params)
}

func callCtx(t *testing.T, ctx context.Context, srv *server, h handler, params string) reply {
	t.Helper()
	rs := newReplies()
	var raw []byte
	if params != "" {
		raw = []byte(params)
	}
	h(srv, srv.request(jsonrpc.NewCall(ctx, "test/method", raw, rs.add)))
	return rs.one(t)
}

func wantError(t *testing.T, got reply, code jsonrpc.Code, msg string) {
	t.Helper()
	if got.err == nil || got.err.Code != code || !strings.Contains(got.err.Message, msg) {
		t.Fatalf("reply %+v (error %+v), want error %d with %q", got.result, got.err, code, msg)
	}
}

const docA = `{"textDocument":{"uri":"untitled:a"}}`

func TestAdapterPanic(t *testing.T) {
	srv := adapterServer(t, "{}\n")
	boom := func(context.Context, *server, docRequest) (int, error) { panic("boom") }
	wantError(t, call(t, srv, decoded(now(boom)), docA), jsonrpc.InternalError, "internal error in test/method: boom")
	wantError(t, call(t, srv, decoded(apart(boom)), docA), jsonrpc.InternalError, "boom")
	onWorker := func(context.Context, *sess, *session.File, docRequest) (int, error) { panic("boom") }
	wantError(t, call(t, srv, decoded(onDoc(onWorker)), docA), jsonrpc.InternalError, "internal error in test/method: boom")
	// The session's worker goes on with the next job.
	ok := func(_ context.Context, _ *sess, f *session.File, _ docRequest) (int, error) {
		return f.LineCount(), nil
	}
	if got := call(t, srv, decoded(onDoc(ok)), docA); got.err != nil || got.result != 1 {
		t.Fatalf("after a panic: %+v, want 1", got)
	}
}

func TestAdapterError(t *testing.T) {
	srv := adapterServer(t, "{}\n")
	plain := func(context.Context, *server, docRequest) (int, error) { return 7, errors.New("it broke") }
	wantError(t, call(t, srv, decoded(now(plain)), docA), jsonrpc.InternalError, "it broke")
	coded := func(context.Context, *sess, *session.File, docRequest) (int, error) {
		return 0, invalidParams("no %s", "way")
	}
	got := call(t, srv, decoded(onDoc(coded)), docA)
	wantError(t, got, jsonrpc.InvalidParams, "no way")
	if got.result != nil {
		t.Fatalf("an error reply carries the result %v", got.result)
	}
	cancelled := func(ctx context.Context, _ *server, _ docRequest) (int, error) { return 0, context.Canceled }
	wantError(t, call(t, srv, decoded(apart(cancelled)), docA), jsonrpc.RequestCancelled, "request cancelled")
}

func TestAdapterReturnsNothing(t *testing.T) {
	srv := adapterServer(t, "{}\n")
	nothing := func(context.Context, *sess, *session.File, docRequest) ([]int, error) { return nil, nil }
	got := call(t, srv, decoded(onDoc(nothing)), docA)
	if got.err != nil || got.result.([]int) != nil {
		t.Fatalf("got %+v, want the null result", got)
	}
	// Work on the session's worker that ends without replying is answered, not left waiting.
	silent := func(srv *server, r *request, _ docRequest) error {
		srv.doc("untitled:a").sess.do(r, func() {})
		return nil
	}
	wantError(t, call(t, srv, decoded(silent), docA), jsonrpc.InternalError, "internal error in test/method: no reply")
}

func TestAdapterParams(t *testing.T) {
	srv := adapterServer(t, "{}\n")
	echo := func(_ context.Context, _ *server, p docRequest) (string, error) { return p.docURI(), nil }
	wantError(t, call(t, srv, decoded(now(echo)), `{"textDocument":7}`), jsonrpc.InvalidParams, "invalid params for test/method")
	wantError(t, call(t, srv, decoded(now(echo)), ""), jsonrpc.InvalidParams, "test/method needs params")
	if got := call(t, srv, decoded(now(echo)), docA); got.result != "untitled:a" {
		t.Fatalf("got %+v", got)
	}
	raw := func(_ context.Context, _ *server, p rawParams) (bool, error) { return p == nil, nil }
	if got := call(t, srv, decoded(now(raw)), ""); got.result != true {
		t.Fatalf("raw params: got %+v, want nil params accepted", got)
	}
	never := func(context.Context, *sess, *session.File, docRequest) (int, error) {
		t.Error("a handler ran for a document that is not open")
		return 0, nil
	}
	wantError(t, call(t, srv, decoded(onDoc(never)), `{"textDocument":{"uri":"untitled:b"}}`), jsonrpc.InvalidParams, "document is not open: untitled:b")
	needs := needsURI(onSession(func(context.Context, *sess, *document, docRequest) (int, error) { return 1, nil },
		func(context.Context, *server, docRequest) (int, error) { return 2, nil }))
	wantError(t, call(t, srv, decoded(needs), `{}`), jsonrpc.InvalidParams, "test/method needs textDocument.uri")
	if got := call(t, srv, decoded(needs), docA); got.result != 1 {
		t.Fatalf("open document: got %+v, want its session's answer", got)
	}
	if got := call(t, srv, decoded(needs), `{"textDocument":{"uri":"file:///x.jsonl"}}`); got.result != 2 {
		t.Fatalf("closed document: got %+v, want the answer from disk", got)
	}
}

func TestAdapterCancelledBeforeItRuns(t *testing.T) {
	srv := adapterServer(t, "{}\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	never := func(context.Context, *sess, *session.File, docRequest) (int, error) {
		t.Error("a cancelled request ran")
		return 0, nil
	}
	wantError(t, callCtx(t, ctx, srv, decoded(onDoc(never)), docA), jsonrpc.RequestCancelled, "request cancelled")
}
