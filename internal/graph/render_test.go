package graph

import (
	"bufio"
	"bytes"
	stdjson "encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
)

// hostileTexts are log texts a renderer must show as themselves: syntax of DOT, Mermaid, HTML and
// Markdown, escapes, and characters that change how text is displayed.
var hostileTexts = []string{
	`"quoted" 'single' \"escaped\" \n not a newline \\ two`,
	`<script>alert(1)</script><img src=x onerror=alert(2)>`,
	`]] [[x]] | a|b {x} {{y}} (z) ((w)) [/p/] >q] <r>`,
	`#quot; #35; &amp; &lt;b&gt; &#60; #lt;b#gt; #`,
	"`code` ```fence``` **bold** _it_ ~~s~~ <br> <b>b</b>",
	`end subgraph x --> y -.-> z ==> w %% comment ::: cls; style n1 fill:#f00`,
	`click n1 call alert() "tip"; linkStyle 0 stroke:red`,
	`digraph { a -> b } \N \G \l \r label=<b>x</b> "];`,
	"emoji 🎉👩‍👩‍👧 CJK 日本語 한국어 RTL \u202eevil\u202c zero\u200bwidth",
	"tab\there\r\ncrlf\u2028line sep ESC \x1b[31mred\x1b[0m NUL-free",
	`[link](http://x) ![img](x) - list 1. item > quote *a* __b__ ***c*** \*d\* ~e~ ^f^ :smile:`,
	`style x fill:#f00; classDef y color:#0f0; a;b`,
	`- item`,
	`1. first`,
	`> quoted`,
	`    indented code`,
}

// writeHostileSession writes a session whose prompts, thoughts, tool inputs, results and agent
// type carry hostileTexts, and returns its main log's path.
func writeHostileSession(t *testing.T) string {
	dir := t.TempDir()
	sid := "0b0000ff-ffff-4fff-8fff-0000000000ff"
	var main bytes.Buffer
	n := 0
	id := func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	put := func(w *bytes.Buffer, m map[string]any) string {
		m["sessionId"] = sid
		m["timestamp"] = "2025-06-01T10:00:00.000Z"
		u := id()
		m["uuid"] = u
		b, err := stdjson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		w.WriteByte('\n')
		return u
	}
	parent := any(nil)
	for i, s := range hostileTexts {
		u := put(&main, map[string]any{"type": "user", "parentUuid": parent, "message": map[string]any{"role": "user", "content": s}})
		tid := fmt.Sprintf("toolu_%d", i)
		a := put(&main, map[string]any{"type": "assistant", "parentUuid": u, "requestId": fmt.Sprintf("req_%d", i), "message": map[string]any{
			"id": fmt.Sprintf("msg_%d", i), "role": "assistant", "model": "m",
			"content": []any{map[string]any{"type": "text", "text": s}, map[string]any{"type": "tool_use", "id": tid, "name": "Bash", "input": map[string]any{"command": s}}}}})
		parent = put(&main, map[string]any{"type": "user", "parentUuid": a, "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": tid, "content": s}}}})
	}
	// a sub-agent whose type is hostile too
	a := put(&main, map[string]any{"type": "assistant", "parentUuid": parent, "requestId": "req_x", "message": map[string]any{
		"id": "msg_x", "role": "assistant", "model": "m",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_x", "name": "Task", "input": map[string]any{"description": hostileTexts[1], "prompt": "p", "subagent_type": hostileTexts[0]}}}}})
	put(&main, map[string]any{"type": "user", "parentUuid": a, "toolUseResult": map[string]any{"agentId": "abcdef12", "status": "completed"},
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_x", "content": hostileTexts[5]}}}})
	var agent bytes.Buffer
	put(&agent, map[string]any{"type": "user", "parentUuid": nil, "isSidechain": true, "agentId": "abcdef12", "message": map[string]any{"role": "user", "content": "p"}})
	path := filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(path, main.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent-abcdef12.jsonl"), agent.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func hostileGraph(t *testing.T) *Graph {
	s, err := layout.Load(writeHostileSession(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := Build(s)
	if len(g.Lanes) != 2 || g.Lanes[1].SubagentType == "" {
		t.Fatalf("hostile session: lanes %+v", g.Lanes)
	}
	return g
}

func TestLabelsAreOneSafeLine(t *testing.T) {
	g := hostileGraph(t)
	for _, n := range g.Nodes {
		for _, r := range n.Label {
			if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u202e' || r == '\u202c' {
				t.Errorf("%s label %q holds %U", n.ID, n.Label, r)
			}
		}
		if len([]rune(n.Label)) > LabelMax {
			t.Errorf("%s label is %d characters", n.ID, len([]rune(n.Label)))
		}
	}
	if got := oneLine("tab\there\r\ncrlf ESC \x1b[31mred\x1b[0m."); got != "tab here crlf ESC red." {
		t.Errorf("oneLine: %q", got)
	}
	long := oneLine(strings.Repeat("ab ", 100))
	if len([]rune(long)) != LabelMax || !strings.HasSuffix(long, "…") {
		t.Errorf("oneLine cut: %q (%d)", long, len([]rune(long)))
	}
}

// svgLabels returns, per node title, the text Graphviz drew in the node.
func svgLabels(t *testing.T, svg []byte) map[string]string {
	dec := xml.NewDecoder(bytes.NewReader(svg))
	dec.Strict = false
	out := map[string]string{}
	var node, title string
	inTitle, inText, depth := false, false, 0
	nodeDepth := -1
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			for _, a := range e.Attr {
				if e.Name.Local == "g" && a.Name.Local == "class" && a.Value == "node" {
					nodeDepth, node, title = depth, "", ""
				}
			}
			inTitle = e.Name.Local == "title" && nodeDepth > 0
			inText = e.Name.Local == "text" && nodeDepth > 0
		case xml.EndElement:
			if depth == nodeDepth {
				out[title] = node
				nodeDepth = -1
			}
			depth--
			inTitle, inText = false, false
		case xml.CharData:
			if inTitle {
				title += string(e)
			}
			if inText {
				node += string(e)
			}
		}
	}
}

// TestDOTLabelsSurviveGraphviz renders the hostile session with Graphviz and reads back the text
// of every node.
func TestDOTLabelsSurviveGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("graphviz (dot) is not installed, and CI is set")
		}
		t.Skip("SKIP: graphviz (dot) is not installed")
	}
	g := hostileGraph(t)
	var in bytes.Buffer
	if err := WriteDOT(&in, g); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	svg, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("dot: %v\n%s\n%s", err, stderr.String(), in.String())
	}
	got := svgLabels(t, svg)
	for _, n := range g.Nodes {
		if got[n.ID] != n.Label {
			t.Errorf("%s: Graphviz shows %q, want %q", n.ID, got[n.ID], n.Label)
		}
	}
	for _, l := range g.Lanes[1:] {
		if !bytes.Contains(svg, []byte(xmlEscape(laneTitle(&l)))) {
			t.Errorf("lane title %q is not in the SVG", laneTitle(&l))
		}
	}
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), "&#34;", "&quot;")
}

// TestMermaidRendersInChromium renders every fixture's Mermaid and the hostile session's with
// Mermaid itself, in Chromium, and checks that each node shows exactly its label, as text.
func TestMermaidRendersInChromium(t *testing.T) {
	need := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s, and CI is set (.ci/install.d/50-graph.sh installs it)", what)
		}
		t.Skip("SKIP: " + what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		need("node is not installed")
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		if chromium, err = exec.LookPath("chromium"); err != nil {
			need("chromium is not installed")
		}
	}
	if _, err := os.Stat("testdata/mermaid/node_modules/mermaid"); err != nil {
		need("testdata/mermaid has no node_modules (npm ci there)")
	}
	dir := t.TempDir()
	want := map[string]*Graph{}
	var files []string
	add := func(name string, g *Graph) {
		p := filepath.Join(dir, name+".mmd")
		var b bytes.Buffer
		if err := WriteMermaid(&b, g); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		want[p] = g
		files = append(files, p)
	}
	add("hostile", hostileGraph(t))
	for _, name := range cases(t) {
		_, g := fixture(t, filepath.Join(fixtures, name))
		add(name, g)
	}
	cmd := exec.Command(node, append([]string{"testdata/mermaid/render.mjs"}, files...)...)
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("render.mjs: %v\n%s", err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var res struct {
			File     string            `json:"file"`
			OK       bool              `json:"ok"`
			Error    string            `json:"error"`
			Labels   map[string]string `json:"labels"`
			Clusters []string          `json:"clusters"`
			Markup   []string          `json:"markup"`
			Scripts  int               `json:"scripts"`
		}
		if err := stdjson.Unmarshal(sc.Bytes(), &res); err != nil {
			t.Fatalf("render.mjs output: %v: %s", err, sc.Text())
		}
		seen++
		g := want[res.File]
		name := filepath.Base(res.File)
		if !res.OK || g == nil {
			t.Errorf("%s: Mermaid failed: %s", name, res.Error)
			continue
		}
		if len(res.Markup) > 0 || res.Scripts > 0 {
			t.Errorf("%s: log text became markup: %v (scripts: %d)", name, res.Markup, res.Scripts)
		}
		for _, n := range g.Nodes {
			if got, ok := res.Labels[n.ID]; !ok || got != n.Label {
				t.Errorf("%s %s: Mermaid shows %q, want %q", name, n.ID, got, n.Label)
			}
		}
		var titles []string
		for i, members := range lanesWithNodes(g) {
			if len(members) > 0 {
				titles = append(titles, laneTitle(&g.Lanes[i]))
			}
		}
		slices.Sort(titles)
		slices.Sort(res.Clusters)
		if !slices.Equal(titles, res.Clusters) {
			t.Errorf("%s: Mermaid lane titles %q, want %q", name, res.Clusters, titles)
		}
	}
	if seen != len(files) {
		t.Errorf("render.mjs reported %d of %d files", seen, len(files))
	}
}
