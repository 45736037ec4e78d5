package lsp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/session"
)

// How a request flows (ARCHITECTURE.md): the transport's read loop (jsonrpc.Conn) frames and gates
// a message and looks its method up in the table (routes, lifecycle.go). An entry there is a typed
// handler — func(ctx, where it runs, P) (R, error) — wrapped by this file's one adapter: decoded
// reads the params into P, then a placement runs the handler where it must run:
//
//	now       on the read loop, for answers that need nothing but the server's state
//	onDoc     on the worker of the document's session, after the edits sent before it
//	onSession the same for an open document; for a log that is not open, apart, from disk
//	apart     on a goroutine of its own (no session to wait for)
//
// and the adapter replies exactly once with what the handler returned: its result, its error (a
// *jsonrpc2.Error as it is, a context's end as RequestCancelled, another error as InternalError),
// InternalError when it panics, RequestCancelled when the request was cancelled before it ran.
// Work that ends without a reply (a bug) is answered with InternalError rather than leaving the
// client waiting. Features never reply by hand.

// handler is an entry of the method table.
type handler func(*server, *request)

// A route is what is done with a request once its params are decoded: it places the handler's
// work (which then replies) and returns nil, or returns the error to reply at once.
type route[P any] func(srv *server, r *request, p P) error

// rawParams are params as the client sent them, nil when absent: a handler that takes them
// decodes them its own way (initialize tolerates params it cannot read).
type rawParams []byte

// aboutDoc are the params of a request about one document.
type aboutDoc interface{ docURI() string }

// decoded is the adapter: it decodes a request's params into P (answering InvalidParams, or
// logging for a notification, when they do not decode) and hands them to rt.
func decoded[P any](rt route[P]) handler {
	return func(srv *server, r *request) {
		r.Guard(func() {
			var p P
			if raw, ok := any(&p).(*rawParams); ok {
				*raw = rawParams(r.params)
			} else if !r.decode(&p) {
				return
			}
			if err := rt(srv, r, p); err != nil {
				r.reply(nil, rpcError(err))
			}
		})
	}
}

// answer replies to r with what h returns.
func answer[R any](r *request, h func() (R, error)) {
	res, err := h()
	if err != nil {
		r.reply(nil, rpcError(err))
		return
	}
	r.reply(res, nil)
}

// rpcError is the error a handler's error goes out as.
func rpcError(err error) error {
	var e *jsonrpc2.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.Canceled):
		return jsonrpc2.NewError(jsonrpc.RequestCancelled, "request cancelled")
	}
	return jsonrpc2.NewError(jsonrpc.InternalError, err.Error())
}

// invalidParams is the error of a request whose params name nothing the server can answer about.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc.InvalidParams, fmt.Sprintf(format, args...))
}

func notOpen(uri string) error { return invalidParams("document is not open: %s", uri) }

// now runs h on the read loop: it must not wait (for a session, the disk or the client).
func now[P, R any](h func(ctx context.Context, srv *server, p P) (R, error)) route[P] {
	return func(srv *server, r *request, p P) error {
		answer(r, func() (R, error) { return h(r.ctx, srv, p) })
		return nil
	}
}

// apart runs h on a goroutine of its own.
func apart[P, R any](h func(ctx context.Context, srv *server, p P) (R, error)) route[P] {
	return func(srv *server, r *request, p P) error {
		r.replyLater()
		go settle(r, func() { answer(r, func() (R, error) { return h(r.ctx, srv, p) }) })
		return nil
	}
}

// onDoc runs h on the worker of the session of the document p names, in order after the edits
// before it, with the session's file of that document.
func onDoc[P aboutDoc, R any](h func(ctx context.Context, ss *sess, f *session.File, p P) (R, error)) route[P] {
	return func(srv *server, r *request, p P) error {
		d := srv.doc(p.docURI())
		if d == nil {
			return notOpen(p.docURI())
		}
		ss := d.sess
		ss.do(r, func() {
			answer(r, func() (R, error) {
				f, err := ss.file(d)
				if err != nil {
					var zero R
					return zero, err
				}
				return h(r.ctx, ss, f, p)
			})
		})
		return nil
	}
}

// onSession runs open on the worker of the session of the document p names when it is open, and
// closed apart when it is not (closed reads the log from disk: loadClosed).
func onSession[P aboutDoc, R any](open func(ctx context.Context, ss *sess, d *document, p P) (R, error),
	closed func(ctx context.Context, srv *server, p P) (R, error)) route[P] {
	return func(srv *server, r *request, p P) error {
		d := srv.doc(p.docURI())
		if d == nil {
			return apart(closed)(srv, r, p)
		}
		ss := d.sess
		ss.do(r, func() {
			answer(r, func() (R, error) {
				if ss.session == nil {
					var zero R
					return zero, notOpen(p.docURI())
				}
				return open(r.ctx, ss, d, p)
			})
		})
		return nil
	}
}

// needsURI answers a request that names no document with InvalidParams before rt sees it.
func needsURI[P aboutDoc](rt route[P]) route[P] {
	return func(srv *server, r *request, p P) error {
		if p.docURI() == "" {
			return invalidParams("%s needs textDocument.uri", r.method)
		}
		return rt(srv, r, p)
	}
}

// notice runs a notification's handler on the read loop (a notification gets no reply).
func notice[P any](h func(srv *server, p P)) route[P] {
	return func(srv *server, _ *request, p P) error {
		h(srv, p)
		return nil
	}
}

// ignore is the handler of the notifications the server has nothing to do for.
func ignore(*server, *request) {}

// settle runs the job of a call off the read loop (r was marked ReplyLater) and makes sure the
// call is answered once: RequestCancelled when it was cancelled before the job ran,
// InternalError when the job panics or ends without replying.
func settle(r *request, job func(), logFields ...zap.Field) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("panic in handler", append(logFields, zap.String("method", r.method), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))...)
			r.replyErr(jsonrpc.InternalError, "internal error in %s: %v", r.method, p)
		}
		if !r.Replied() {
			r.log.Error("request finished without a reply", zap.String("method", r.method))
			r.replyErr(jsonrpc.InternalError, "internal error in %s: no reply", r.method)
		}
	}()
	if r.ctx.Err() != nil {
		r.replyErr(jsonrpc.RequestCancelled, "request cancelled")
		return
	}
	job()
}
