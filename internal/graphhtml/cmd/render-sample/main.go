// Command render-sample writes the HTML page of a workflow-graph JSON file (a graph as
// ccdag/workflowGraph or `ccdag graph --format json` wrote it, possibly edited by hand), for the
// viewer's browser tests.
//
//	go run ./internal/graphhtml/cmd/render-sample [-title T] [-o OUT.html] [GRAPH.json]
//
// Without GRAPH.json it reads standard input; without -o it writes standard output.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ccdag/ccdag/internal/graphhtml"
)

func main() {
	title := flag.String("title", "", "page title")
	out := flag.String("o", "", "output file (default: standard output)")
	flag.Parse()
	if flag.NArg() > 1 {
		fmt.Fprintln(os.Stderr, "usage: render-sample [-title T] [-o OUT.html] [GRAPH.json]")
		os.Exit(2)
	}
	var in []byte
	var err error
	if flag.NArg() == 1 {
		in, err = os.ReadFile(flag.Arg(0))
	} else {
		in, err = io.ReadAll(os.Stdin)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "render-sample:", err)
		os.Exit(2)
	}
	var buf bytes.Buffer
	if err := graphhtml.Render(&buf, in, *title); err != nil {
		fmt.Fprintln(os.Stderr, "render-sample:", err)
		os.Exit(1)
	}
	if *out == "" {
		_, err = os.Stdout.Write(buf.Bytes())
	} else {
		err = os.WriteFile(*out, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "render-sample:", err)
		os.Exit(1)
	}
}
