package graphhtml

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const hostile = `</script><script>alert(1)</script>`

func sampleGraph(label string) []byte {
	g := map[string]any{
		"session": map[string]any{"id": "s1", "files": []any{}},
		"lanes":   []any{map[string]any{"id": "main", "label": "main"}},
		"nodes": []any{
			map[string]any{"id": "n1", "kind": "USER_INPUT", "lane": "main", "label": label, "active": true},
			map[string]any{"id": "n2", "kind": "THOUGHT", "lane": "main", "label": "ok <b>&amp;</b> \u2028\u2029 <!-- x -->", "active": true},
		},
		"edges": []any{map[string]any{"source": "n1", "target": "n2", "kind": "flow"}},
	}
	// Raw, as a producer that does not escape for HTML would write it.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(g); err != nil {
		panic(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(hostile)) && strings.Contains(label, "<") {
		panic("the sample graph is escaped already")
	}
	return b.Bytes()
}

func render(t *testing.T, graph []byte, title string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, graph, title); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

var (
	cspMeta   = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	scriptTag = regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`)
	styleTag  = regexp.MustCompile(`(?s)<style([^>]*)>(.*?)</style>`)
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// directives parses a CSP into directive -> sources.
func directives(csp string) map[string][]string {
	out := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			continue
		}
		out[f[0]] = f[1:]
	}
	return out
}

func TestCSPPresentAndStrict(t *testing.T) {
	page := render(t, sampleGraph("hello"), "demo.jsonl")
	m := cspMeta.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content-Security-Policy meta element")
	}
	// The CSP must come before any script or style so that it governs them.
	if i := strings.Index(page, m[0]); i > strings.Index(page, "<script") || i > strings.Index(page, "<style") {
		t.Error("the CSP meta element comes after a script or style element")
	}
	d := directives(html.UnescapeString(m[1]))
	if got := d["default-src"]; len(got) != 1 || got[0] != "'none'" {
		t.Errorf("default-src = %v, want 'none'", got)
	}
	if got := d["img-src"]; len(got) != 1 || got[0] != "data:" {
		t.Errorf("img-src = %v, want data:", got)
	}
	for _, name := range []string{"script-src", "style-src"} {
		for _, src := range d[name] {
			if !strings.HasPrefix(src, "'sha256-") {
				t.Errorf("%s allows %s: only hashes are allowed", name, src)
			}
		}
	}
	for _, name := range []string{"connect-src", "frame-src", "object-src"} {
		if _, ok := d[name]; ok {
			t.Errorf("%s widens default-src 'none'", name)
		}
	}
}

func TestHashesMatchInlineScriptsAndStyles(t *testing.T) {
	page := render(t, sampleGraph("hello"), "demo")
	d := directives(html.UnescapeString(cspMeta.FindStringSubmatch(page)[1]))

	var scripts, styles []string
	executable := 0
	for _, m := range scriptTag.FindAllStringSubmatch(page, -1) {
		if strings.Contains(m[1], `type="application/json"`) {
			continue // inert data, not run
		}
		executable++
		scripts = append(scripts, sha(m[2]))
	}
	for _, m := range styleTag.FindAllStringSubmatch(page, -1) {
		styles = append(styles, sha(m[2]))
	}
	if executable != 2 {
		t.Errorf("%d executable inline scripts, want 2 (viewer, boot)", executable)
	}
	same := func(name string, want, got []string) {
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, " ") != strings.Join(got, " ") {
			t.Errorf("%s hashes %v do not match the inline elements %v", name, got, want)
		}
	}
	same("script-src", scripts, d["script-src"])
	same("style-src", styles, d["style-src"])
}

func TestHostileLabelStaysInsideJSON(t *testing.T) {
	graph := sampleGraph(hostile)
	page := render(t, graph, hostile)

	const open = `<script type="application/json" id="graph">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatal("no JSON block")
	}
	rest := page[i+len(open):]
	j := strings.Index(strings.ToLower(rest), "</script")
	if j < 0 {
		t.Fatal("JSON block not closed")
	}
	block := rest[:j]
	// The block must be the whole graph: had the label closed it early, it would not parse.
	var got, want any
	if err := json.Unmarshal([]byte(block), &got); err != nil {
		t.Fatalf("the JSON block does not parse (was it cut short?): %v\n%.300s", err, block)
	}
	if err := json.Unmarshal(graph, &want); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Errorf("the JSON block is not the graph:\n got %s\nwant %s", gb, wb)
	}
	for _, bad := range []string{"<", ">", "&", "\u2028", "\u2029"} {
		if strings.Contains(block, bad) {
			t.Errorf("the JSON block holds a raw %q", bad)
		}
	}
	if !strings.Contains(block, `\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e`) {
		t.Errorf("the hostile label is not escaped as expected: %.400s", block)
	}
	// Exactly three script elements: the data and the page's two scripts.
	if n := strings.Count(strings.ToLower(page), "<script"); n != 3 {
		t.Errorf("%d <script elements in the page, want 3", n)
	}
	// The title is escaped too.
	if strings.Contains(page, "<title>"+hostile) || !strings.Contains(page, "&lt;/script&gt;&lt;script&gt;alert(1)") {
		t.Error("the title is not HTML-escaped")
	}
}

func TestRejectsInvalidJSON(t *testing.T) {
	for _, in := range []string{"", "{", `{"nodes": [}`, "</script>"} {
		var buf bytes.Buffer
		if err := Render(&buf, []byte(in), "x"); err == nil {
			t.Errorf("Render(%q) = nil error, want one", in)
		}
		if buf.Len() != 0 {
			t.Errorf("Render(%q) wrote %d bytes on error", in, buf.Len())
		}
	}
}

func TestViewerIsInlinedWhole(t *testing.T) {
	page := render(t, sampleGraph("x"), "")
	if !strings.Contains(page, viewerJS) || !strings.Contains(page, viewerCSS) {
		t.Fatal("the viewer bundle or its CSS is not in the page")
	}
	if len(viewerJS) < 100_000 || !strings.Contains(viewerJS, "CcdagGraph") {
		t.Errorf("assets/graphview.js (%d bytes) does not look like the viewer bundle", len(viewerJS))
	}
	// Nothing is fetched: no src= or href= attributes pointing anywhere.
	if regexp.MustCompile(`<(script|link|img|iframe)[^>]*(src|href)=`).MatchString(page) {
		t.Error("the page loads something from outside itself")
	}
}
