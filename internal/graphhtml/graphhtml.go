// Package graphhtml writes the workflow graph of a session (docs/spec.md §4) as one self-contained,
// offline HTML page: the viewer bundle from editors/graphview (cytoscape + dagre), its CSS and
// the graph JSON are all inlined, and a Content-Security-Policy allows nothing else: no network,
// and no script but the page's own, pinned by hash.
//
// assets/ holds the viewer's build, written by `npm run build` in editors/graphview (go:embed cannot
// reach outside this package's directory; the VS Code extension's build copies the script from
// here). `npm run check-dist` there checks it is what the sources make.
package graphhtml

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
)

//go:embed assets/graphview.js
var viewerJS string

//go:embed assets/graphview.css
var viewerCSS string

// pageCSS sizes the viewer to the window.
const pageCSS = `html,body{height:100%;margin:0;padding:0}` +
	`#app{position:fixed;inset:0}`

// cytoscapeCSS is what cytoscape would inject itself; putting it in the page (under the id it
// looks for) keeps it from adding an unhashed <style> at run time.
const cytoscapeCSS = `.__________cytoscape_container { position: relative; }`

// bootJS reads the graph from the inert JSON block and draws it. It holds no data, so its hash
// is the same for every page.
const bootJS = `(function () {
  "use strict";
  var app = document.getElementById("app");
  var graph;
  try {
    graph = JSON.parse(document.getElementById("graph").textContent);
  } catch (e) {
    app.textContent = "The embedded workflow graph is not valid JSON.";
    return;
  }
  window.ccdagView = CcdagGraph.render(app, graph, { theme: "auto" });
})();`

var unsafeInScript = regexp.MustCompile(`(?i)</script|<!--`)

// Render writes the HTML page for graphJSON (the `ccdag graph --format json` document) to w.
// title is the page's title (empty: "ccdag workflow graph"); it is HTML-escaped.
func Render(w io.Writer, graphJSON []byte, title string) error {
	if !json.Valid(graphJSON) {
		return errors.New("graphhtml: the graph is not valid JSON")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, graphJSON); err != nil {
		return fmt.Errorf("graphhtml: %w", err)
	}
	// <, >, & and U+2028/U+2029 become \u003c, \u003e, \u0026, \u2028, \u2029: no text of
	// the log can close the <script> element or start a comment inside it.
	var data bytes.Buffer
	json.HTMLEscape(&data, compact.Bytes())
	if unsafeInScript.Match(data.Bytes()) {
		return errors.New("graphhtml: escaped graph JSON still contains a script terminator")
	}
	if unsafeInScript.MatchString(viewerJS) {
		return errors.New("graphhtml: the embedded viewer bundle contains a script terminator")
	}

	page := strings.TrimSpace(title)
	if page == "" {
		page = "ccdag workflow graph"
	}

	var b strings.Builder
	b.Grow(len(viewerJS) + len(viewerCSS) + data.Len() + 4096)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="`)
	b.WriteString(html.EscapeString(CSP()))
	b.WriteString("\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta name=\"referrer\" content=\"no-referrer\">\n")
	b.WriteString("<meta name=\"color-scheme\" content=\"light dark\">\n")
	b.WriteString("<meta name=\"generator\" content=\"ccdag\">\n")
	b.WriteString("<title>" + html.EscapeString(page) + "</title>\n")
	b.WriteString("<style id=\"__________cytoscape_stylesheet\">" + cytoscapeCSS + "</style>\n")
	b.WriteString("<style id=\"ccdag-graphview-style\">" + viewerCSS + "</style>\n")
	b.WriteString("<style>" + pageCSS + "</style>\n")
	b.WriteString("</head>\n<body>\n<div id=\"app\"></div>\n")
	b.WriteString("<noscript>This page draws the workflow graph with JavaScript; allow scripts for this file to see it.</noscript>\n")
	b.WriteString("<script type=\"application/json\" id=\"graph\">")
	b.Write(data.Bytes())
	b.WriteString("</script>\n<script>" + viewerJS + "</script>\n<script>" + bootJS + "</script>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// CSP is the Content-Security-Policy of every page Render writes: nothing may load from
// anywhere, and only the page's own scripts and styles (by hash) run.
func CSP() string {
	return "default-src 'none'; " +
		"script-src " + hash(viewerJS) + " " + hash(bootJS) + "; " +
		"style-src " + hash(cytoscapeCSS) + " " + hash(viewerCSS) + " " + hash(pageCSS) + "; " +
		"img-src data:; base-uri 'none'; form-action 'none'"
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
