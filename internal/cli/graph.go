package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/graphhtml"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/secrets"
)

func runGraph(args []string, env Env) int {
	fset := newFlagSet("graph", env)
	format := fset.String("format", "json", "output format: json, text, dot, mermaid or html")
	noRedact := fset.Bool("no-redact", false, "show secrets (by default each is replaced by [REDACTED:<rule>])")
	outPath := fset.String("o", "", "write to FILE instead of standard output")
	maxNodes := fset.Int("max-nodes", 0, "draw at most N nodes: turns, then sub-agent lanes, then runs of turns become one node each (0: all)")
	lanes := fset.String("lanes", "all", "which lanes to draw: all, main (sub-agent lanes left out) or collapsed (each sub-agent lane as one node)")
	paths, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	switch *format {
	case "json", "text", "dot", "mermaid", "html":
	default:
		return usageError(env, fmt.Errorf("unknown --format %q (want json, text, dot, mermaid or html)", *format))
	}
	if *lanes != "all" && *lanes != "main" && *lanes != "collapsed" {
		return usageError(env, fmt.Errorf("unknown --lanes %q (want all, main or collapsed)", *lanes))
	}
	if *maxNodes < 0 {
		return usageError(env, fmt.Errorf("--max-nodes must be 0 (all) or more"))
	}
	if len(paths) != 1 {
		return usageError(env, fmt.Errorf("graph takes exactly one SESSION.jsonl"))
	}
	if fh, err := layout.Open(paths[0], ""); err != nil { // a folder, a FIFO or a device is refused
		errorf(env.Stderr, "ccdag: cannot read %s: %v\n", paths[0], unwrapPathErr(err))
		return ExitUsage
	} else {
		fh.Close()
	}
	sayNamedLinks(env, paths)
	s, err := layout.Load(paths[0], nil)
	if err != nil {
		errorf(env.Stderr, "ccdag: cannot read %s: %v\n", paths[0], unwrapPathErr(err))
		return ExitUsage
	}
	// Drawn without making the nodes it does not draw (graph.BuildDrawn): what Collapsed would draw.
	g := graph.BuildDrawn(s, graph.Options{}, graph.CollapseOptions{MaxNodes: *maxNodes, MainOnly: *lanes == "main", Agents: *lanes == "collapsed"})
	if note := g.Collapsed.Note(); note != "" {
		errorf(env.Stderr, "ccdag: %s\n", note)
	}
	// Exactly the ccdag/workflowGraph result: the graph and each node's diagnostics.
	fs := check.New(s).All(nil)
	js := graph.AppendProblems(graph.AppendJSON(nil, g), graph.ProblemsDrawn(g, g, fs))
	// Every format shows what the graph's labels show: each part of a secret in them is hidden,
	// and the secret's own warning stays (docs/spec.md §15).
	var mask *secrets.Mask
	if !*noRedact {
		mask = check.SecretMask(slices.Values(fs))
	}
	js = mask.Bytes(js)
	var buf bytes.Buffer
	switch *format {
	case "json":
		buf.Write(js)
		buf.WriteByte('\n')
	case "text":
		text, _ := graph.Text(g)
		buf.WriteString(text)
	case "dot": // masked before DOT's escaping too, and again after (as every format)
		err = graph.WriteDOTShown(&buf, g, mask.String)
	case "mermaid": // masked before Mermaid's escaping cuts secrets into pieces the mask skips
		if err = graph.WriteMermaidShown(&buf, g, mask.String); err == nil {
			mermaidLimits(env, buf.Bytes(), len(g.Edges))
		}
	case "html":
		err = graphhtml.Render(&buf, js, "ccdag — "+filepath.Base(paths[0]))
	}
	if err != nil {
		errorf(env.Stderr, "ccdag: %v\n", err)
		return ExitUsage
	}
	out := buf.Bytes()
	if *format != "json" && *format != "html" {
		out = mask.Bytes(out)
	}
	return writeOutput(env, *outPath, out)
}

// writeOutput writes out to the file -o names, or to stdout when it names none (or "-").
func writeOutput(env Env, outPath string, out []byte) int {
	var w io.Writer = env.Stdout
	if outPath != "" && outPath != "-" {
		fh, err := os.Create(outPath)
		if err != nil {
			errorf(env.Stderr, "ccdag: cannot write %s: %v\n", outPath, unwrapPathErr(err))
			return ExitUsage
		}
		defer fh.Close()
		w = fh
	}
	bw := bufio.NewWriter(w)
	if _, err := bw.Write(out); err != nil || bw.Flush() != nil {
		errorf(env.Stderr, "ccdag: writing output failed\n")
		return ExitUsage
	}
	return ExitOK
}

// Mermaid's defaults refuse a diagram over 50 000 characters (maxTextSize) or 500 edges (maxEdges).
const (
	mermaidMaxText  = 50000
	mermaidMaxEdges = 500
)

// mermaidLimits says on stderr when a Mermaid diagram is over Mermaid's default limits, and how to
// draw less.
func mermaidLimits(env Env, text []byte, edges int) {
	chars := utf8.RuneCount(text)
	if chars <= mermaidMaxText && edges <= mermaidMaxEdges {
		return
	}
	errorf(env.Stderr, "ccdag: the Mermaid diagram has %d characters and %d edges, over Mermaid's default limits (maxTextSize %d, maxEdges %d): it will not render unless those are raised; draw less with --max-nodes N, --lanes main or --lanes collapsed\n",
		chars, edges, mermaidMaxText, mermaidMaxEdges)
}
