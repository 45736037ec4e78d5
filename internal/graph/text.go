package graph

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/fileuri"
)

// The workflow graph as text (`ccdag graph --format text`, and the graph request's "format":
// "text"): the one text drawing every editor shows. A header, a legend, then a section per lane
// with a line per node, a tree over the lane's flow: a chain keeps its indentation, at a fork
// every branch but the continuation (the last active one) is indented and marked ↳. A node line
// starts with its record's line number; TextLine gives its location.

// TextLine is a line of the text that shows a node: where the node's record is.
type TextLine struct {
	Row      int      `json:"row"` // 0-based line of the text
	Location Location `json:"location"`
}

var textMarks = map[Kind]string{UserInput: "[U]", Thought: "[T]", Action: "[A]", Observation: "[O]", System: "[S]"}

// textLegend explains the marks.
const textLegend = "[U] user  [T] reply/thinking  [A] action  [O] result  [S] system  [x] inactive branch  ↳ fork  ⇒ spawn"

// Text draws g as text and returns it with the rows that show a node.
func Text(g *Graph) (string, []TextLine) {
	t := textDrawing{g: g, byID: make(map[string]int, len(g.Nodes))}
	return t.draw()
}

type textDrawing struct {
	g     *Graph
	byID  map[string]int // node id → index
	lines []string
	locs  []TextLine
}

func (t *textDrawing) draw() (string, []TextLine) {
	g := t.g
	for i := range g.Nodes {
		t.byID[g.Nodes[i].ID] = i
	}
	lanes := t.lanes()
	preds, notes := t.links()
	laneLabel := map[string]string{}
	for _, l := range lanes {
		laneLabel[l.ID] = cmpOr(l.Label, l.ID)
	}
	laneFile := map[string]string{}
	for _, f := range g.Session.Files {
		if _, ok := laneFile[f.Lane]; f.Lane != "" && !ok {
			laneFile[f.Lane] = uriBase(f.URI)
		}
	}
	t.lines = append(t.lines, fmt.Sprintf("Session %s: %d nodes, %d edges, %d lanes", g.Session.ID, len(g.Nodes), len(g.Edges), len(lanes)), textLegend)
	for _, lane := range lanes {
		var members []int
		for i := range g.Nodes {
			if g.Nodes[i].Lane == lane.ID {
				members = append(members, i)
			}
		}
		t.lines = append(t.lines, "", t.laneHead(lane, laneFile[lane.ID], len(members)))
		t.tree(members, preds, func(i, indent int, fork bool) { t.node(i, indent, fork, notes, laneLabel) })
	}
	return strings.Join(t.lines, "\n") + "\n", t.locs
}

// lanes are the graph's lanes in its order, then any lane only nodes name.
func (t *textDrawing) lanes() []Lane {
	var lanes []Lane
	seen := map[string]bool{}
	for _, l := range t.g.Lanes {
		if !seen[l.ID] {
			seen[l.ID] = true
			lanes = append(lanes, l)
		}
	}
	for _, n := range t.g.Nodes {
		if n.Lane != "" && !seen[n.Lane] {
			seen[n.Lane] = true
			lanes = append(lanes, Lane{ID: n.Lane, Label: n.Lane})
		}
	}
	return lanes
}

// nodeNotes are what edges to other lanes (and compactions) say beside a node.
type nodeNotes struct {
	spawns   map[int][]string // lanes a node spawned
	returns  map[int]string   // the lane that returned to a node
	compacts map[int]string   // the node a compaction continues
}

// links are each node's predecessors within its lane (flow and tool edges, in the graph's order)
// and the notes of the other edges.
func (t *textDrawing) links() (map[int][]int, nodeNotes) {
	preds := map[int][]int{}
	seen := map[[2]int]bool{}
	notes := nodeNotes{spawns: map[int][]string{}, returns: map[int]string{}, compacts: map[int]string{}}
	for _, e := range t.g.Edges {
		s, ok1 := t.byID[e.Source]
		d, ok2 := t.byID[e.Target]
		if !ok1 || !ok2 {
			continue
		}
		sn, dn := &t.g.Nodes[s], &t.g.Nodes[d]
		switch {
		case (e.Kind == Flow || e.Kind == Tool) && sn.Lane == dn.Lane && s < d:
			if !seen[[2]int{s, d}] {
				seen[[2]int{s, d}] = true
				preds[d] = append(preds[d], s)
			}
		case e.Kind == Spawn:
			notes.spawns[s] = append(notes.spawns[s], dn.Lane)
		case e.Kind == Return:
			notes.returns[d] = sn.Lane
		case e.Kind == Compact:
			notes.compacts[d] = sn.ID
		}
	}
	return preds, notes
}

func (t *textDrawing) laneHead(lane Lane, file string, members int) string {
	head := "== " + cmpOr(lane.Label, lane.ID)
	if lane.ID != "main" && lane.ID != lane.Label {
		head += " (" + lane.ID + ")"
	}
	if lane.Depth != 0 {
		head += fmt.Sprintf(", depth %d", lane.Depth)
	}
	if p, ok := t.byID[lane.ParentNode]; ok && lane.ParentNode != "" {
		head += fmt.Sprintf(", spawned at L%d", t.g.Nodes[p].Location.Range.Start.Line+1)
	}
	if file != "" {
		head += ", " + file
	}
	return head + fmt.Sprintf(", %d nodes ==", members)
}

// tree walks a lane's nodes depth first as a tree: a node's tree parent is its one predecessor,
// or for a join (several) their nearest common ancestor, so that the join continues the fork.
func (t *textDrawing) tree(members []int, preds map[int][]int, emit func(i, indent int, fork bool)) {
	parent, depth, children := map[int]int{}, map[int]int{}, map[int][]int{}
	var roots []int
	lca := func(a, b int) (int, bool) {
		for a != b {
			if a < 0 || b < 0 {
				return 0, false
			}
			if depth[a] >= depth[b] {
				a = parentOr(parent, a)
			} else {
				b = parentOr(parent, b)
			}
		}
		return a, true
	}
	for _, n := range members {
		ps := preds[n]
		p, has := 0, len(ps) > 0
		if has {
			p = ps[0]
			for _, q := range ps[1:] {
				if p, has = lca(p, q); !has {
					break
				}
			}
			if !has {
				p, has = ps[len(ps)-1], true
			}
		}
		if _, placed := depth[p]; has && placed {
			parent[n], depth[n] = p, depth[p]+1
			children[p] = append(children[p], n)
		} else {
			depth[n] = 0
			roots = append(roots, n)
		}
	}
	type item struct {
		node, indent int
		fork         bool
	}
	var stack []item
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{roots[i], 0, false})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		emit(it.node, it.indent, it.fork)
		kids := children[it.node]
		if len(kids) == 1 {
			stack = append(stack, item{kids[0], it.indent, false})
			continue
		}
		if len(kids) == 0 {
			continue
		}
		cont := len(kids) - 1
		for i := len(kids) - 1; i >= 0; i-- {
			if t.g.Nodes[kids[i]].Active {
				cont = i
				break
			}
		}
		stack = append(stack, item{kids[cont], it.indent, false})
		for i := len(kids) - 1; i >= 0; i-- {
			if i != cont {
				stack = append(stack, item{kids[i], it.indent + 1, true})
			}
		}
	}
}

func parentOr(parent map[int]int, n int) int {
	if p, ok := parent[n]; ok {
		return p
	}
	return -1
}

func (t *textDrawing) node(i, indent int, fork bool, notes nodeNotes, laneLabel map[string]string) {
	n := &t.g.Nodes[i]
	text, ok := textMarks[n.Kind]
	if !ok {
		text = "[" + string(n.Kind) + "]"
	}
	if !n.Active {
		text = "[x] " + text
	}
	label := textLine(n.Label, 90)
	if n.Kind == Action && n.ToolName != "" && !strings.Contains(label, n.ToolName) {
		label = n.ToolName + ": " + label
	}
	text += " " + label
	var extra []string
	if n.Kind == Observation && n.Status != "" {
		extra = append(extra, n.Status)
	}
	if n.Status == "failure" && n.Kind != Observation {
		extra = append(extra, "failure")
	}
	if n.DurationMs != nil && *n.DurationMs > 0 {
		extra = append(extra, fmt.Sprintf("%.1fs", float64(*n.DurationMs)/1000))
	}
	for _, l := range notes.spawns[i] {
		extra = append(extra, "⇒ "+cmpOr(laneLabel[l], l))
	}
	if l, ok := notes.returns[i]; ok {
		extra = append(extra, "⇐ "+cmpOr(laneLabel[l], l))
	}
	if c, ok := notes.compacts[i]; ok {
		extra = append(extra, "compacted from "+c)
	}
	if len(extra) > 0 {
		text += "  (" + strings.Join(extra, ", ") + ")"
	}
	prefix := strings.Repeat("  ", indent) + "  "
	if fork {
		prefix = strings.Repeat("  ", indent) + "↳ "
	}
	t.locs = append(t.locs, TextLine{Row: len(t.lines), Location: n.Location})
	t.lines = append(t.lines, fmt.Sprintf("%7d %s%s", n.Location.Range.Start.Line+1, prefix, text))
}

// textLine is s on one line: control characters and runs of white space as one space, trimmed,
// cut to max characters with an ellipsis.
func textLine(s string, max int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r == ' '
	}), " ")
	if utf8.RuneCountInString(s) > max {
		cut, n := 0, 0
		for cut = range s {
			if n == max-1 {
				break
			}
			n++
		}
		s = s[:cut] + "…"
	}
	return s
}

// uriBase is the file name a URI ends with.
func uriBase(uri string) string {
	if p, ok := fileuri.ToPath(uri); ok {
		return filepath.Base(p)
	}
	return path.Base(uri)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
