package lsp

import (
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
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

type lifecycleState int

const (
	stateNew lifecycleState = iota
	stateRunning
	stateShutdown
	stateExited
)

// request is one incoming message as the handlers see it.
type request struct {
	ctx     context.Context
	method  string
	params  []byte // the real params (big ones resolved), nil when absent
	pre     any    // params the stream decoded already (a big didOpen), nil when none
	call    bool
	id      string // the id as the client sent it, whole numbers as integers (calls only; flightKey)
	callID  jsonrpc2.ID
	once    sync.Once
	send    jsonrpc2.Replier
	srv     *server
	async   atomic.Bool // handed to work that replies later
	replied atomic.Bool
}

// reply answers a call once; later replies (after a cancellation answered it) are dropped.
// Notifications ignore it.
func (r *request) reply(result any, err error) {
	if !r.call {
		return
	}
	sent := false
	r.once.Do(func() {
		sent = true
		r.replied.Store(true)
		r.srv.mu.Lock()
		if f := r.srv.inflight[r.id]; f != nil && f.req == r {
			delete(r.srv.inflight, r.id)
			f.cancel()
		}
		r.srv.mu.Unlock()
		if raw, ok := result.(encoded); ok && err == nil {
			if st := r.srv.stream; st != nil {
				if _, e := st.writeResult(r.callID, raw); e != nil {
					r.srv.log.Debug("reply not sent", zap.String("method", r.method), zap.Error(e))
				}
				return
			}
			result = json.RawMessage(raw)
		}
		if e := r.send(context.Background(), result, err); e != nil {
			r.srv.log.Debug("reply not sent", zap.String("method", r.method), zap.Error(e))
		}
	})
	if !sent {
		r.srv.log.Debug("late reply dropped", zap.String("method", r.method), zap.String("id", r.id))
	}
}

// encoded is a result already encoded as compact, valid JSON: the stream writes it as it is,
// where the library would re-encode it (a megabyte-sized graph, several milliseconds).
type encoded []byte

func (r *request) replyErr(code jsonrpc2.Code, format string, args ...any) {
	r.reply(nil, jsonrpc2.NewError(code, fmt.Sprintf(format, args...)))
}

// flight is a call in progress, for $/cancelRequest.
type flight struct {
	req    *request
	cancel context.CancelFunc
}

const codeRequestCancelled jsonrpc2.Code = -32800

func (srv *server) idKey(id jsonrpc2.ID) string {
	if srv.stream != nil {
		return srv.stream.idString(id)
	}
	b, _ := json.Marshal(&id)
	return string(b)
}

// handle is the outermost handler.
func (srv *server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	r := &request{method: req.Method(), send: reply, srv: srv, ctx: srv.ctx}
	var params []byte = req.Params()
	if srv.stream != nil {
		params, r.pre = srv.stream.blobs.take(params)
	}
	if len(params) > 0 && string(params) != "null" {
		r.params = params
	}
	if call, ok := req.(*jsonrpc2.Call); ok {
		r.call = true
		r.callID = call.ID()
		r.id = flightKey(srv.idKey(call.ID()))
		cctx, cancel := context.WithCancel(srv.ctx)
		r.ctx = cctx
		srv.mu.Lock()
		srv.inflight[r.id] = &flight{req: r, cancel: cancel}
		srv.mu.Unlock()
	}
	if r.method == "$/cancelRequest" {
		srv.cancelRequest(r.params)
	} else {
		srv.recover(r, func() { srv.gate(r) })
	}
	if r.call && !r.async.Load() && !r.replied.Load() {
		// A notification sent as a request (didOpen with an id, say): answer it, so that the
		// client does not wait forever.
		r.reply(nil, nil)
	}
	return nil
}

// cancelRequest cancels a call in progress and answers it with RequestCancelled at once; the work,
// if it runs on, finds its context cancelled and its late reply is dropped.
func (srv *server) cancelRequest(params []byte) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.ID) == 0 {
		return
	}
	key := flightKey(string(p.ID))
	srv.mu.Lock()
	f := srv.inflight[key]
	srv.mu.Unlock()
	if f == nil {
		return // finished already, or never was
	}
	f.cancel()
	f.req.replyErr(codeRequestCancelled, "request cancelled")
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

// recover runs fn; a panic becomes an InternalError reply and a log entry with the stack.
func (srv *server) recover(r *request, fn func()) {
	defer func() {
		if p := recover(); p != nil {
			srv.log.Error("panic in handler", zap.String("method", r.method), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
			r.replyErr(jsonrpc2.InternalError, "internal error in %s: %v", r.method, p)
		}
	}()
	fn()
}

// gate applies the lifecycle of SPEC §3.
func (srv *server) gate(r *request) {
	srv.mu.Lock()
	state := srv.state
	srv.mu.Unlock()
	switch {
	case r.method == "exit":
		srv.exit()
		return
	case state == stateShutdown || state == stateExited:
		r.replyErr(jsonrpc2.InvalidRequest, "the server is shut down: only exit is accepted")
		return
	case r.method == "initialize":
		if state != stateNew {
			r.replyErr(jsonrpc2.InvalidRequest, "initialize was already received")
			return
		}
		srv.initialize(r)
		return
	case state == stateNew:
		r.replyErr(jsonrpc2.ServerNotInitialized, "the server is not initialized: send initialize first")
		return
	case r.method == "shutdown":
		srv.mu.Lock()
		srv.state = stateShutdown
		srv.mu.Unlock()
		r.reply(nil, nil)
		return
	}
	h, ok := routes[r.method]
	if !ok {
		if r.call {
			r.replyErr(jsonrpc2.MethodNotFound, "method not found: %s", r.method)
		}
		return
	}
	h(srv, r)
}

func (srv *server) exit() {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.state == stateExited {
		return
	}
	srv.exitCode = 1
	if srv.state == stateShutdown {
		srv.exitCode = 0
	}
	srv.state = stateExited
	close(srv.exited)
}

// routes is the method table. Handlers run on the read loop: they decode, then answer at once or
// queue work on a session.
var routes map[string]func(*server, *request)

func init() {
	routes = map[string]func(*server, *request){
		"initialized":                         (*server).initialized,
		"textDocument/didOpen":                (*server).didOpen,
		"textDocument/didChange":              (*server).didChange,
		"textDocument/didClose":               (*server).didClose,
		"textDocument/didSave":                func(*server, *request) {},
		"textDocument/willSave":               func(*server, *request) {},
		"textDocument/hover":                  (*server).hover,
		"textDocument/definition":             (*server).definition,
		"textDocument/references":             (*server).references,
		"textDocument/documentSymbol":         (*server).documentSymbol,
		"workspace/executeCommand":            (*server).executeCommand,
		"workspace/didChangeConfiguration":    (*server).didChangeConfiguration,
		"workspace/didChangeWatchedFiles":     (*server).didChangeWatchedFiles,
		"workspace/didChangeWorkspaceFolders": func(*server, *request) {},
		"window/workDoneProgress/cancel":      func(*server, *request) {},
		"$/setTrace":                          func(*server, *request) {},
		methodWorkflowGraph:                   (*server).workflowGraph,
		methodSessionSummary:                  (*server).sessionSummary,
	}
}

const (
	methodWorkflowGraph  = "ccdag/workflowGraph"
	methodSessionSummary = "ccdag/sessionSummary"
	commandWorkflowGraph = "ccdag.workflowGraph"
)

// decode reads params into v, answering InvalidParams (calls) or logging (notifications) on
// failure. It reports whether v is usable.
func (r *request) decode(v any) bool {
	if r.params == nil {
		r.replyErr(jsonrpc2.InvalidParams, "%s needs params", r.method)
		return false
	}
	if err := unmarshal(r.params, v); err != nil {
		if r.call {
			r.replyErr(jsonrpc2.InvalidParams, "invalid params for %s: %v", r.method, err)
		} else {
			r.srv.log.Warn("invalid params", zap.String("method", r.method), zap.Error(err))
		}
		return false
	}
	return true
}

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	workDoneProgress    bool
	watchDynamic        bool
	configuration       bool
	hierarchicalSymbols bool
	hoverMarkdown       bool
	relatedInformation  bool
}

type initializeParams struct {
	InitializationOptions json.RawMessage `json:"initializationOptions"`
	Capabilities          struct {
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Workspace struct {
			Configuration         bool `json:"configuration"`
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
		TextDocument struct {
			Hover struct {
				ContentFormat []string `json:"contentFormat"`
			} `json:"hover"`
			DocumentSymbol struct {
				HierarchicalDocumentSymbolSupport bool `json:"hierarchicalDocumentSymbolSupport"`
			} `json:"documentSymbol"`
			PublishDiagnostics struct {
				RelatedInformation bool `json:"relatedInformation"`
			} `json:"publishDiagnostics"`
		} `json:"textDocument"`
	} `json:"capabilities"`
}

func (srv *server) initialize(r *request) {
	var p initializeParams
	if r.params != nil {
		if err := unmarshal(r.params, &p); err != nil {
			// A client whose capabilities we cannot read still gets a server: with defaults.
			srv.log.Warn("initialize params not understood; using defaults", zap.Error(err))
			p = initializeParams{}
		}
	}
	c := p.Capabilities
	caps := clientCaps{
		workDoneProgress:    c.Window.WorkDoneProgress,
		watchDynamic:        c.Workspace.DidChangeWatchedFiles.DynamicRegistration,
		configuration:       c.Workspace.Configuration,
		hierarchicalSymbols: c.TextDocument.DocumentSymbol.HierarchicalDocumentSymbolSupport,
		relatedInformation:  c.TextDocument.PublishDiagnostics.RelatedInformation,
		hoverMarkdown:       len(c.TextDocument.Hover.ContentFormat) == 0,
	}
	for _, f := range c.TextDocument.Hover.ContentFormat {
		if f == "markdown" {
			caps.hoverMarkdown = true
		}
	}
	sev, problems := parseSettings(p.InitializationOptions)
	for _, e := range problems {
		srv.log.Warn("initializationOptions", zap.Error(e))
	}
	srv.mu.Lock()
	srv.caps = caps
	if sev != nil {
		srv.sev = sev
	}
	srv.state = stateRunning
	srv.mu.Unlock()
	r.reply(initializeResult(), nil)
}

func initializeResult() any {
	type syncOptions struct {
		OpenClose bool `json:"openClose"`
		Change    int  `json:"change"`
		Save      struct {
			IncludeText bool `json:"includeText"`
		} `json:"save"`
	}
	type capabilities struct {
		TextDocumentSync       syncOptions                    `json:"textDocumentSync"`
		HoverProvider          bool                           `json:"hoverProvider"`
		DefinitionProvider     bool                           `json:"definitionProvider"`
		ReferencesProvider     bool                           `json:"referencesProvider"`
		DocumentSymbolProvider bool                           `json:"documentSymbolProvider"`
		ExecuteCommandProvider protocol.ExecuteCommandOptions `json:"executeCommandProvider"`
	}
	type result struct {
		Capabilities capabilities        `json:"capabilities"`
		ServerInfo   protocol.ServerInfo `json:"serverInfo"`
	}
	return result{
		Capabilities: capabilities{
			TextDocumentSync:       syncOptions{OpenClose: true, Change: int(protocol.TextDocumentSyncKindIncremental)},
			HoverProvider:          true,
			DefinitionProvider:     true,
			ReferencesProvider:     true,
			DocumentSymbolProvider: true,
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: []string{commandWorkflowGraph}},
		},
		ServerInfo: protocol.ServerInfo{Name: "ccdag", Version: serverVersion()},
	}
}

func (srv *server) initialized(r *request) {
	srv.mu.Lock()
	caps := srv.caps
	srv.mu.Unlock()
	if caps.watchDynamic {
		go srv.registerWatchers()
	}
	if caps.configuration {
		go srv.pullConfiguration()
	}
}
