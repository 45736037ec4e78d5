package lsp

import (
	"context"

	json "github.com/goccy/go-json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/jsonrpc"
)

// request is one incoming message as the features see it: the transport's request (params and id
// as the client sent them) under the short names the handlers use.
type request struct {
	*jsonrpc.Request
	ctx    context.Context
	method string
	params []byte // nil when absent
	pre    any    // params the stream decoded already (a big didOpen), nil when none
}

// reply answers a call once; a later reply (after a cancellation answered it) is dropped.
// A result of type jsonrpc.Encoded is written as it is.
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
		m[name] = func(jr *jsonrpc.Request) {
			h(srv, &request{Request: jr, ctx: jr.Context(), method: jr.Method, params: jr.Params, pre: jr.Decoded})
		}
	}
	return m
}

// routes is the method table: a feature is a method of *server taking a *request and one line here
// (and, for a capability, one in initializeResult). Handlers run on the read loop: they decode,
// then answer at once (r.reply, r.replyErr) or queue work on a session (sess.do) that answers
// later. shutdown and exit are the transport's (jsonrpc.Conn).
var routes map[string]func(*server, *request)

func init() {
	routes = map[string]func(*server, *request){
		"initialize":                          (*server).initialize,
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
		"workspace/symbol":                    (*server).workspaceSymbol,
		"workspace/executeCommand":            (*server).executeCommand,
		"workspace/didChangeConfiguration":    (*server).didChangeConfiguration,
		"workspace/didChangeWatchedFiles":     (*server).didChangeWatchedFiles,
		"workspace/didChangeWorkspaceFolders": func(*server, *request) {},
		"window/workDoneProgress/cancel":      func(*server, *request) {},
		"$/setTrace":                          func(*server, *request) {},
		methodWorkflowGraph:                   (*server).workflowGraph,
		methodSessionSummary:                  (*server).sessionSummary,
		methodTranscript:                      (*server).transcript,
		"textDocument/inlayHint":              (*server).inlayHint,
		"textDocument/codeLens":               (*server).codeLens,
		"textDocument/foldingRange":           (*server).foldingRange,
		"textDocument/documentHighlight":      (*server).documentHighlight,
		"textDocument/codeAction":             (*server).codeAction,
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
	srv.mu.Lock()
	srv.caps = caps
	srv.wsym = newWSIndex(srv, r.params)
	if sev != nil {
		srv.sev = sev
	}
	srv.mu.Unlock()
	r.reply(initializeResult(), nil)
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
	srv.mu.Lock()
	caps := srv.caps
	srv.mu.Unlock()
	if srv.wsym != nil {
		go srv.wsym.run(srv.ctx)
	}
	if caps.watchDynamic {
		go srv.registerWatchers()
	}
	if caps.configuration {
		go srv.pullConfiguration()
	}
}
