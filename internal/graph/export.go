package graph

import (
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// ActionLabel is an ACTION node's label for one tool_use block, without building a graph: the
// tool's name and its main input ("Read: src/a.ts", "Task (Explore): find the bug"). Inlay hints
// label a log's lines with it.
func ActionLabel(r *session.Rec, blk *jsonl.Block) string { return actionLabel(r, blk) }

// ActionLabelRedacted is ActionLabel with each input value passed through redact, with the JSON
// string it was decoded from, before it is cut (docs/spec.md §15: redacted, then cut; a secret
// across the first bytes' end: secrets.RedactCut).
func ActionLabelRedacted(r *session.Rec, blk *jsonl.Block, redact func(raw []byte, text string) string) string {
	return actionLabelWith(r, blk, LabelMax, redact)
}

// ActionLabelIn is ActionLabel fitted to width characters: a file path in it is cut in its middle
// (pathlabel), so the file name stays (inlay hints: lsp/inlay.go).
func ActionLabelIn(r *session.Rec, blk *jsonl.Block, width int) string {
	return actionLabelWith(r, blk, width, nil)
}

// RecordCount returns how many records the node was made from and the last of them, without
// allocating (Records does).
func (n *Node) RecordCount() (int, *session.Rec) {
	if n.Rec == nil {
		return 0, nil
	}
	if len(n.more) > 0 {
		return 1 + len(n.more), n.more[len(n.more)-1]
	}
	return 1, n.Rec
}
