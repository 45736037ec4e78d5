// Package describe writes what a hover says of a record of a session, in Markdown (docs/lsp.md,
// "Hover"): its workflow kind, lane, parent and children, branch, tool call and result, model,
// tokens, time and a preview of its content; and of an id value, the record it names. Protocol
// free: the server puts the text in a hover, tests read it from golden files.
package describe

import (
	"fmt"
	"sort"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/mdsafe"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// A Describer describes the records of one session.
type Describer struct {
	Session *session.Session
	Graph   *graph.Graph               // kinds, lanes and branches; nil, or not knowing a record: Kind
	URI     func(*session.File) string // where a link to a file's line points ("": no link)
}

// RefKind says what an id value names.
type RefKind int

const (
	RefRecord RefKind = iota // a record by its uuid (parentUuid, logicalParentUuid, leafUuid, ...)
	RefAgent                 // a sub-agent, by its agentId
	RefAnswer                // a tool call answered by a tool_result's tool_use_id
	RefReport                // a tool call a progress record reports on
)

// A Ref is an id value in a record.
type Ref struct {
	Field string       // the field holding it, as the hover heads it
	Value string       // the id
	In    *session.Rec // the record holding it
	Kind  RefKind
}

// Reference writes what an id value names.
func (d *Describer) Reference(b *strings.Builder, r Ref) {
	s := d.Session
	fmt.Fprintf(b, "**%s** %s\n\n", r.Field, mdsafe.Code(r.Value))
	switch r.Kind {
	case RefAgent:
		if f := s.Agent(r.Value); f != nil {
			fmt.Fprintf(b, "Sub-agent log %s, %d records.\n\n", mdsafe.Code(baseName(f.Path)), f.RecordCount())
			if first := FirstRec(f); first != nil {
				d.Record(b, first, -1)
			}
			return
		}
		fmt.Fprintf(b, "No log of this sub-agent is in the session.\n")
	case RefAnswer, RefReport:
		uses := s.Uses(r.Value)
		verb := "Answers"
		if r.Kind == RefReport {
			verb = "Reports on"
			if len(uses) == 0 {
				uses = s.Uses(r.In.D().ParentToolUseID) // an agent's message id: the call it runs for
			}
		}
		if len(uses) == 0 {
			b.WriteString("Names no `tool_use` of this session.\n")
			return
		}
		u := uses[0]
		fmt.Fprintf(b, "%s the call at %s:\n\n---\n\n", verb, Where(u.Rec, r.In.File))
		d.Record(b, u.Rec, u.Block)
	default:
		target := s.Lookup(r.Value)
		if target == nil {
			b.WriteString("Names no record of this session (main log and sub-agent logs).\n")
			return
		}
		fmt.Fprintf(b, "Names the record at %s:\n\n---\n\n", Where(target, r.In.File))
		d.Record(b, target, -1)
	}
}

// unmarshal decodes JSON; a decoder panic on hostile input becomes an error.
func unmarshal(b []byte, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("cannot decode: %v", p)
		}
	}()
	return json.Unmarshal(b, v)
}

// Where names a record's place for people: "line 12", or "line 3 of agent-ab12.jsonl".
func Where(rec *session.Rec, from *session.File) string {
	if rec.File == from {
		return fmt.Sprintf("line %d", rec.Line+1)
	}
	return fmt.Sprintf("line %d of %s", rec.Line+1, mdsafe.Code(baseName(rec.File.Path)))
}

// linkTo is Where(rec) as a markdown link to rec's line. The link text is the server's words and the
// file name in a code span; a URI that could break out of the link destination gets no link.
func (d *Describer) linkTo(rec *session.Rec, from *session.File) string {
	uri := ""
	if d.URI != nil {
		uri = d.URI(rec.File)
	}
	if uri == "" || strings.ContainsAny(uri, "<>\n\r \t()[]`") {
		return Where(rec, from)
	}
	text := fmt.Sprintf("line %d", rec.Line+1)
	if rec.File != from {
		text += " of " + mdsafe.Code(baseName(rec.File.Path))
	}
	return fmt.Sprintf("[%s](<%s#L%d>)", text, uri, rec.Line+1)
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Kind classifies a record or block without the graph, by the graph's rules (docs/graph.md): what
// a hover says of a record the last graph built does not know yet.
func Kind(rec *session.Rec, block int) graph.Kind {
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

// thoughtWord names an assistant message without tool calls: a "reply" when it says something the
// person sees (text), "thinking" when all it holds is thinking.
func thoughtWord(rec *session.Rec) string {
	if rec.Has(jsonl.FlagContentString) {
		return "reply"
	}
	for i := range rec.D().Blocks {
		if rec.D().Blocks[i].Kind == jsonl.BlockText {
			return "reply"
		}
	}
	return "thinking"
}

// Record writes the description of a record (a block of it: a tool call or result; -1: the record,
// or its first call or result).
func (d *Describer) Record(b *strings.Builder, rec *session.Rec, block int) {
	g := d.Graph
	if rec.LineErr() != nil {
		fmt.Fprintf(b, "**Not a record** — %s\n", mdsafe.Code(rec.LineErr().Message))
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
	kind := Kind(rec, block)
	if node != nil {
		kind = node.Kind
	}
	typ := rec.Type
	if typ == "" {
		typ = "untyped"
	}
	if w, ok := kindWords[kind]; ok {
		if kind == graph.Thought {
			w = thoughtWord(rec)
		}
		fmt.Fprintf(b, "### %s · %s\n\n", strings.ToUpper(w[:1])+w[1:], mdsafe.Code(typ))
	} else {
		fmt.Fprintf(b, "### Record %s (makes no node; the chain passes through it)\n\n", mdsafe.Code(typ))
	}
	line := func(label, value string) { fmt.Fprintf(b, "- **%s:** %s\n", label, value) }
	d.lane(line, rec, known)
	if block >= 0 && block < len(rec.D().Blocks) {
		d.block(line, rec, &rec.D().Blocks[block], node)
	}
	d.chain(line, rec)
	usage(line, rec)

	if p := preview(rec, block); p != "" {
		b.WriteString("\n")
		b.WriteString(mdsafe.Fenced(p))
		b.WriteString("\n")
	}
}

// lane writes the record's lane (with the sub-agent's type), sidechain depth and branch.
func (d *Describer) lane(line func(label, value string), rec *session.Rec, known bool) {
	g := d.Graph
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
	laneText := mdsafe.Code(lane)
	if agentType != "" {
		laneText += " (" + mdsafe.Code(agentType) + ")"
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
}

// block writes a tool call (its input and results) or a tool result (its status and call).
func (d *Describer) block(line func(label, value string), rec *session.Rec, bl *jsonl.Block, node *graph.Node) {
	s := d.Session
	switch bl.Kind {
	case jsonl.BlockToolUse:
		line("Tool", mdsafe.Code(bl.Name)+" "+mdsafe.Code(bl.ID))
		if in := InputSummary(rec, bl); in != "" {
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
			txt := status + ", " + Where(t.Rec, rec.File)
			if ri := t.Rec.D().Result; ri != nil && ri.DurationMs >= 0 {
				txt += fmt.Sprintf(", %d ms", ri.DurationMs)
			} else if node != nil && node.DurationMs != nil {
				txt += fmt.Sprintf(", %d ms", *node.DurationMs)
			}
			if ri := t.Rec.D().Result; ri != nil && ri.AgentID != "" {
				txt += ", sub-agent " + mdsafe.Code(ri.AgentID)
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
			line("Answers", mdsafe.Code(u.ContentBlock().Name)+" call at "+Where(u.Rec, rec.File))
		} else {
			line("Answers", mdsafe.Code(bl.ToolUseID)+" (no such call in the session)")
		}
		if ri := rec.D().Result; ri != nil && ri.DurationMs >= 0 {
			line("Duration", fmt.Sprintf("%d ms", ri.DurationMs))
		}
	}
}

// chain writes the record's parent (or the call that spawned it), what it continues from, its
// children and its uuid.
func (d *Describer) chain(line func(label, value string), rec *session.Rec) {
	s := d.Session
	if rec.Parent != "" {
		if p := s.Lookup(rec.Parent); p != nil {
			line("Parent", Where(p, rec.File)+" "+mdsafe.Code(rec.Parent))
		} else {
			line("Parent", mdsafe.Code(rec.Parent)+" — not in this session")
		}
	}
	if sp := s.SpawnOf(rec); sp.Call.Rec != nil {
		// a sub-agent's first record: its parent is the call that spawned it (Go to Parent goes there)
		c := sp.Call
		line("Spawned by", mdsafe.Code(c.ContentBlock().Name)+" call "+mdsafe.Code(c.ContentBlock().ID)+" at "+d.linkTo(c.Rec, rec.File)+" (found by "+sp.Link.String()+")")
	} else if rec.Parent == "" && rec.UUID != "" {
		line("Parent", "none (a root)")
	}
	if rec.D().LogicalParent != "" {
		if p := s.Lookup(rec.D().LogicalParent); p != nil {
			line("Continues from", Where(p, rec.File))
		} else {
			line("Continues from", mdsafe.Code(rec.D().LogicalParent)+" — not in this session")
		}
	}
	if kids := s.Children(rec); len(kids) > 0 {
		var ws []string
		for i, k := range kids {
			if i == 8 {
				ws = append(ws, fmt.Sprintf("and %d more", len(kids)-i))
				break
			}
			ws = append(ws, Where(k, rec.File))
		}
		line("Children", strings.Join(ws, ", "))
	}
	if rec.UUID != "" {
		line("uuid", mdsafe.Code(rec.UUID))
	}
}

// usage writes the record's model, tokens and time.
func usage(line func(label, value string), rec *session.Rec) {
	if rec.D().Model != "" {
		line("Model", mdsafe.Code(rec.D().Model))
	}
	if rec.Has(jsonl.FlagUsage) {
		u := rec.D().Usage
		out := fmt.Sprintf("%d out", u.Output)
		atLeast := "" // a cost on a placeholder output count is a lower bound too
		if !rec.Has(jsonl.FlagStopped) {
			atLeast = "≥ "
			// docs/spec.md §10: a line written while the reply streamed carries a snapshot count.
			out = fmt.Sprintf("≥ %d out (logged before the reply ended, no stop_reason: a placeholder count, a lower bound)", u.Output)
		}
		line("Tokens", fmt.Sprintf("%d in, %s, %d cache read, %d cache written", u.Input, out, u.CacheRead, u.CacheCreation))
		if u.Total() > 0 {
			t := prices.Current()
			if p := t.Lookup(rec.D().Model); p != nil {
				line("Cost", atLeast+p.Of(u).String()+" ("+priceSource(t)+")")
			} else {
				line("Cost", "unpriced: the model is not in the price table ("+priceSource(t)+")")
			}
		}
	}
	if ts := rec.Timestamp(rec.LineBytes()); ts != "" {
		line("Time", mdsafe.Code(ts))
	}
}

// priceSource says which table priced a figure.
func priceSource(t *prices.Table) string {
	if t == prices.Builtin() {
		return "prices of " + t.Date + ", LiteLLM"
	}
	return "prices from " + mdsafe.Code(t.Source)
}

// InputSummary shows the telling fields of a tool call's input.
func InputSummary(rec *session.Rec, bl *jsonl.Block) string {
	if !bl.InputSpan.Valid() {
		return ""
	}
	raw := rec.Bytes(bl.InputSpan)
	if len(raw) > 64<<10 {
		raw = nil
	}
	var m map[string]json.RawMessage
	if raw == nil || unmarshal(raw, &m) != nil {
		return mdsafe.Code(mdsafe.Shorten(mdsafe.OneLine(string(rec.Bytes(bl.InputSpan)[:min(200, int(bl.InputSpan.End-bl.InputSpan.Start))])), 120))
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
			sv = mdsafe.StringPrefix(v, 400)
		} else {
			sv = string(v[:min(len(v), 200)])
		}
		parts = append(parts, mdsafe.Code(k)+" "+mdsafe.Code(mdsafe.Shorten(mdsafe.OneLine(sv), 120)))
	}
	return strings.Join(parts, ", ")
}

// preview returns the beginning of a record's content: the block's text, or the first text.
func preview(rec *session.Rec, block int) string {
	const n = 600
	if block >= 0 && block < len(rec.D().Blocks) {
		bl := &rec.D().Blocks[block]
		if bl.BodySpan.Valid() {
			return mdsafe.Shorten(BodyText(rec, bl.BodySpan), n)
		}
		return ""
	}
	if rec.Has(jsonl.FlagContentString) && rec.D().ContentSpan.Valid() {
		return mdsafe.Shorten(mdsafe.StringPrefix(rec.Bytes(rec.D().ContentSpan), 4*n), n)
	}
	for i := range rec.D().Blocks {
		bl := &rec.D().Blocks[i]
		if (bl.Kind == jsonl.BlockText || bl.Kind == jsonl.BlockThinking) && bl.BodySpan.Valid() {
			return mdsafe.Shorten(BodyText(rec, bl.BodySpan), n)
		}
	}
	return ""
}

// BodyText is a block body's text: a string, or the first text of an array of blocks.
func BodyText(rec *session.Rec, sp jsonl.Span) string {
	raw := rec.Bytes(sp)
	if len(raw) > 0 && raw[0] == '"' {
		return mdsafe.StringPrefix(raw, 2400)
	}
	if len(raw) > 0 && raw[0] == '[' {
		if i := strings.Index(string(raw[:min(len(raw), 4096)]), `"text":"`); i >= 0 {
			rest := raw[i+7:]
			if e, err := jsonscan.StringEnd(rest, 0); err == nil {
				return mdsafe.StringPrefix(rest[:e], 2400)
			}
			return mdsafe.StringPrefix(append(rest[:min(len(rest), 2400):min(len(rest), 2400)], '"'), 2400)
		}
		return fmt.Sprintf("[%d bytes of content blocks]", len(raw))
	}
	return ""
}

// FirstRec is a log's first record (nil when it has none).
func FirstRec(f *session.File) *session.Rec {
	var first *session.Rec
	f.Recs(func(rec *session.Rec) bool { first = rec; return false })
	return first
}

// ToolSymbolName names a tool call in the outline and workspace symbols as its graph label does
// ("Read src/…/metadata/roadmap.py", "TodoWrite 3 todos"): the tool and its main argument, a path
// relative to the session's cwd and cut in its middle, never raw JSON (docs/spec.md §10).
func ToolSymbolName(rec *session.Rec, bl *jsonl.Block) string {
	return SymbolName(strings.Replace(graph.ActionLabel(rec, bl), ": ", " ", 1))
}

// ToolSymbolNameRedacted is ToolSymbolName with the call's input redacted before it is cut
// (docs/spec.md §15).
func ToolSymbolNameRedacted(rec *session.Rec, bl *jsonl.Block, redact func(raw []byte, text string) string) string {
	return SymbolName(strings.Replace(graph.ActionLabelRedacted(rec, bl, redact), ": ", " ", 1))
}

// SymbolName is a name for a symbol (the outline, workspace symbols): one line, at most 80
// characters, "(empty)" for nothing.
func SymbolName(s string) string {
	s = mdsafe.Shorten(textsafe.Printable(mdsafe.OneLine(s)), 80) // as hover and diagnostics: no bidi, no controls
	if s == "" {
		return "(empty)"
	}
	return s
}

// PlainInput is a tool call's main input as plain text, for symbol names.
func PlainInput(rec *session.Rec, bl *jsonl.Block) string {
	s := InputSummary(rec, bl)
	s = strings.ReplaceAll(s, "`", "")
	if i := strings.Index(s, ", "); i >= 0 {
		s = s[:i]
	}
	// drop the key
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}
