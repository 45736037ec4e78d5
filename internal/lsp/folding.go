package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// Folding ranges (docs/spec.md §7): each user turn, from its prompt to the line before the next,
// and each compaction segment, from its boundary to the line before the next boundary (or the end).
// From the turn index (lens.go): after an append only the last turn is read again.

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
	for _, t := range ti.turns {
		end := min(t.end-1, last)
		if end > t.start {
			out = append(out, protocol.FoldingRange{StartLine: position.StartLine(f, t.start), EndLine: lastLSPLine(f, end), Kind: protocol.RegionFoldingRange})
		}
	}
	for i, c := range ti.compactions {
		end := last
		if i+1 < len(ti.compactions) {
			end = ti.compactions[i+1] - 1
		}
		if end > c {
			out = append(out, protocol.FoldingRange{StartLine: position.StartLine(f, c), EndLine: lastLSPLine(f, end), Kind: protocol.RegionFoldingRange})
		}
	}
	return out, nil
}
