package graph

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// WriteJSON writes g as docs/spec.md §4's JSON document (one line, newline-terminated). '<', '>' and '&'
// are written as \u escapes, so the document can be embedded in HTML as is.
func WriteJSON(w io.Writer, g *Graph) error {
	_, err := w.Write(append(AppendJSON(nil, g), '\n'))
	return err
}

// Node and edge styles, shared by the renderers: a node kind is told by its shape (and colour),
// an edge kind by its line style.
var kindStyle = map[Kind]struct {
	dotShape, fill, stroke, class string
	mmOpen, mmClose               string
}{
	UserInput:   {"box", "#dbeafe", "#1d4ed8", "user", `(["`, `"])`},
	Thought:     {"ellipse", "#ede9fe", "#6d28d9", "thought", `("`, `")`},
	Action:      {"box", "#fef3c7", "#b45309", "action", `["`, `"]`},
	Observation: {"note", "#dcfce7", "#15803d", "observation", `[/"`, `"/]`},
	System:      {"hexagon", "#f3f4f6", "#4b5563", "system", `{{"`, `"}}`},
}

const (
	failFill, failStroke = "#fee2e2", "#b91c1c"
	inactiveFont         = "#6b7280"
)

var edgeStyle = map[EdgeKind]struct{ dot, mermaid string }{
	Flow:    {``, `-->`},
	Tool:    {` [style=bold]`, `==>`},
	Spawn:   {` [style=dashed, color="#2563eb", fontcolor="#2563eb", label="spawn"]`, `-.->|spawn|`},
	Return:  {` [style=dashed, color="#16a34a", fontcolor="#16a34a", label="return"]`, `-.->|return|`},
	Compact: {` [style=dotted, color="#9333ea", fontcolor="#9333ea", label="compact"]`, `-.->|compact|`},
}

// laneTitle is how renderers head a lane: "main", or "Explore · agent 80f146b4".
func laneTitle(l *Lane) string {
	t := l.Label
	if l.AgentID != "" && l.AgentID != l.Label {
		t += " · agent " + l.AgentID
	}
	if t == "" {
		t = l.ID
	}
	return oneLine(t)
}

// lanesWithNodes returns the lanes in order with the positions of their nodes.
func lanesWithNodes(g *Graph) [][]int {
	members := make([][]int, len(g.Lanes))
	for i := range g.Nodes {
		if l, ok := g.laneIndex[g.Nodes[i].Lane]; ok {
			members[l] = append(members[l], i)
		}
	}
	return members
}

// dotString quotes s for DOT: inside double quotes only '"' and '\' need escaping, and escaping
// every backslash also keeps Graphviz from reading \N, \l, ... as label escapes. Line breaks
// become spaces (labels are single-line already; ids and titles are made so).
func dotString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '&': // Graphviz reads HTML entities (&amp;, &#60;) in labels
			b.WriteString("&amp;")
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// WriteDOT writes g for Graphviz: one cluster per lane, node kinds by shape, edge kinds by style,
// abandoned branches dashed and grey, failures red.
func WriteDOT(w io.Writer, g *Graph) error { return WriteDOTShown(w, g, nil) }

// WriteDOTShown is WriteDOT with shown (nil: none) applied to each text of the log it writes — the
// session id, lane titles, node labels — before DOT's escaping (see WriteMermaidShown).
func WriteDOTShown(w io.Writer, g *Graph, shown func(string) string) error {
	shown = orAsIs(shown)
	bw := bufio.NewWriter(w)
	p := func(parts ...string) {
		for _, s := range parts {
			bw.WriteString(s)
		}
		bw.WriteByte('\n')
	}
	p("// ccdag workflow graph of session ", strings.ReplaceAll(shown(oneLine(g.Session.ID)), "\n", " "))
	p("digraph ccdag {")
	p(`  graph [rankdir=TB, newrank=true, fontname="Helvetica", fontsize=11, labelloc=t, label=`, dotString("session "+shown(oneLine(g.Session.ID))), `];`)
	p(`  node [fontname="Helvetica", fontsize=10, style="filled", penwidth=1.2];`)
	p(`  edge [fontname="Helvetica", fontsize=9, color="#4b5563"];`)
	for li, members := range lanesWithNodes(g) {
		if len(members) == 0 {
			continue
		}
		l := &g.Lanes[li]
		p()
		p(`  subgraph `, dotString("cluster_"+strconv.Itoa(li)), ` {`)
		p(`    label=`, dotString(shown(laneTitle(l))), `; style="rounded,filled"; color="#9ca3af"; fillcolor="`, laneFill(l), `";`)
		for _, i := range members {
			n := &g.Nodes[i]
			st := kindStyle[n.Kind]
			fill, stroke, style, font := st.fill, st.stroke, "filled", "#111827"
			if n.Kind == UserInput {
				style = "rounded,filled"
			}
			if n.Status == "failure" {
				fill, stroke = failFill, failStroke
			}
			if !n.Active {
				style += ",dashed"
				font = inactiveFont
			}
			p(`    `, dotString(n.ID), ` [shape=`, st.dotShape, `, style="`, style, `", fillcolor="`, fill, `", color="`, stroke,
				`", fontcolor="`, font, `", label=`, dotString(shown(drawnLabel(n))), `, tooltip=`, dotString(n.ID+" "+string(n.Kind)), `];`)
		}
		p(`  }`)
	}
	if len(g.Edges) > 0 {
		p()
	}
	for _, e := range g.Edges {
		p(`  `, dotString(e.Source), ` -> `, dotString(e.Target), edgeStyle[e.Kind].dot, `;`)
	}
	p("}")
	return bw.Flush()
}

func laneFill(l *Lane) string {
	if l.ID == MainLane {
		return "#ffffff"
	}
	return "#f9fafb"
}

// mermaidText makes s safe inside a Mermaid double-quoted label. The characters Mermaid, the
// Markdown it applies to labels, or the HTML it renders to would read as syntax become entity
// codes, which Mermaid shows as the characters themselves ('#' first, as it starts those codes):
// quotes, '<', '>', '&', '`', '\' (Mermaid turns a literal \n into a line break), '*' and '_'
// (emphasis). Mermaid also drops the last ';' of any line where "style" or "classDef" is followed
// by ':' and '#': their first letter is written as a code too.
func mermaidText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case '#':
			b.WriteString("#35;")
		case '"':
			b.WriteString("#quot;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '&':
			b.WriteString("#amp;")
		case '`':
			b.WriteString("#96;")
		case '\\':
			b.WriteString("#92;")
		case '*':
			b.WriteString("#42;")
		case '_':
			b.WriteString("#95;")
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case 's':
			if strings.HasPrefix(s[i:], "style") {
				b.WriteString("#115;")
			} else {
				b.WriteByte('s')
			}
		case 'c':
			if strings.HasPrefix(s[i:], "classDef") {
				b.WriteString("#99;")
			} else {
				b.WriteByte('c')
			}
		default:
			if r < 0x20 || r == 0x7f {
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteMermaid writes g as a Mermaid flowchart: one subgraph per lane, node kinds by shape and
// class, edge kinds by arrow (flow -->, tool ==>, spawn/return/compact dotted and labelled).
func WriteMermaid(w io.Writer, g *Graph) error { return WriteMermaidShown(w, g, nil) }

// WriteMermaidShown is WriteMermaid with shown (nil: none) applied to each text of the log it
// writes — the session id, lane titles, node labels — before Mermaid's escaping: a secrets.Mask
// finds a secret's runs of 8 bytes only before '_' and '*' become #95; and #42;, which cut it into
// pieces it no longer looks for (docs/spec.md §15).
func WriteMermaidShown(w io.Writer, g *Graph, shown func(string) string) error {
	shown = orAsIs(shown)
	bw := bufio.NewWriter(w)
	p := func(parts ...string) {
		for _, s := range parts {
			bw.WriteString(s)
		}
		bw.WriteByte('\n')
	}
	p("%% ccdag workflow graph of session ", mermaidText(shown(oneLine(g.Session.ID))))
	p("flowchart TB")
	classes := map[string][]string{}
	var order []string
	addClass := func(c, id string) {
		if _, ok := classes[c]; !ok {
			order = append(order, c)
		}
		classes[c] = append(classes[c], id)
	}
	for li, members := range lanesWithNodes(g) {
		if len(members) == 0 {
			continue
		}
		l := &g.Lanes[li]
		p(`  subgraph lane`, strconv.Itoa(li), `["`, mermaidText(shown(laneTitle(l))), `"]`)
		p(`    direction TB`)
		for _, i := range members {
			n := &g.Nodes[i]
			st := kindStyle[n.Kind]
			p(`    `, n.ID, st.mmOpen, mermaidText(shown(drawnLabel(n))), st.mmClose)
			addClass(st.class, n.ID)
			if n.Status == "failure" {
				addClass("failure", n.ID)
			}
			if !n.Active {
				addClass("inactive", n.ID)
			}
		}
		p(`  end`)
	}
	for _, e := range g.Edges {
		p(`  `, e.Source, ` `, edgeStyle[e.Kind].mermaid, ` `, e.Target)
	}
	for _, k := range []Kind{UserInput, Thought, Action, Observation, System} {
		st := kindStyle[k]
		p(`  classDef `, st.class, ` fill:`, st.fill, `,stroke:`, st.stroke, `,color:#111827`)
	}
	p(`  classDef failure fill:`, failFill, `,stroke:`, failStroke)
	p(`  classDef inactive stroke-dasharray:5 4,color:`, inactiveFont)
	for _, c := range order {
		ids := classes[c]
		for len(ids) > 0 { // keep lines short: 50 ids per class statement
			k := min(len(ids), 50)
			p(`  class `, strings.Join(ids[:k], ","), ` `, c)
			ids = ids[k:]
		}
	}
	return bw.Flush()
}

// orAsIs is shown, or the text as it is when nil.
func orAsIs(shown func(string) string) func(string) string {
	if shown == nil {
		return func(s string) string { return s }
	}
	return shown
}

// drawnLabel is a node's label, with the count of nodes it stands for in a collapsed graph.
func drawnLabel(n *Node) string {
	if n.Members > 1 {
		return n.Label + " (+" + strconv.Itoa(n.Members-1) + " nodes)"
	}
	return n.Label
}
