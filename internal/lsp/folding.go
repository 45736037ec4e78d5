package lsp

import (
	"context"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/catalog"
	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/folds"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
	"github.com/ccdag/ccdag/internal/tokens"
)

// Folding ranges (docs/spec.md §7, §10): each compaction segment, each turn and each step inside
// it, with the compaction boundaries never inside a fold (internal/folds). From the turn index
// (lens.go): after an append only the last turn is read again.

// foldingRange is LSP 3.17's FoldingRange (protocol v0.12.0 has no collapsedText): what a folded
// range shows instead of its first line, a log record's raw JSON. A turn: "turn 3 · Fix the
// coupon bug · 12 tool calls · … · $0.42" (its prompt, cut, then its code lens's figures); a step:
// its tool calls and length; a compaction segment, a sub-agent's step: what it is and its length.
// Neovim's foldtext and Emacs' fold overlays show it (VS Code shows it from 1.81 when the client
// declares it; its first line otherwise).
type foldingRange struct {
	protocol.FoldingRange
	CollapsedText string `json:"collapsedText,omitempty"`
}

// foldPromptBytes bounds the prompt a turn's fold text shows.
const foldPromptBytes = 80

func foldingRanges(_ context.Context, ss *sess, f *session.File, _ docRequest) ([]foldingRange, error) {
	out := []foldingRange{}
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
	text := foldTexts(ss, f, ti)
	for _, r := range folds.Of(turns, ti.steps, ti.subs, ti.compactions, last) {
		out = append(out, foldingRange{
			FoldingRange:  protocol.FoldingRange{StartLine: position.StartLine(f, r.Start), EndLine: lastLSPLine(f, r.End), Kind: protocol.RegionFoldingRange},
			CollapsedText: text(r),
		})
	}
	return out, nil
}

// foldTexts returns the collapsedText of a fold of f (see foldingRange).
func foldTexts(ss *sess, f *session.File, ti *turnIndex) func(folds.Fold) string {
	turnAt := make(map[int]int, len(ti.turns)) // start line -> turn index
	for k, t := range ti.turns {
		turnAt[t.start] = k
	}
	kind := map[int]string{}
	for _, c := range ti.compactions {
		kind[c] = "compaction"
	}
	for _, u := range ti.subs {
		kind[u] = "sub-agent step"
	}
	var figure func(k int) tokens.Turn // the turn's lens figures, made on first need
	return func(r folds.Fold) string {
		lines := count(r.End-r.Start+1, "line")
		if k, ok := turnAt[r.Start]; ok {
			if figure == nil {
				figure = turnFigures(ss, f, ti)
			}
			parts := []string{"turn " + strconv.Itoa(k+1)}
			if rec := f.Rec(r.Start); rec != nil {
				if p, raw := classify.PromptRaw(rec, 4*foldPromptBytes); p != "" {
					parts = append(parts, catalog.Shorten(secrets.RedactCut(raw, p), foldPromptBytes)) // redacted, then cut (docs/spec.md §15)
				}
			}
			return strings.Join(append(parts, ti.turns[k].title(figure(k))), " · ")
		}
		if k := kind[r.Start]; k != "" {
			return k + " · " + lines
		}
		if names := stepTools(f, r.Start, r.End); names != "" {
			return "step · " + names + " · " + lines
		}
		return "step · " + lines
	}
}

// turnFigures is the figures each turn's code lens shows (codeLenses).
func turnFigures(ss *sess, f *session.File, ti *turnIndex) func(k int) tokens.Turn {
	if f.Lane == "main" {
		starts, ends := make([]int, len(ti.turns)), make([]int, len(ti.turns))
		for k, t := range ti.turns {
			starts[k], ends[k] = t.start, t.end
		}
		split := tokens.Turns(ss.session, ss.readingState().tokens, starts, ends)
		return func(k int) tokens.Turn { return split.Turns[k] }
	}
	tk := ss.tokensOf(f)
	return func(k int) tokens.Turn {
		c := tk.Range(ti.turns[k].start, ti.turns[k].end)
		return tokens.Turn{Own: c, Total: c}
	}
}

// stepTools names the tool calls of the assistant records on lines [start, end], in order, at
// most three names and a count of the rest ("Bash ×2, Read, Edit +3").
func stepTools(f *session.File, start, end int) string {
	var names []string
	seen := map[string]int{}
	total := 0
	for i := start; i <= end && i < f.LineCount(); i++ {
		rec := f.Rec(i)
		if rec == nil || rec.LineErr() != nil || rec.Type != "assistant" {
			continue
		}
		for k := range rec.D().Blocks {
			if b := &rec.D().Blocks[k]; b.Kind == jsonl.BlockToolUse {
				total++
				if seen[b.Name] == 0 {
					names = append(names, b.Name)
				}
				seen[b.Name]++
			}
		}
	}
	shown := 0
	parts := []string{}
	for _, n := range names {
		if len(parts) == 3 {
			break
		}
		p := textsafe.Printable(classify.Cut(n, 40))
		if seen[n] > 1 {
			p += " ×" + strconv.Itoa(seen[n])
		}
		parts = append(parts, p)
		shown += seen[n]
	}
	s := strings.Join(parts, ", ")
	if total > shown {
		s += " +" + strconv.Itoa(total-shown)
	}
	return s
}
