package lsp

import (
	"context"

	json "github.com/goccy/go-json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/wsymbol"
)

// request is one incoming message as the features see it: the transport's request (params and id
// as the client sent them) under the short names the handlers use.
type request struct {
	*jsonrpc.Request
	ctx    context.Context
	method string
	params []byte // nil when absent
	pre    any    // params the stream decoded already (a big didOpen), nil when none
	log    *zap.Logger
}

// reply answers a call once; a later reply (after a cancellation answered it) is dropped.
// A result of type jsonrpc.Encoded is written as it is. Only the adapter (handler.go) replies.
func (r *request) reply(result any, err error) { r.Reply(result, err) }

// replyErr answers a call with an error.
func (r *request) replyErr(code jsonrpc.Code, format string, args ...any) {
	r.ReplyError(code, format, args...)
}

// replyLater marks a call as answered by work that runs after its handler returned.
func (r *request) replyLater() { r.ReplyLater() }

// decode reads params into v, answering InvalidParams (calls) or logging (notifications) on
// failure. It reports whether v is usable.
func (r *request) decode(v any) bool { return r.Decode(v) }

// methods binds the method table to srv.
func (srv *server) methods() jsonrpc.Methods {
	m := make(jsonrpc.Methods, len(routes))
	for name, h := range routes {
		m[name] = func(jr *jsonrpc.Request) { h(srv, srv.request(jr)) }
	}
	return m
}

func (srv *server) request(jr *jsonrpc.Request) *request {
	return &request{Request: jr, ctx: jr.Context(), method: jr.Method, params: jr.Params, pre: jr.Decoded, log: srv.log}
}

// routes is the method table: a feature is a typed handler and one line here (and, for a
// capability, one in initializeResult). How a request flows through it: handler.go. shutdown and
// exit are the transport's (jsonrpc.Conn).
var routes map[string]handler

func init() {
	routes = map[string]handler{
		"initialize":                          decoded(now(initialize)),
		"initialized":                         (*server).initialized,
		"textDocument/didOpen":                (*server).didOpen,
		"textDocument/didChange":              (*server).didChange,
		"textDocument/didClose":               decoded(notice((*server).didClose)),
		"textDocument/didSave":                ignore,
		"textDocument/willSave":               ignore,
		"textDocument/hover":                  decoded(onDoc(hover)),
		"textDocument/definition":             decoded(onDoc(definition)),
		"textDocument/references":             decoded(onDoc(references)),
		"textDocument/documentSymbol":         decoded(onDoc(maskedDoc(documentSymbol))),
		"workspace/symbol":                    decoded(apart(workspaceSymbol)),
		"workspace/executeCommand":            decoded(executeCommand),
		"workspace/didChangeConfiguration":    (*server).didChangeConfiguration,
		"workspace/didChangeWatchedFiles":     decoded(notice((*server).didChangeWatchedFiles)),
		"workspace/didChangeWorkspaceFolders": ignore,
		"window/workDoneProgress/cancel":      ignore,
		"$/setTrace":                          ignore,
		methodWorkflowGraph:                   decoded(workflowGraph),
		methodSessionSummary:                  decoded(onSession(summaryOpen, summaryClosed)),
		methodTranscript:                      decoded(transcriptRoute),
		methodResumePreview:                   decoded(needsURI(onSession(resumePreviewOpen, resumePreviewClosed))),
		methodSessions:                        decoded(apart(listSessions)),
		notifyWillOpen:                        decoded(notice((*server).willOpen)),
		"textDocument/inlayHint":              decoded(onDoc(maskedDoc(inlayHints))),
		"textDocument/codeLens":               decoded(onDoc(maskedDoc(codeLenses))),
		"textDocument/foldingRange":           decoded(onDoc(foldingRanges)),
		"textDocument/documentHighlight":      decoded(onDoc(documentHighlight)),
		"textDocument/codeAction":             decoded(onDoc(codeActions)),
	}
}

const (
	methodWorkflowGraph  = "ccdag/workflowGraph"
	methodSessionSummary = "ccdag/sessionSummary"
	commandWorkflowGraph = "ccdag.workflowGraph"
)

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	workDoneProgress    bool
	watchDynamic        bool
	configuration       bool
	hierarchicalSymbols bool
	hoverMarkdown       bool
	relatedInformation  bool
	documentChanges     bool // workspace.workspaceEdit.documentChanges: versioned edits
}

type initializeParams struct {
	InitializationOptions json.RawMessage `json:"initializationOptions"`
	Capabilities          struct {
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Workspace struct {
			Configuration bool `json:"configuration"`
			WorkspaceEdit struct {
				DocumentChanges bool `json:"documentChanges"`
			} `json:"workspaceEdit"`
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

// initialize reads the client's capabilities and settings; params it cannot read leave defaults.
func initialize(_ context.Context, srv *server, raw rawParams) (initializeReply, error) {
	var p initializeParams
	if raw != nil {
		if err := unmarshal(raw, &p); err != nil {
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
		documentChanges:     c.Workspace.WorkspaceEdit.DocumentChanges,
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
	claude, _, err := parseClaudeVersion(p.InitializationOptions)
	if err != nil {
		srv.log.Warn("initializationOptions: " + err.Error())
	}
	srv.applyPrices(p.InitializationOptions)
	if on, ok := redactSetting(p.InitializationOptions); ok {
		srv.mu.Lock()
		srv.noRedact = !on
		srv.mu.Unlock()
	}
	srv.mu.Lock()
	srv.claude = claude
	srv.caps = caps
	poll := wsymbol.Poll
	if srv.hooks.wsPoll > 0 {
		poll = srv.hooks.wsPoll
	}
	srv.wsym = wsymbol.New(wsymbol.Roots(raw), poll, srv.log, srv.indexProgress)
	srv.wsym.OnChange = func() { srv.notify(notifySessionsChanged, struct{}{}) }
	srv.wsym.MaxBytes = srv.hooks.maxFileBytes // no log past the server's file-size limit is read
	srv.openRoots = willOpenRoots(raw)
	if sev != nil {
		srv.sev = sev
	}
	srv.mu.Unlock()
	return initializeResult(), nil
}

// textDocumentSync is local: protocol.SaveOptions drops includeText:false (omitempty), and the
// wire contract (wire_test.go's initResult) has "save":{"includeText":false}.
type textDocumentSync struct {
	OpenClose bool                          `json:"openClose"`
	Change    protocol.TextDocumentSyncKind `json:"change"`
	Save      struct {
		IncludeText bool `json:"includeText"`
	} `json:"save"`
}

// serverCapabilities adds LSP 3.17's inlayHintProvider, which go.lsp.dev/protocol v0.12.0 (3.16) lacks.
type serverCapabilities struct {
	protocol.ServerCapabilities
	InlayHintProvider bool `json:"inlayHintProvider,omitempty"`
}

type initializeReply struct {
	Capabilities serverCapabilities   `json:"capabilities"`
	ServerInfo   *protocol.ServerInfo `json:"serverInfo,omitempty"`
}

// initializeResult declares the server's capabilities: a new feature adds its provider here.
func initializeResult() initializeReply {
	return initializeReply{
		Capabilities: serverCapabilities{ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync:          textDocumentSync{OpenClose: true, Change: protocol.TextDocumentSyncKindIncremental},
			HoverProvider:             true,
			DefinitionProvider:        true,
			ReferencesProvider:        true,
			DocumentSymbolProvider:    true,
			WorkspaceSymbolProvider:   true,
			DocumentHighlightProvider: true,
			CodeLensProvider:          &protocol.CodeLensOptions{},
			FoldingRangeProvider:      true,
			CodeActionProvider:        &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, kindFixAll}},
			ExecuteCommandProvider:    &protocol.ExecuteCommandOptions{Commands: []string{commandWorkflowGraph, commandTranscript, commandParent}},
		}, InlayHintProvider: true},
		ServerInfo: &protocol.ServerInfo{Name: "ccdag", Version: serverVersion()},
	}
}

func (srv *server) initialized(r *request) {
	if srv.toClient != nil {
		srv.toClient.attach(func(typ protocol.MessageType, text string) error {
			return srv.conn.Notify(srv.ctx, "window/logMessage", protocol.LogMessageParams{Type: typ, Message: text})
		})
	}
	srv.mu.Lock()
	caps := srv.caps
	srv.mu.Unlock()
	if srv.wsym != nil {
		go func() {
			if len(srv.wsym.Dirs()) > 0 {
				srv.wsym.Cache = srv.historyCache() // before Run, which alone reads it
			}
			srv.wsym.Run(srv.ctx)
		}()
	}
	if caps.watchDynamic {
		go srv.registerWatchers()
	}
	if caps.configuration {
		go srv.pullConfiguration()
	}
}
