package lsp

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	json "github.com/goccy/go-json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/wsymbol"
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

// progress is one report of work done: begun, reported on (with a percentage, when the work's
// size is known as it goes), ended. A report the client cannot show does nothing.
type progress struct {
	srv   *server
	token json.RawMessage // nil: nothing is sent
	total int64
	last  atomic.Int64 // percentage last sent
}

// beginProgress starts a progress report for work on a session of size bytes (nothing for small
// work). Called from a session's worker (never from the read loop: it may wait for the client).
func (srv *server) beginProgress(token json.RawMessage, title string, size int64) *progress {
	p := &progress{srv: srv}
	if size < int64(srv.hooks.progressBytes) {
		return p
	}
	if len(token) == 0 || string(token) == "null" {
		if token = srv.createProgressToken(srv.ctx); token == nil {
			return p
		}
	}
	p.token = token
	srv.notify("$/progress", progressParams{Token: token, Value: protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin,
		Title: title, Message: fmt.Sprintf("%.1f MB", float64(size)/(1<<20))}})
	return p
}

// indexProgress starts a progress report with percentages for the workspace symbol index's first
// build of total bytes, with a token the server creates, when the client supports it.
func (srv *server) indexProgress(ctx context.Context, title string, total int64) wsymbol.Progress {
	p := &progress{srv: srv, total: total}
	token := srv.createProgressToken(ctx)
	if token == nil {
		return p
	}
	p.token = token
	pct := uint32(0)
	srv.notify("$/progress", progressParams{Token: token, Value: protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin,
		Title: title, Message: fmt.Sprintf("%.0f MB", float64(total)/(1<<20)), Percentage: pct}})
	return p
}

// Report says done bytes of the total are done, every 5 percent.
func (p *progress) Report(done int64) {
	if p.token == nil || p.total == 0 {
		return
	}
	p.reportMsg(done, fmt.Sprintf("%.0f of %.0f MB", float64(done)/(1<<20), float64(p.total)/(1<<20)))
}

// reportMsg says done bytes of the total are done, in words of its own, every 5 percent.
func (p *progress) reportMsg(done int64, msg string) {
	if p.token == nil || p.total == 0 {
		return
	}
	pct := min(100, done*100/p.total)
	if old := p.last.Load(); pct < old+5 || !p.last.CompareAndSwap(old, pct) {
		return
	}
	p.srv.notify("$/progress", progressParams{Token: p.token, Value: protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport,
		Percentage: uint32(pct), Message: msg}})
}

// End ends the report.
func (p *progress) End(msg string) {
	if p.token == nil {
		return
	}
	p.srv.notify("$/progress", progressParams{Token: p.token, Value: protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: msg}})
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
