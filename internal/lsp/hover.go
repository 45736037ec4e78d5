package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/session"
)

// Hover on any record: its workflow kind, lane, parent and children (with line numbers), branch,
// tool name and input, the linked result's status and duration, model and token usage, timestamp,
// sidechain depth and a short preview of the content. On an id value: the record it names. Kinds,
// lanes and branches come from the workflow graph (see hoverGraph): for sessions up to
// graphSyncBytes it is at most hoverGraphAge old for records it knows and rebuilt for the others;
// larger sessions use the last graph built, and records it does not know are classified from the
// record alone.

const (
	graphSyncBytes = 16 << 20
	hoverGraphAge  = time.Second
)

type positionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position wirePos `json:"position"`
	Context  struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

func (p positionParams) docURI() string { return p.TextDocument.URI }

// hover describes the record, or the id value, at a position.
func hover(_ context.Context, ss *sess, f *session.File, p positionParams) (*protocol.Hover, error) {
	t := targetAt(f, p)
	if t.kind == tNone {
		return nil, nil
	}
	h := ss.hoverText(t)
	ss.srv.mu.Lock()
	md := ss.srv.caps.hoverMarkdown
	ss.srv.mu.Unlock()
	res := &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: h}}
	if !md {
		res.Contents = protocol.MarkupContent{Kind: protocol.PlainText, Value: plain(h)}
	}
	rg := lineRange(f, t.rec.Line)
	if t.span.Valid() {
		rg = spanRange(f, t.rec.Line, t.span.Start, t.span.End)
	}
	res.Range = &rg
	return res, nil
}

// plain strips the markdown of a hover for clients that only show plain text.
func plain(md string) string {
	strip := strings.NewReplacer("**", "", "`", "", "```text", "", "\\", "")
	return strip.Replace(md)
}

// hoverGraph (worker) returns the graph to describe record rec with: the current one when it is
// built; else the last one built when it knows rec and, for a small session, is under hoverGraphAge
// old (a live session's older records keep their node, kind and lane; a hover on a session that
// grows 50 times a second must not pay for a graph each time); else, for a small session, a new
// one (a rebuild reuses the last one's per-record work); else the last one, or nil.
func (ss *sess) hoverGraph(rec *session.Rec) *graph.Graph {
	g, fresh := ss.cached()
	if fresh {
		return g
	}
	small := sessionBytes(ss.s) <= graphSyncBytes
	if g != nil && g.LaneOf(rec) != nil && (!small || time.Since(ss.graph.built) < hoverGraphAge) {
		return g
	}
	if small {
		return ss.current(nil)
	}
	return g
}

func (ss *sess) hoverText(t target) string {
	g := ss.hoverGraph(t.rec)
	var b strings.Builder
	if t.names() {
		ss.describeReference(&b, g, t)
		return b.String()
	}
	ss.describeRecord(&b, g, t.rec, t.block)
	b.WriteString(ss.resumeHover(t.rec))
	return b.String()
}

// where names a record's place for people: "line 12", or "line 3 of agent-ab12.jsonl".
func (ss *sess) where(rec *session.Rec, from *session.File) string {
	if rec.File == from {
		return fmt.Sprintf("line %d", rec.Line+1)
	}
	return fmt.Sprintf("line %d of %s", rec.Line+1, code(baseName(rec.File.Path)))
}

// linkTo is where(rec) as a markdown link to rec's line. The link text is the server's words and the
// file name in a code span; a URI that could break out of the link destination gets no link.
func (ss *sess) linkTo(rec *session.Rec, from *session.File) string {
	uri := ss.uriOf(rec.File)
	if uri == "" || strings.ContainsAny(uri, "<>\n\r \t()[]`") {
		return ss.where(rec, from)
	}
	text := fmt.Sprintf("line %d", rec.Line+1)
	if rec.File != from {
		text += " of " + code(baseName(rec.File.Path))
	}
	return fmt.Sprintf("[%s](<%s#L%d>)", text, uri, rec.Line+1)
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func (ss *sess) describeReference(b *strings.Builder, g *graph.Graph, t target) {
	s := ss.s
	field := map[targetKind]string{tParent: "parentUuid", tLogicalParent: "logicalParentUuid", tLeaf: "leafUuid",
		tSource: "sourceToolAssistantUUID", tAgentID: "agentId", tResultAgentID: "agentId", tToolResultID: "tool_use_id",
		tProgressAgent: "data.agentId", tProgressCall: "toolUseID"}[t.kind]
	if t.kind == tProgressCall && t.span == t.rec.D().ParentToolUseIDSpan {
		field = "parentToolUseID"
	}
	fmt.Fprintf(b, "**%s** %s\n\n", field, code(t.value))
	switch t.kind {
	case tAgentID, tResultAgentID, tProgressAgent:
		if f := s.Agent(t.value); f != nil {
			fmt.Fprintf(b, "Sub-agent log %s, %d records.\n\n", code(baseName(f.Path)), f.RecordCount())
			if first := firstRec(f); first != nil {
				ss.describeRecord(b, g, first, -1)
			}
			return
		}
		fmt.Fprintf(b, "No log of this sub-agent is in the session.\n")
	case tToolResultID, tProgressCall:
		uses := s.Uses(t.value)
		verb := "Answers"
		if t.kind == tProgressCall {
			verb = "Reports on"
			if len(uses) == 0 {
				uses = s.Uses(t.rec.D().ParentToolUseID) // an agent's message id: the call it runs for
			}
		}
		if len(uses) == 0 {
			b.WriteString("Names no `tool_use` of this session.\n")
			return
		}
		u := uses[0]
		fmt.Fprintf(b, "%s the call at %s:\n\n---\n\n", verb, ss.where(u.Rec, t.rec.File))
		ss.describeRecord(b, g, u.Rec, u.Block)
	default:
		target := s.Lookup(t.value)
		if target == nil {
			b.WriteString("Names no record of this session (main log and sub-agent logs).\n")
			return
		}
		fmt.Fprintf(b, "Names the record at %s:\n\n---\n\n", ss.where(target, t.rec.File))
		ss.describeRecord(b, g, target, -1)
	}
}

// localKind classifies a record or block without the graph.
func localKind(rec *session.Rec, block int) graph.Kind {
	if block >= 0 && block < len(rec.D().Blocks) {
		switch rec.D().Blocks[block].Kind {
		case jsonl.BlockToolUse:
			return graph.Action
		case jsonl.BlockToolResult:
			return graph.Observation
		}
	}
	switch rec.Type {
	case "assistant":
		if rec.Has(jsonl.FlagAPIError) {
			return graph.System
		}
		for _, bl := range rec.D().Blocks {
			if bl.Kind == jsonl.BlockToolUse {
				return graph.Action
			}
		}
		return graph.Thought
	case "user":
		switch who := classify.User(rec); {
		case who == classify.ToolResults:
			return graph.Observation
		case who.Typed():
			return graph.UserInput
		}
		return graph.System
	case "system":
		return graph.System
	}
	return ""
}

var kindWords = map[graph.Kind]string{
	graph.UserInput:   "user input",
	graph.Thought:     "thought",
	graph.Action:      "action",
	graph.Observation: "observation",
	graph.System:      "system",
}

func (ss *sess) describeRecord(b *strings.Builder, g *graph.Graph, rec *session.Rec, block int) {
	s := ss.s
	if rec.LineErr() != nil {
		fmt.Fprintf(b, "**Not a record** — %s\n", code(rec.LineErr().Message))
		return
	}
	if block < 0 {
		for i := range rec.D().Blocks {
			if k := rec.D().Blocks[i].Kind; k == jsonl.BlockToolUse || k == jsonl.BlockToolResult {
				block = i
				break
			}
		}
	}
	var node *graph.Node
	known := g != nil && g.LaneOf(rec) != nil
	if known {
		if block >= 0 {
			node = g.BlockNode(rec, block)
		}
		if node == nil {
			node = g.NodeOf(rec)
		}
	}
	kind := localKind(rec, block)
	if node != nil {
		kind = node.Kind
	}
	typ := rec.Type
	if typ == "" {
		typ = "untyped"
	}
	if w, ok := kindWords[kind]; ok {
		fmt.Fprintf(b, "### %s · %s\n\n", strings.ToUpper(w[:1])+w[1:], code(typ))
	} else {
		fmt.Fprintf(b, "### Record %s (makes no node; the chain passes through it)\n\n", code(typ))
	}
	line := func(label, value string) { fmt.Fprintf(b, "- **%s:** %s\n", label, value) }

	// lane and depth
	lane, depth := rec.File.Lane, 0
	agentType := ""
	if rec.File.Meta != nil {
		agentType, depth = rec.File.Meta.AgentType, max(1, rec.File.Meta.SpawnDepth)
	} else if lane != "main" {
		depth = 1
	}
	if known {
		if l := g.LaneOf(rec); l != nil {
			lane, depth = l.ID, l.Depth
			if l.SubagentType != "" {
				agentType = l.SubagentType
			}
		}
	}
	laneText := code(lane)
	if agentType != "" {
		laneText += " (" + code(agentType) + ")"
	}
	line("Lane", laneText)
	if depth > 0 || rec.Has(jsonl.FlagSidechain) {
		line("Sidechain depth", fmt.Sprint(depth))
	}
	if known {
		branch := "active"
		if !g.Active(rec) {
			branch = "abandoned (a later edit or rewind left it)"
		}
		if g.Forked(rec) {
			branch += "; the conversation forks here"
		}
		line("Branch", branch)
	}

	// tool call and its result
	if block >= 0 && block < len(rec.D().Blocks) {
		bl := &rec.D().Blocks[block]
		switch bl.Kind {
		case jsonl.BlockToolUse:
			line("Tool", code(bl.Name)+" "+code(bl.ID))
			if in := inputSummary(rec, bl); in != "" {
				line("Input", in)
			}
			results := s.Results(bl.ID)
			if len(results) == 0 {
				// as unmatched-tool-use says (session.File.TurnTail decides for both)
				if rec.File.InFlight(rec) {
					line("Result", "none yet — still in flight where the log ends")
				} else {
					line("Result", "none — the conversation went on without its answer")
				}
			}
			for _, t := range results {
				rb := t.ContentBlock()
				status := "success"
				if rb.IsError {
					status = "failure"
				}
				txt := status + ", " + ss.where(t.Rec, rec.File)
				if ri := t.Rec.D().Result; ri != nil && ri.DurationMs >= 0 {
					txt += fmt.Sprintf(", %d ms", ri.DurationMs)
				} else if node != nil && node.DurationMs != nil {
					txt += fmt.Sprintf(", %d ms", *node.DurationMs)
				}
				if ri := t.Rec.D().Result; ri != nil && ri.AgentID != "" {
					txt += ", sub-agent " + code(ri.AgentID)
				}
				line("Result", txt)
			}
		case jsonl.BlockToolResult:
			status := "success"
			if bl.IsError {
				status = "failure"
			}
			line("Status", status)
			if uses := s.Uses(bl.ToolUseID); len(uses) > 0 {
				u := uses[0]
				line("Answers", code(u.ContentBlock().Name)+" call at "+ss.where(u.Rec, rec.File))
			} else {
				line("Answers", code(bl.ToolUseID)+" (no such call in the session)")
			}
			if ri := rec.D().Result; ri != nil && ri.DurationMs >= 0 {
				line("Duration", fmt.Sprintf("%d ms", ri.DurationMs))
			}
		}
	}

	// chain
	if rec.Parent != "" {
		if p := s.Lookup(rec.Parent); p != nil {
			line("Parent", ss.where(p, rec.File)+" "+code(rec.Parent))
		} else {
			line("Parent", code(rec.Parent)+" — not in this session")
		}
	}
	if sp := s.SpawnOf(rec); sp.Call.Rec != nil {
		// a sub-agent's first record: its parent is the call that spawned it (Go to Parent goes there)
		c := sp.Call
		line("Spawned by", code(c.ContentBlock().Name)+" call "+code(c.ContentBlock().ID)+" at "+ss.linkTo(c.Rec, rec.File)+" (found by "+sp.Link.String()+")")
	} else if rec.Parent == "" && rec.UUID != "" {
		line("Parent", "none (a root)")
	}
	if rec.D().LogicalParent != "" {
		if p := s.Lookup(rec.D().LogicalParent); p != nil {
			line("Continues from", ss.where(p, rec.File))
		} else {
			line("Continues from", code(rec.D().LogicalParent)+" — not in this session")
		}
	}
	if kids := s.Children(rec); len(kids) > 0 {
		var ws []string
		for i, k := range kids {
			if i == 8 {
				ws = append(ws, fmt.Sprintf("and %d more", len(kids)-i))
				break
			}
			ws = append(ws, ss.where(k, rec.File))
		}
		line("Children", strings.Join(ws, ", "))
	}
	if rec.UUID != "" {
		line("uuid", code(rec.UUID))
	}

	// model, usage, time
	if rec.D().Model != "" {
		line("Model", code(rec.D().Model))
	}
	if rec.D().HasUsage {
		u := rec.D().Usage
		line("Tokens", fmt.Sprintf("%d in, %d out, %d cache read, %d cache written", u.Input, u.Output, u.CacheRead, u.CacheCreation))
	}
	if ts := rec.Timestamp(rec.LineBytes()); ts != "" {
		line("Time", code(ts))
	}
	if p := preview(rec, block); p != "" {
		b.WriteString("\n")
		b.WriteString(fenced(p))
		b.WriteString("\n")
	}
}

// inputSummary shows the telling fields of a tool call's input.
func inputSummary(rec *session.Rec, bl *jsonl.Block) string {
	if !bl.InputSpan.Valid() {
		return ""
	}
	raw := rec.Bytes(bl.InputSpan)
	if len(raw) > 64<<10 {
		raw = nil
	}
	var m map[string]json.RawMessage
	if raw == nil || unmarshal(raw, &m) != nil {
		return code(shorten(oneLine(string(rec.Bytes(bl.InputSpan)[:min(200, int(bl.InputSpan.End-bl.InputSpan.Start))])), 120))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	pref := []string{"subagent_type", "description", "file_path", "path", "command", "pattern", "url", "query", "prompt", "skill", "subject"}
	rank := func(k string) int {
		for i, p := range pref {
			if p == k {
				return i
			}
		}
		return len(pref)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if rank(keys[i]) != rank(keys[j]) {
			return rank(keys[i]) < rank(keys[j])
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		if i == 3 {
			break
		}
		v := m[k]
		var sv string
		if len(v) > 0 && v[0] == '"' {
			sv = stringPrefix(v, 400)
		} else {
			sv = string(v[:min(len(v), 200)])
		}
		parts = append(parts, code(k)+" "+code(shorten(oneLine(sv), 120)))
	}
	return strings.Join(parts, ", ")
}

// preview returns the beginning of a record's content: the block's text, or the first text.
func preview(rec *session.Rec, block int) string {
	const n = 600
	if block >= 0 && block < len(rec.D().Blocks) {
		bl := &rec.D().Blocks[block]
		if bl.BodySpan.Valid() {
			return shorten(bodyText(rec, bl.BodySpan), n)
		}
		return ""
	}
	if rec.Has(jsonl.FlagContentString) && rec.D().ContentSpan.Valid() {
		return shorten(stringPrefix(rec.Bytes(rec.D().ContentSpan), 4*n), n)
	}
	for i := range rec.D().Blocks {
		bl := &rec.D().Blocks[i]
		if (bl.Kind == jsonl.BlockText || bl.Kind == jsonl.BlockThinking) && bl.BodySpan.Valid() {
			return shorten(bodyText(rec, bl.BodySpan), n)
		}
	}
	return ""
}

// bodyText is a block body's text: a string, or the first text of an array of blocks.
func bodyText(rec *session.Rec, sp jsonl.Span) string {
	raw := rec.Bytes(sp)
	if len(raw) > 0 && raw[0] == '"' {
		return stringPrefix(raw, 2400)
	}
	if len(raw) > 0 && raw[0] == '[' {
		if i := strings.Index(string(raw[:min(len(raw), 4096)]), `"text":"`); i >= 0 {
			rest := raw[i+7:]
			if e, err := jsonscan.StringEnd(rest, 0); err == nil {
				return stringPrefix(rest[:e], 2400)
			}
			return stringPrefix(append(rest[:min(len(rest), 2400):min(len(rest), 2400)], '"'), 2400)
		}
		return fmt.Sprintf("[%d bytes of content blocks]", len(raw))
	}
	return ""
}

func firstRec(f *session.File) *session.Rec {
	var first *session.Rec
	f.Recs(func(rec *session.Rec) bool { first = rec; return false })
	return first
}
