package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/folds"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// Folding ranges (docs/spec.md §7, §10): each compaction segment, each turn and each step inside
// it, with the compaction boundaries never inside a fold (internal/folds). From the turn index
// (lens.go): after an append only the last turn is read again.

func foldingRanges(_ context.Context, ss *sess, f *session.File, _ docRequest) ([]protocol.FoldingRange, error) {
	out := []protocol.FoldingRange{}
	if f.NotJSONL() {
		return out, nil
	}
	ti := ss.turnsOf(f)
	last := f.LineCount() - 1
	for last > 0 && f.Rec(last) == nil {
		last-- // trailing blank line
	}
	turns := make([]folds.Span, len(ti.turns))
	for i, t := range ti.turns {
		turns[i] = folds.Span{Start: t.start, End: t.end}
	}
	for _, r := range folds.Of(turns, ti.steps, ti.subs, ti.compactions, last) {
		out = append(out, protocol.FoldingRange{StartLine: position.StartLine(f, r.Start), EndLine: lastLSPLine(f, r.End), Kind: protocol.RegionFoldingRange})
	}
	return out, nil
}
