package graph

import (
	"bytes"
	stdjson "encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/ccdag/ccdag/internal/golden"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
)

const fixtures = "../../testdata/graph"

// fixture loads a case of testdata/graph: its main log (the top-level <sessionId>.jsonl), else its
// first agent log. URIs are relative to the case, so goldens do not depend on where the repo is.
func fixture(t *testing.T, dir string) (*session.Session, *Graph) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var main, agent string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".jsonl") {
			continue
		}
		if strings.HasPrefix(n, "agent-") {
			if agent == "" {
				agent = n
			}
		} else if main == "" {
			main = n
		}
	}
	if main == "" {
		main = agent
	}
	s, err := layout.Load(filepath.Join(dir, main), nil)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	g := BuildWith(s, Options{URI: func(p string) string {
		rel, err := filepath.Rel(abs, p)
		if err != nil {
			rel = p
		}
		return "file:///fixture/" + filepath.ToSlash(rel)
	}})
	return s, g
}

// golden compares got with a golden file of testdata/graph (go test ./internal/graph -update rewrites them).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got)
}

var firstDiff = goldenfile.FirstDiff

func cases(t *testing.T) []string {
	ents, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestFixtures compares each case's graph with its golden JSON, DOT, Mermaid and text output.
func TestFixtures(t *testing.T) {
	for _, name := range cases(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(fixtures, name)
			s, g := fixture(t, dir)
			checkInvariants(t, name, s, g)
			var js, dot, mm bytes.Buffer
			if err := writeIndentedJSON(&js, g); err != nil {
				t.Fatal(err)
			}
			if err := WriteDOT(&dot, g); err != nil {
				t.Fatal(err)
			}
			if err := WriteMermaid(&mm, g); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "graph.golden.json"), js.Bytes())
			golden(t, filepath.Join(dir, "graph.golden.dot"), dot.Bytes())
			golden(t, filepath.Join(dir, "graph.golden.mmd"), mm.Bytes())
			text, _ := Text(g)
			golden(t, filepath.Join(dir, "graph.golden.txt"), []byte(text))
		})
	}
}

func writeIndentedJSON(w *bytes.Buffer, g *Graph) error {
	var raw bytes.Buffer
	if err := WriteJSON(&raw, g); err != nil {
		return err
	}
	if err := stdjson.Indent(w, raw.Bytes(), "", "  "); err != nil {
		return err
	}
	w.WriteByte('\n')
	return nil
}

// TestDOTRendersWithGraphviz runs every fixture's DOT through Graphviz when it is installed.
func TestDOTRendersWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("graphviz (dot) is not installed, and CI is set")
		}
		t.Skip("SKIP: graphviz (dot) is not installed")
	}
	for _, name := range cases(t) {
		_, g := fixture(t, filepath.Join(fixtures, name))
		var in bytes.Buffer
		WriteDOT(&in, g)
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = &in
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Errorf("%s: dot: %v\n%s", name, err, stderr.String())
			continue
		}
		for i := range g.Nodes {
			if !bytes.Contains(out, []byte("<title>"+g.Nodes[i].ID+"</title>")) {
				t.Errorf("%s: node %s is missing from the SVG", name, g.Nodes[i].ID)
			}
		}
	}
}
