package lsp

import "github.com/ccdag/ccdag/internal/position"

// What a client decodes the server's messages into: the tests read the wire with these, not with
// the go.lsp.dev/protocol types the server encodes with, so a change of encoding shows.

type publishParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type location struct {
	URI   string         `json:"uri"`
	Range position.Range `json:"range"`
}

type relatedInfo struct {
	Location location `json:"location"`
	Message  string   `json:"message"`
}

type diagnostic struct {
	Range              position.Range `json:"range"`
	Severity           int            `json:"severity"`
	Code               string         `json:"code"`
	Source             string         `json:"source"`
	Message            string         `json:"message"`
	RelatedInformation []relatedInfo  `json:"relatedInformation,omitempty"`
}

type hoverResult struct {
	Contents markup          `json:"contents"`
	Range    *position.Range `json:"range,omitempty"`
}

type markup struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type docSymbol struct {
	Name           string         `json:"name"`
	Detail         string         `json:"detail,omitempty"`
	Kind           int            `json:"kind"`
	Range          position.Range `json:"range"`
	SelectionRange position.Range `json:"selectionRange"`
	Children       []docSymbol    `json:"children,omitempty"`
}

type symbolInfo struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

// symFunction is the kind of a tool call's symbol (LSP SymbolKind Function).
const symFunction = 12

// FileChangeType values as a client sends them.
const (
	fileCreated = 1
	fileChanged = 2
	fileDeleted = 3
)
