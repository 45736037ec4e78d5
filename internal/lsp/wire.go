package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// The boundary between ccdag's positions and go.lsp.dev/protocol's: internal/position computes
// UTF-16 positions from byte offsets, and this is the one place they become the library's ranges
// and locations. Everything the server sends is a protocol type, except where a defect of the
// pinned library is named beside a local one.

func toPosition(p position.Pos) protocol.Position {
	return protocol.Position{Line: p.Line, Character: p.Character}
}

func toRange(rg position.Range) protocol.Range {
	return protocol.Range{Start: toPosition(rg.Start), End: toPosition(rg.End)}
}

// spanRange returns the range of a line-relative span of line l of f; a zero span is the line.
func spanRange(f *session.File, l int, start, end int32) protocol.Range {
	return mappedRange(nil, f, l, start, end)
}

// mappedRange is spanRange through a mapper, which maps each long line once: many spans on one
// line (100 000 findings, or tool calls in an outline) cost the line's length once.
func mappedRange(m *position.Mapper, f *session.File, l int, start, end int32) protocol.Range {
	if l < 0 || l >= f.LineCount() {
		p := toPosition(position.FromOffset(f, len(f.Text())))
		return protocol.Range{Start: p, End: p}
	}
	line := f.Line(l)
	if start == 0 && end == 0 {
		end = int32(len(line))
	}
	return toRange(m.Range(f, l, int(start), int(end)))
}

// lineRange is the range of a record's whole line.
func lineRange(f *session.File, l int) protocol.Range {
	return spanRange(f, l, 0, 0)
}

// fullLines is the range of lines [a, b] of f, from the start of a to the start of the line after b
// (the end of the text after a last line without a newline).
func fullLines(f *session.File, a, b int) protocol.Range {
	return protocol.Range{Start: lineStart(f, a), End: toPosition(position.FromOffset(f, f.LineStart(b+1)))}
}

// Lines here are f's (split at '\n', what records and findings name); LSP also ends a line at a
// bare '\r' (position/crlines.go). These three turn one into the other; nothing else may.

// lineStart is the LSP position of the start of line l of f.
func lineStart(f *session.File, l int) protocol.Position {
	return protocol.Position{Line: position.StartLine(f, l)}
}

// lastLSPLine is the LSP line on which line l of f ends.
func lastLSPLine(f *session.File, l int) uint32 {
	return position.At(f, l, len(f.Line(l))).Line
}

// lineAt is the line of f holding LSP line `line` (f.LineCount() past the end).
func lineAt(f *session.File, line int64) int { return position.LineAt(f, line) }

// loc is the location of a span of a record (its line when the span is zero).
func (ss *sess) loc(rec *session.Rec, sp jsonl.Span) protocol.Location {
	return ss.spanLoc(rec.File, rec.Line, sp)
}

// spanLoc is the location of a span of line l of f (the line when the span is zero).
func (ss *sess) spanLoc(f *session.File, l int, sp jsonl.Span) protocol.Location {
	return protocol.Location{URI: protocol.DocumentURI(ss.uriOf(f)), Range: spanRange(f, l, sp.Start, sp.End)}
}

// fileLoc is the start of a log.
func (ss *sess) fileLoc(f *session.File) protocol.Location {
	return protocol.Location{URI: protocol.DocumentURI(ss.uriOf(f))}
}
