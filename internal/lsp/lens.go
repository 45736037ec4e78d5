package lsp

import (
	"context"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/jsonrpc"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/tokens"
	"github.com/ccdag/ccdag/internal/transcript"
)

// Code lens (docs/spec.md §7): on each user turn's line, its tool calls, sub-agents, tokens (out,
// and in + cache) and duration; on the main log's first line, the session's totals and the Show
// Workflow Graph / Open Transcript commands (client commands: the editors register them). The
// turns come from a per-file index kept current as the log grows (an append re-reads the last
// turn only); folding ranges use it too.

const (
	clientShowGraph      = "ccdag.showWorkflowGraph"
	clientOpenTranscript = "ccdag.openTranscript"
)

// turn is one user turn of a file: from a prompt the person typed to the line before the next.
type turn struct {
	start, end  int // lines [start, end)
	tools       int // tool calls
	agents      int // sub-agent calls (Task, Agent)
	first, last string
}

// turnIndex is the turns and compaction boundaries of one file.
type turnIndex struct {
	f           *session.File
	recs        []*session.Rec // the records read, by line (to notice edits)
	terminated  bool
	turns       []turn
	compactions []int // lines of compaction boundaries
	steps       []int // lines where a step starts: an assistant record after another kind (folds)
	subs        []int // lines where a sub-agent's step starts, within a step's progress records

	// The turns' code lenses as JSON, each followed by a comma, and what each was made from: a
	// request re-encodes only turns whose figures changed (after an append, the last one).
	lensJSON []byte
	lensOf   []lensMade
}

type lensMade struct {
	t   turn
	tok tokens.Turn
	at  protocol.Position // where it was placed (a bare '\r' above moves it: lineStart)
	end int               // end of its JSON in lensJSON
}

// turnsOf (worker) returns f's turn index, brought up to date.
func (ss *sess) turnsOf(f *session.File) *turnIndex {
	rd := ss.readingState()
	if rd.turns == nil {
		rd.turns = map[*session.File]*turnIndex{}
	}
	ti := rd.turns[f]
	if ti == nil {
		ti = &turnIndex{}
		rd.turns[f] = ti
	}
	ti.update(f)
	return ti
}

// tokensOf (worker) returns f's token index, brought up to date.
func (ss *sess) tokensOf(f *session.File) *tokens.File {
	rd := ss.readingState()
	t := rd.tokens[f]
	if t == nil {
		t = &tokens.File{}
		rd.tokens[f] = t
	}
	t.Update(f)
	return t
}

func (ti *turnIndex) update(f *session.File) {
	n := f.LineCount()
	from := len(ti.recs)
	if from > 0 && !ti.terminated {
		from--
	}
	same := ti.f == f && n >= len(ti.recs)
	for i := 0; same && i < from; i++ {
		same = f.Rec(i) == ti.recs[i]
	}
	if !same {
		*ti = turnIndex{f: f}
		from = 0
	}
	if n == len(ti.recs) && (n == 0 || f.Rec(n-1) == ti.recs[n-1]) {
		return
	}
	// Read again from the start of the last turn (still open) or the first changed line.
	start := from
	if k := len(ti.turns); k > 0 {
		start = min(start, ti.turns[k-1].start)
		ti.turns = ti.turns[:k-1]
	}
	for len(ti.compactions) > 0 && ti.compactions[len(ti.compactions)-1] >= start {
		ti.compactions = ti.compactions[:len(ti.compactions)-1]
	}
	for len(ti.steps) > 0 && ti.steps[len(ti.steps)-1] >= start {
		ti.steps = ti.steps[:len(ti.steps)-1]
	}
	for len(ti.subs) > 0 && ti.subs[len(ti.subs)-1] >= start {
		ti.subs = ti.subs[:len(ti.subs)-1]
	}
	prev, prevSub := prevType(f, start), ""
	if start > 0 {
		if r := f.Rec(start - 1); r != nil && r.LineErr() == nil {
			prevSub = agentSpeaker(r)
		}
	}
	var cur *turn
	for i := start; i < n; i++ {
		rec := f.Rec(i)
		if rec == nil || rec.LineErr() != nil {
			continue
		}
		if rec.Type == "system" && (rec.D().Subtype == "compact_boundary" || rec.D().LogicalParent != "") {
			ti.compactions = append(ti.compactions, i)
		}
		if rec.Type == "assistant" && prev != "assistant" {
			ti.steps = append(ti.steps, i)
		}
		prev = rec.Type
		sub := agentSpeaker(rec)
		if sub == "assistant" && prevSub != "assistant" {
			ti.subs = append(ti.subs, i)
		}
		prevSub = sub
		if rec.Type == "user" && !rec.Has(jsonl.FlagSidechain) && classify.User(rec).Typed() {
			if cur != nil {
				cur.end = i
			}
			ti.turns = append(ti.turns, turn{start: i, end: n})
			cur = &ti.turns[len(ti.turns)-1]
		}
		if cur == nil {
			continue
		}
		for k := range rec.D().Blocks {
			if b := &rec.D().Blocks[k]; b.Kind == jsonl.BlockToolUse {
				cur.tools++
				if session.IsAgentTool(b.Name) {
					cur.agents++
				}
			}
		}
		if rec.TimestampSpan.Valid() {
			ts := rec.Timestamp(rec.LineBytes())
			if cur.first == "" {
				cur.first = ts
			}
			cur.last = ts
		}
	}
	if k := len(ti.turns); k > 0 {
		ti.turns[k-1].end = n
	}
	ti.recs = ti.recs[:min(len(ti.recs), start)]
	for i := len(ti.recs); i < n; i++ {
		ti.recs = append(ti.recs, f.Rec(i))
	}
	ti.terminated = f.Terminated(n - 1)
}

// prevType is the type of the last record before line i ("" when none). A step starts where the
// assistant speaks after anything else: the records of one message (thinking, text, tool call) are
// one step, and a tool call followed by its progress records and result is one step, also when
// Claude Code runs several calls at once (each call's progress records come before the next call).
func prevType(f *session.File, i int) string {
	for i--; i >= 0; i-- {
		if rec := f.Rec(i); rec != nil && rec.LineErr() == nil {
			return rec.Type
		}
	}
	return ""
}

// agentSpeaker is, for a sub-agent's progress record (data.agentId set), the type of the message it
// mirrors (data.message.type: "user", "assistant"), else "". A sub-agent that runs for hundreds of
// records inside one Agent call folds step by step like the main thread.
func agentSpeaker(r *session.Rec) string {
	if r.Type != "progress" || r.D().DataAgentID == "" {
		return ""
	}
	b := r.LineBytes()
	typ := ""
	field := func(name string, then func(vs int) (int, error)) func(key []byte, vs int) (int, error) {
		return func(key []byte, vs int) (int, error) {
			if string(key) == name {
				return then(vs)
			}
			return -1, nil
		}
	}
	jsonscan.ObjectFields(b, 0, field("data", func(vs int) (int, error) {
		return jsonscan.ObjectFields(b, vs, field("message", func(vs int) (int, error) {
			return jsonscan.ObjectFields(b, vs, field("type", func(vs int) (int, error) {
				end, err := jsonscan.StringEnd(b, vs)
				if err == nil && end-vs <= 12 {
					typ = string(b[vs+1 : end-1])
				}
				return end, err
			}))
		}))
	}))
	return typ
}

// spanMs is the time between two timestamps, -1 when either is missing or unreadable.
func spanMs(a, b string) int64 {
	t0, e0 := time.Parse(time.RFC3339Nano, a)
	t1, e1 := time.Parse(time.RFC3339Nano, b)
	if e0 != nil || e1 != nil || t1.Before(t0) {
		return -1
	}
	return t1.Sub(t0).Milliseconds()
}

func count(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

func (t turn) title(tok tokens.Turn) string {
	parts := []string{count(t.tools, "tool call")}
	if t.agents > 0 {
		parts = append(parts, count(t.agents, "sub-agent"))
	}
	parts = append(parts, tok.String())
	if ms := spanMs(t.first, t.last); ms >= 0 {
		parts = append(parts, transcript.Duration(ms))
	}
	return strings.Join(parts, " · ")
}

// codeLenses returns the lenses of a log: the session's on the main log, then one per turn,
// encoded once and kept (jsonrpc.Encoded).
func codeLenses(_ context.Context, ss *sess, f *session.File, _ docRequest) (any, error) {
	top := protocol.Range{}
	if f.NotJSONL() {
		return []protocol.CodeLens{{Range: top, Command: &protocol.Command{Title: "not a session log (not JSON Lines): no transcript, lenses or hints"}}}, nil
	}
	uri := ss.uriOf(f)
	lenses := []protocol.CodeLens{}
	if f.Lane == "main" {
		tot := tokens.Session(ss.session, ss.readingState().tokens)
		turns := len(ss.turnsOf(f).turns)
		lenses = append(lenses,
			protocol.CodeLens{Range: top, Command: &protocol.Command{Title: "session: " + count(turns, "turn") + " · " + tot.String()}},
			protocol.CodeLens{Range: top, Command: &protocol.Command{Title: "Show Workflow Graph", Command: clientShowGraph, Arguments: []any{uri}}},
			protocol.CodeLens{Range: top, Command: &protocol.Command{Title: "Open Transcript", Command: clientOpenTranscript, Arguments: []any{uri}}},
		)
		if w := retentionLens(f, time.Now()); w != "" {
			lenses = append(lenses, protocol.CodeLens{Range: top, Command: &protocol.Command{Title: w}})
		}
	}
	ti := ss.turnsOf(f)
	tk := ss.tokensOf(f)
	figure := func(k int, t turn) tokens.Turn { c := tk.Range(t.start, t.end); return tokens.Turn{Own: c, Total: c} }
	if f.Lane == "main" {
		// A turn's figures include the sub-agent logs its calls spawned, and say so.
		starts, ends := make([]int, len(ti.turns)), make([]int, len(ti.turns))
		for k, t := range ti.turns {
			starts[k], ends[k] = t.start, t.end
		}
		split := tokens.Turns(ss.session, ss.readingState().tokens, starts, ends)
		figure = func(k int, _ turn) tokens.Turn { return split.Turns[k] }
	}
	ti.encodeLenses(figure)
	// One lens per turn, encoded once and kept (a 100 MB session has thousands of turns): the
	// reply copies them after the session's lenses.
	out := make([]byte, 0, len(ti.lensJSON)+1024)
	out = append(out, '[')
	for _, l := range lenses {
		b, _ := json.Marshal(l)
		out = append(append(out, b...), ',')
	}
	out = append(out, ti.lensJSON...)
	if out[len(out)-1] == ',' {
		out = out[:len(out)-1]
	}
	return jsonrpc.Encoded(append(out, ']')), nil
}

// encodeLenses brings the turns' lens JSON up to date: kept up to the first turn whose figures
// changed, encoded from there.
func (ti *turnIndex) encodeLenses(figure func(k int, t turn) tokens.Turn) {
	k := 0
	for ; k < len(ti.turns) && k < len(ti.lensOf); k++ {
		t := ti.turns[k]
		if m := &ti.lensOf[k]; m.t != t || m.tok != figure(k, t) || m.at != lineStart(ti.f, t.start) {
			break
		}
	}
	ti.lensOf = ti.lensOf[:k]
	ti.lensJSON = ti.lensJSON[:0]
	if k > 0 {
		ti.lensJSON = ti.lensJSON[:ti.lensOf[k-1].end]
	}
	for i, t := range ti.turns[k:] {
		tok := figure(k+i, t)
		at := lineStart(ti.f, t.start)
		rg := protocol.Range{Start: at, End: at}
		b, _ := json.Marshal(protocol.CodeLens{Range: rg, Command: &protocol.Command{Title: t.title(tok)}})
		ti.lensJSON = append(append(ti.lensJSON, b...), ',')
		ti.lensOf = append(ti.lensOf, lensMade{t: t, tok: tok, at: at, end: len(ti.lensJSON)})
	}
}
