package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/graphhtml"
	"github.com/ccdag/ccdag/internal/layout"
)

func runGraph(args []string, env Env) int {
	fset := newFlagSet("graph", env)
	format := fset.String("format", "json", "output format: json, dot, mermaid or html")
	outPath := fset.String("o", "", "write to FILE instead of standard output")
	paths, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	switch *format {
	case "json", "dot", "mermaid", "html":
	default:
		return usageError(env, fmt.Errorf("unknown --format %q (want json, dot, mermaid or html)", *format))
	}
	if len(paths) != 1 {
		return usageError(env, fmt.Errorf("graph takes exactly one SESSION.jsonl"))
	}
	if fh, err := layout.Open(paths[0], ""); err != nil { // a folder, a FIFO or a device is refused
		fmt.Fprintf(env.Stderr, "ccdag: cannot read %s: %v\n", paths[0], unwrapPathErr(err))
		return ExitUsage
	} else {
		fh.Close()
	}
	s, err := layout.Load(paths[0], nil)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ccdag: cannot read %s: %v\n", paths[0], unwrapPathErr(err))
		return ExitUsage
	}
	g := graph.Build(s)
	var buf bytes.Buffer
	switch *format {
	case "json":
		err = graph.WriteJSON(&buf, g) // exactly the ccdag/workflowGraph result
	case "dot":
		err = graph.WriteDOT(&buf, g)
	case "mermaid":
		err = graph.WriteMermaid(&buf, g)
	case "html":
		var js bytes.Buffer
		if err = graph.WriteJSON(&js, g); err == nil {
			err = graphhtml.Render(&buf, js.Bytes(), "ccdag — "+filepath.Base(paths[0]))
		}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "ccdag: %v\n", err)
		return ExitUsage
	}
	var w io.Writer = env.Stdout
	if *outPath != "" && *outPath != "-" {
		fh, err := os.Create(*outPath)
		if err != nil {
			fmt.Fprintf(env.Stderr, "ccdag: cannot write %s: %v\n", *outPath, unwrapPathErr(err))
			return ExitUsage
		}
		defer fh.Close()
		w = fh
	}
	bw := bufio.NewWriter(w)
	if _, err := bw.Write(buf.Bytes()); err != nil || bw.Flush() != nil {
		fmt.Fprintf(env.Stderr, "ccdag: writing output failed\n")
		return ExitUsage
	}
	return ExitOK
}
