// Package transcript renders a session as a Markdown document a person can read (docs/spec.md §7):
// a title and summary, one heading per user turn with the prompt quoted, the assistant's text,
// thinking folded, each tool call on one line with its result shortened, sub-agent runs nested
// under their call, compactions and abandoned branches marked, and every heading and call linked
// to its log line. A line map says which transcript line comes from which log line.
//
// It reads the session through its workflow graph (one classifier, one notion of turns, lanes and
// branches for graph, outline and transcript). All log text is untrusted: it goes into inline code
// spans or fenced blocks (mdsafe), never into Markdown or HTML of its own.
//
// A Builder keeps each node's rendered Markdown from one build to the next: a record never
// changes once parsed, so after an append only the new nodes (and the calls their results answer)
// are rendered again; the rest is copied.
package transcript

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/mdsafe"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/tokens"
)

// Limits on how much of one piece of log text the transcript shows (a pasted prompt can be 2 MB).
const (
	promptMax   = 16 << 10
	textMax     = 64 << 10
	thinkingMax = 16 << 10
	resultLines = 3
	resultBytes = 600
)

// Line maps a transcript line to the log line it comes from (both 0-based). Lines between two
// entries belong to the earlier one.
type Line struct {
	Transcript int    `json:"transcript"`
	URI        string `json:"uri"`
	Line       int    `json:"line"`
}

// Result is the answer of `ccdag/transcript`.
type Result struct {
	Markdown string `json:"markdown"`
	Lines    []Line `json:"lines"`
}

// Options adjust a build.
type Options struct {
	AllBranches bool // also render abandoned branches (marked); by default they are one line each
}

// Builder renders transcripts of one session, keeping per-node work across builds.
type Builder struct {
	memo     map[memoKey]*chunk
	gen      uint32
	size     int // bytes and line map entries of the last document, to size the next
	nlines   int
	rendered int // nodes rendered (not reused) by the last build
	tokens   map[*session.File]*tokens.File
}

// NewBuilder returns a builder for one session. Builds that share it are serialised by the caller.
func NewBuilder() *Builder {
	return &Builder{memo: map[memoKey]*chunk{}, tokens: map[*session.File]*tokens.File{}}
}

type memoKey struct {
	rec   *session.Rec
	block int
	kind  graph.Kind
}

// sig is everything a node's rendering depends on; a chunk is reused while its sig is unchanged.
type sig struct {
	line, nrecs, turn int
	last              *session.Rec
	active            bool
	label, status     string
	dur               int64
	prefix, uri       string
}

type ref struct {
	rel  int // line within the chunk
	uri  string
	line int
}

type chunk struct {
	sig   sig
	gen   uint32
	md    []byte
	refs  []ref
	lines int
}

// Build renders the transcript of s from its graph g (built from s as it is now).
func Build(s *session.Session, g *graph.Graph, opt Options) *Result {
	return NewBuilder().Build(s, g, opt)
}

// Build renders the transcript, reusing what the last build rendered for unchanged nodes.
func (b *Builder) Build(s *session.Session, g *graph.Graph, opt Options) *Result {
	b.gen++
	b.rendered = 0
	out := &asm{}
	out.buf.Grow(b.size + b.size/8 + 4096)
	out.lines = make([]Line, 0, b.nlines+b.nlines/8+64)
	b.header(out, s, g)

	lanes := map[string][]*graph.Node{}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		lanes[n.Lane] = append(lanes[n.Lane], n)
	}
	spawned := map[string][]*graph.Lane{}
	for i := range g.Lanes {
		if l := &g.Lanes[i]; l.ParentNode != "" {
			spawned[l.ParentNode] = append(spawned[l.ParentNode], l)
		}
	}
	r := &run{b: b, g: g, opt: opt, out: out, lanes: lanes, spawned: spawned, done: map[string]bool{}}
	r.lane(graph.MainLane, "")
	// Lanes no call spawned (an agent log whose call is not in the session) follow at the end.
	for i := range g.Lanes {
		l := &g.Lanes[i]
		if l.ID != graph.MainLane && !r.done[l.ID] && (l.ParentNode == "" || g.Node(l.ParentNode) == nil) {
			out.text("")
			out.text("## ↳ sub-agent " + mdsafe.Code(laneTitle(l)) + " (its call is not in the session)")
			r.lane(l.ID, "")
		}
	}
	for k, c := range b.memo {
		if c.gen != b.gen {
			delete(b.memo, k)
		}
	}
	b.size, b.nlines = out.buf.Len(), len(out.lines)
	return &Result{Markdown: out.buf.String(), Lines: out.lines}
}

// asm assembles the document and its line map.
type asm struct {
	buf   strings.Builder
	n     int // lines written
	lines []Line
}

func (a *asm) text(s string) {
	a.buf.WriteString(s)
	a.buf.WriteByte('\n')
	a.n++
}

func (a *asm) mark(uri string, line int) {
	a.lines = append(a.lines, Line{Transcript: a.n, URI: uri, Line: line})
}

func (a *asm) add(c *chunk) {
	for _, r := range c.refs {
		a.lines = append(a.lines, Line{Transcript: a.n + r.rel, URI: r.uri, Line: r.line})
	}
	a.buf.Write(c.md)
	a.n += c.lines
}

// w writes one chunk: every line gets the nesting prefix.
type w struct {
	c      *chunk
	prefix string
	b      []byte
}

func (x *w) line(s string) {
	x.b = append(x.b, x.prefix...)
	x.b = append(x.b, s...)
	x.b = append(x.b, '\n')
	x.c.lines++
}

// lines writes a multi-line block (a fenced code block) line by line.
func (x *w) lines(s string) {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			x.line(s)
			return
		}
		x.line(s[:i])
		s = s[i+1:]
	}
}

func (x *w) ref(uri string, line int) { x.c.refs = append(x.c.refs, ref{x.c.lines, uri, line}) }

func (x *w) done() *chunk {
	x.c.md = slices.Clip(x.b)
	return x.c
}

// link is a Markdown link to a log line; the destination is ccdag's own (a file URI, escaped).
func link(uri string, line int) string {
	return "[L" + strconv.Itoa(line+1) + "](<" + escapeURI(uri) + "#L" + strconv.Itoa(line+1) + ">)"
}

func escapeURI(u string) string {
	if !strings.ContainsAny(u, "<>() \n\r\\") {
		return u
	}
	r := strings.NewReplacer("<", "%3C", ">", "%3E", "(", "%28", ")", "%29", " ", "%20", "\n", "%0A", "\r", "%0D", "\\", "%5C")
	return r.Replace(u)
}

type run struct {
	b       *Builder
	g       *graph.Graph
	opt     Options
	out     *asm
	lanes   map[string][]*graph.Node
	spawned map[string][]*graph.Lane
	done    map[string]bool
	turn    int
}

// lane renders one lane's nodes, sub-agent lanes nested under the calls that spawned them.
func (r *run) lane(id, prefix string) {
	if r.done[id] {
		return
	}
	r.done[id] = true
	skipped := 0
	var skipFrom *graph.Node
	flush := func() {
		if skipped > 0 {
			r.out.mark(skipFrom.Location.URI, skipFrom.Rec.Line)
			r.out.text(prefix + "- ⎇ *abandoned branch* from " + link(skipFrom.Location.URI, skipFrom.Rec.Line) +
				" (" + strconv.Itoa(skipped) + " steps not shown; `--all-branches` shows them)")
			skipped = 0
		}
	}
	wasActive := true
	for _, n := range r.lanes[id] {
		if n.Rec == nil {
			continue
		}
		if n.Kind == graph.Observation && r.g.Action(n) != nil {
			continue // rendered under its call
		}
		if !n.Active && !r.opt.AllBranches {
			if skipped == 0 {
				skipFrom = n
			}
			skipped++
			continue
		}
		flush()
		if !n.Active && wasActive {
			r.out.mark(n.Location.URI, n.Rec.Line)
			r.out.text(prefix + "- ⎇ **abandoned branch** from " + link(n.Location.URI, n.Rec.Line) + ":")
		}
		wasActive = n.Active
		r.node(n, prefix)
		if n.Kind == graph.Action {
			for _, l := range r.spawned[n.ID] {
				r.agent(l, prefix+"  ")
			}
			for _, o := range r.g.Results(n) {
				r.node(o, prefix+"  ")
			}
		}
	}
	flush()
}

func (r *run) agent(l *graph.Lane, prefix string) {
	nodes := r.lanes[l.ID]
	loc := ""
	if len(nodes) > 0 && nodes[0].Rec != nil {
		loc = " · " + link(nodes[0].Location.URI, nodes[0].Rec.Line)
		r.out.mark(nodes[0].Location.URI, nodes[0].Rec.Line)
	}
	r.out.text(prefix + "> **↳ sub-agent** " + mdsafe.Code(laneTitle(l)) + loc)
	r.out.text(prefix + ">")
	r.lane(l.ID, prefix+"> ")
	r.out.text(prefix + ">")
	r.out.text(prefix + "> **↲ end of sub-agent** " + mdsafe.Code(laneTitle(l)))
}

func laneTitle(l *graph.Lane) string {
	if l.SubagentType != "" && l.SubagentType != l.Label {
		return l.SubagentType + ": " + l.Label
	}
	return l.Label
}

// node renders one node through the memo.
func (r *run) node(n *graph.Node, prefix string) {
	if n.Kind == graph.UserInput && n.Lane == graph.MainLane {
		r.turn++
	}
	nrecs, last := n.RecordCount()
	sg := sig{line: n.Rec.Line, nrecs: nrecs, last: last, active: n.Active, label: n.Label,
		status: n.Status, prefix: prefix, uri: n.Location.URI, dur: -1}
	if n.Kind == graph.UserInput && n.Lane == graph.MainLane {
		sg.turn = r.turn
	}
	if n.DurationMs != nil {
		sg.dur = *n.DurationMs
	}
	k := memoKey{n.Rec, n.Block, n.Kind}
	c := r.b.memo[k]
	if c == nil || c.sig != sg {
		c = render(n, n.Records(), sg, prefix)
		r.b.rendered++
		r.b.memo[k] = c
	}
	c.gen = r.b.gen
	r.out.add(c)
}

func render(n *graph.Node, recs []*session.Rec, sg sig, prefix string) *chunk {
	x := &w{c: &chunk{sig: sg}, prefix: prefix}
	uri, line := n.Location.URI, n.Rec.Line
	abandoned := ""
	if !n.Active {
		abandoned = " *(abandoned)*"
	}
	switch n.Kind {
	case graph.UserInput:
		x.line("")
		x.ref(uri, line)
		prompt := classify.Prompt(n.Rec, promptMax)
		if n.Lane == graph.MainLane {
			x.line("## Turn " + strconv.Itoa(sg.turn) + " · " + mdsafe.Code(mdsafe.Shorten(n.Label, 60)) + " · " + link(uri, line) + abandoned)
		} else {
			x.line("**Prompt** · " + link(uri, line))
		}
		if prompt == "" {
			prompt = promptText(n.Rec)
		}
		x.line("")
		quote(x, prompt, promptMax)
		x.line("")
	case graph.Thought:
		for _, rec := range recs {
			if rec.Has(jsonl.FlagContentString) && rec.ContentSpan.Valid() {
				x.ref(uri, rec.Line)
				block(x, text(rec.Bytes(rec.ContentSpan), textMax))
			}
			for k := range rec.Blocks {
				blk := &rec.Blocks[k]
				if !blk.BodySpan.Valid() {
					continue
				}
				switch blk.Kind {
				case jsonl.BlockText:
					x.ref(uri, rec.Line)
					block(x, text(rec.Bytes(blk.BodySpan), textMax))
				case jsonl.BlockThinking:
					x.ref(uri, rec.Line)
					x.line("<details><summary>thinking (L" + strconv.Itoa(rec.Line+1) + ")</summary>")
					x.line("")
					x.lines(mdsafe.Fenced(text(rec.Bytes(blk.BodySpan), thinkingMax)))
					x.line("")
					x.line("</details>")
					x.line("")
				}
			}
		}
	case graph.Action:
		x.ref(uri, line)
		x.line("- ▸ " + mdsafe.Code(n.Label) + " · " + link(uri, line) + abandoned)
	case graph.Observation:
		x.ref(uri, line)
		mark := "✓"
		if n.Status == "failure" {
			mark = "✗ **error**"
		}
		if sg.dur >= 0 {
			mark += " " + Duration(sg.dur)
		}
		head, rest := resultPreview(n.Rec, n.Block)
		more := ""
		if rest > 0 {
			more = " · " + Size(rest) + " more not shown"
		}
		x.line("- " + mark + " · " + link(uri, line) + more)
		if head != "" {
			x.prefix += "  "
			x.lines(mdsafe.Fenced(head))
			x.prefix = prefix
		}
	case graph.System:
		x.ref(uri, line)
		if isCompaction(n.Rec) {
			x.line("")
			x.line("---")
			x.line("")
			x.line("### ⟲ Compaction · " + link(uri, line) + abandoned)
			x.line("")
			x.line(mdsafe.Code(n.Label))
			x.line("")
		} else {
			mark := "⚙"
			if n.Status == "failure" {
				mark = "✗"
			}
			x.line("- " + mark + " " + mdsafe.Code(n.Label) + " · " + link(uri, line) + abandoned)
		}
	}
	return x.done()
}

func isCompaction(r *session.Rec) bool {
	return r.Type == "system" && (r.Subtype == "compact_boundary" || r.LogicalParent != "")
}

// quote writes text as a quoted fenced block.
func quote(x *w, s string, max int) {
	p := x.prefix
	x.prefix += "> "
	x.lines(mdsafe.Fenced(classify.Cut(s, max)))
	x.prefix = p
}

func block(x *w, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	x.line("")
	x.lines(mdsafe.Fenced(s))
	x.line("")
}

// promptText is what a user record says: its string content, or its text blocks ("[image]" for
// images).
func promptText(r *session.Rec) string {
	if r.Has(jsonl.FlagContentString) && r.ContentSpan.Valid() {
		return text(r.Bytes(r.ContentSpan), promptMax)
	}
	var parts []string
	for k := range r.Blocks {
		blk := &r.Blocks[k]
		switch {
		case blk.Kind == jsonl.BlockText && blk.BodySpan.Valid():
			parts = append(parts, text(r.Bytes(blk.BodySpan), promptMax))
		case blk.Kind == jsonl.BlockImage:
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n\n")
}

// text decodes a JSON string value (quotes included), at most max bytes of it, saying how much
// was left out.
func text(raw []byte, max int) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if len(body) <= max {
		return strings.ToValidUTF8(jsonscan.Unescape(body), "\uFFFD")
	}
	// Do not cut an escape in half.
	k := max
	for j := k - 1; j >= 0 && j >= k-6; j-- {
		if body[j] == '\\' {
			k = j
			break
		}
	}
	return classify.Cut(strings.ToValidUTF8(jsonscan.Unescape(body[:k]), "\uFFFD"), max) + "\n… (" + Size(len(body)-k) + " more)"
}

// resultPreview returns a tool result's first lines, and the size of the rest (in the log's bytes).
func resultPreview(r *session.Rec, block int) (head string, rest int) {
	if block < 0 || block >= len(r.Blocks) || !r.Blocks[block].BodySpan.Valid() {
		return "", 0
	}
	raw := r.Bytes(r.Blocks[block].BodySpan)
	if len(raw) > 0 && raw[0] == '[' {
		raw = firstText(raw)
		if raw == nil {
			return "[image or other content]", 0
		}
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", 0
	}
	body := raw[1 : len(raw)-1]
	s := text(raw, resultBytes*2)
	s = strings.TrimRight(strings.SplitN(s, "\n… (", 2)[0], "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > resultLines {
		lines = lines[:resultLines]
	}
	head = classify.Cut(strings.Join(lines, "\n"), resultBytes)
	shown := len(head) // decoded bytes; the rest is measured in the log's (escaped) bytes
	if shown < len(body) {
		rest = len(body) - min(len(body), rawLen(body, shown))
	}
	return head, rest
}

// rawLen returns how many escaped bytes of body decode to n bytes (an approximation that errs on
// the long side: escapes count double).
func rawLen(body []byte, n int) int {
	i, got := 0, 0
	for i < len(body) && got < n {
		if body[i] == '\\' && i+1 < len(body) {
			if body[i+1] == 'u' {
				i += 6
				got += 3
				continue
			}
			i += 2
			got++
			continue
		}
		i++
		got++
	}
	return min(i, len(body))
}

// firstText returns the first "text" string of a content array, or nil.
func firstText(raw []byte) []byte {
	var found []byte
	jsonscan.ArrayElems(raw, 0, func(start int) (int, error) {
		end, err := jsonscan.ValueEnd(raw, start)
		if err != nil || found != nil || raw[jsonscan.SkipSpace(raw, start)] != '{' {
			return end, err
		}
		jsonscan.ObjectFields(raw, start, func(key []byte, v int) (int, error) {
			e, err := jsonscan.ValueEnd(raw, v)
			if err == nil && string(key) == "text" {
				vs := jsonscan.SkipSpace(raw, v)
				if raw[vs] == '"' {
					found = raw[vs:e]
				}
			}
			return e, err
		})
		return end, nil
	})
	return found
}

// Duration writes milliseconds as "120 ms", "3.4 s", "2 min 5 s".
func Duration(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
	case ms < 3_600_000:
		return strconv.FormatInt(ms/60_000, 10) + " min " + strconv.FormatInt(ms%60_000/1000, 10) + " s"
	}
	return strconv.FormatInt(ms/3_600_000, 10) + " h " + strconv.FormatInt(ms%3_600_000/60_000, 10) + " min"
}

// Size writes a byte count as "950 B", "2.1 KB", "3.4 MB".
func Size(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " B"
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " KB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// NotJSONL is the whole transcript of a file that is not JSON Lines (docs/spec.md §2 not-jsonl):
// a message saying so, nothing from its content.
func NotJSONL(path, uri string) *Result {
	return &Result{
		Markdown: "# Not a session log\n\n" + mdsafe.Code(filepath.Base(path)) +
			" is not JSON Lines (none of its first lines is a JSON object): it has no transcript.\n",
		Lines: []Line{{Transcript: 0, URI: uri, Line: 0}},
	}
}
