package lsp

import (
	"context"

	"strings"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
	"github.com/ccdag/ccdag/internal/transcript"
)

// Inlay hints (docs/spec.md §7): at the start of each record line, what the record is, short
// (`▸ Read src/a.ts`, `✓ 120 ms`, `✗ error`, `↳ agent Explore`, `⟲ compaction`, `user`,
// `thinking`), so the left edge of the log reads like a transcript. Plain text, at most hintMax
// characters. A request costs its range: each line's hint comes from its own record (and, for a
// result, its call's record found through the session's index), never from a pass over the file.

// inlayHint is LSP 3.17's InlayHint: go.lsp.dev/protocol v0.12.0 (3.16) has no inlay hint types.
type inlayHint struct {
	Position     protocol.Position `json:"position"`
	Label        string            `json:"label"`
	Kind         int               `json:"kind,omitempty"`
	PaddingRight bool              `json:"paddingRight,omitempty"`
}

type inlayParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range wireRange `json:"range"`
}

const hintMax = 48

func (p inlayParams) docURI() string { return p.TextDocument.URI }

func inlayHints(_ context.Context, ss *sess, f *session.File, p inlayParams) ([]inlayHint, error) {
	out := []inlayHint{}
	if f.NotJSONL() {
		return out, nil
	}
	from := lineAt(f, p.Range.Start.line())
	to := min(f.LineCount()-1, lineAt(f, p.Range.End.line()))
	for i := from; i <= to; i++ {
		rec := f.Rec(i)
		if rec == nil || rec.LineErr() != nil {
			continue
		}
		if l := ss.hintLabel(rec); l != "" {
			out = append(out, inlayHint{Position: lineStart(f, i), Label: l, PaddingRight: true})
		}
	}
	return out, nil
}

// hintLabel says what a record is, in a few words of plain text.
func (ss *sess) hintLabel(rec *session.Rec) string {
	var l string
	switch rec.Type {
	case "user":
		l = ss.userHint(rec)
	case "assistant":
		l = assistantHint(rec)
	case "system":
		switch {
		case rec.D().Subtype == "compact_boundary" || rec.D().LogicalParent != "":
			l = "⟲ compaction"
		case rec.D().Subtype == "api_error":
			l = "✗ API error"
		case rec.D().Subtype != "":
			l = "system " + rec.D().Subtype
		default:
			l = "system"
		}
	case "":
		return ""
	default:
		l = rec.Type
	}
	l = textsafe.Printable(oneLine(l))
	return shorten(l, hintMax)
}

func (ss *sess) userHint(rec *session.Rec) string {
	switch classify.User(rec) {
	case classify.ToolResults:
		for k := range rec.D().Blocks {
			b := &rec.D().Blocks[k]
			if b.Kind != jsonl.BlockToolResult {
				continue
			}
			l := "✓"
			if b.IsError {
				l = "✗ error"
			}
			if ms := ss.resultMs(rec, b); ms >= 0 {
				l += " " + transcript.Duration(ms)
			}
			return l
		}
	case classify.CompactSummary:
		return "⟲ summary"
	case classify.Injected:
		return "injected"
	case classify.Command:
		return "user " + classify.Prompt(rec, 64)
	}
	return "user"
}

// resultMs is how long a tool call took: the result's own duration, else the time from its call.
func (ss *sess) resultMs(rec *session.Rec, b *jsonl.Block) int64 {
	if rec.D().Result != nil && rec.D().Result.DurationMs >= 0 {
		return rec.D().Result.DurationMs
	}
	uses := ss.session.Uses(b.ToolUseID)
	if len(uses) == 0 || !rec.TimestampSpan.Valid() || !uses[0].Rec.TimestampSpan.Valid() {
		return -1
	}
	c := uses[0].Rec
	return spanMs(c.Timestamp(c.LineBytes()), rec.Timestamp(rec.LineBytes()))
}

func assistantHint(rec *session.Rec) string {
	if rec.Has(jsonl.FlagAPIError) {
		return "✗ API error"
	}
	for k := range rec.D().Blocks {
		b := &rec.D().Blocks[k]
		switch b.Kind {
		case jsonl.BlockToolUse:
			if session.IsAgentTool(b.Name) {
				t := ""
				if l := graph.ActionLabel(rec, b); strings.Contains(l, " (") {
					t = strings.SplitN(strings.SplitN(l, " (", 2)[1], ")", 2)[0]
				}
				return strings.TrimSpace("↳ agent " + t)
			}
			// The path fitted to the hint, cut in its middle so the file name stays (as graph labels).
			return "▸ " + strings.Replace(graph.ActionLabelIn(rec, b, hintMax-2), ": ", " ", 1)
		case jsonl.BlockThinking:
			return "thinking"
		case jsonl.BlockText:
			return "text"
		}
	}
	return "assistant"
}
