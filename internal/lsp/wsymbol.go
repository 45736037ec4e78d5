package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/wsymbol"
)

// workspaceSymbol answers from the index (internal/wsymbol) as it is (while the first build runs:
// what it holds so far); a query longer than search's limit gets no symbol. Symbols are named
// as in the outline and have its kinds.
func workspaceSymbol(_ context.Context, srv *server, p protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	out := []protocol.SymbolInformation{}
	if len(p.Query) > 1000 {
		return out, nil
	}
	var path string
	var uri protocol.DocumentURI
	for _, s := range srv.wsym.Query(p.Query, wsymbol.Limit) {
		if s.Path != path { // a log's symbols come together: its URI is made once
			path, uri = s.Path, protocol.DocumentURI(pathToURI(s.Path))
		}
		line := protocol.Position{Line: s.Line}
		out = append(out, protocol.SymbolInformation{Name: s.Name, Kind: wsKinds[s.Kind], ContainerName: s.Container,
			Location: protocol.Location{URI: uri, Range: protocol.Range{Start: line, End: line}}})
	}
	return out, nil
}

var wsKinds = map[wsymbol.Kind]protocol.SymbolKind{wsymbol.Turn: symTurn, wsymbol.Spawn: symSpawn, wsymbol.ToolCall: symToolCall}
