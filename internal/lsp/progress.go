package lsp

import (
	"context"
	"fmt"
	"time"

	json "github.com/goccy/go-json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Work done progress ($/progress) for work on large sessions: with the request's workDoneToken
// when it has one, else with a token the server creates (window/workDoneProgress/create) when the
// client supports it. Small work reports nothing.

// progressParams is local: protocol.ProgressToken marshals only through a pointer (a
// ProgressParams or WorkDoneProgressCreateParams value writes "token":{}) and holds no number
// outside int32; the client's token goes back as it sent it.
type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value any             `json:"value,omitempty"`
}

// beginProgress starts a progress report for work of size bytes and returns the function that
// ends it. Called from a session's worker (never from the read loop: it may wait for the client).
func (srv *server) beginProgress(token json.RawMessage, title string, size int64) (end func(msg string)) {
	noop := func(string) {}
	if size < int64(srv.hooks.progressBytes) {
		return noop
	}
	if len(token) == 0 || string(token) == "null" {
		if token = srv.createProgressToken(srv.ctx); token == nil {
			return noop
		}
	}
	srv.notify("$/progress", progressParams{Token: token, Value: protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin,
		Title: title, Message: fmt.Sprintf("%.1f MB", float64(size)/(1<<20))}})
	return func(msg string) {
		srv.notify("$/progress", progressParams{Token: token, Value: protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: msg}})
	}
}

// createProgressToken asks the client for a progress token of the server's making
// (window/workDoneProgress/create); nil when the client cannot show progress or refuses.
func (srv *server) createProgressToken(ctx context.Context) json.RawMessage {
	srv.mu.Lock()
	ok := srv.caps.workDoneProgress
	srv.tokenSeq++
	seq := srv.tokenSeq
	srv.mu.Unlock()
	if !ok {
		return nil
	}
	token, _ := json.Marshal(fmt.Sprintf("ccdag-%d", seq))
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.conn.Call(ctx, "window/workDoneProgress/create", progressParams{Token: token}, nil); err != nil {
		srv.log.Debug("progress token refused", zap.Error(err))
		return nil
	}
	return token
}
