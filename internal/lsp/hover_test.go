package lsp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/golden"
)

// Hovers held by marker files (gopls's marker tests, for logs that cannot carry comments):
// testdata/hover/*.txt hold, under a header of prose, sections
//
//	=== hover FILE LINE KEY VALUE   the JSON string value "KEY":"VALUE" on 0-based LINE of FILE
//	=== hover FILE LINE:CHAR        a position (UTF-16)
//	<the hover's markdown>
//
// FILE is under testdata/ and is opened in order (its session's other logs are read from disk);
// the testdata folder's URI is written $TESTDATA. `go test ./internal/lsp -run TestHoverMarkers
// -update` rewrites the expected text.
func TestHoverMarkers(t *testing.T) {
	files, _ := filepath.Glob("testdata/hover/*.txt")
	if len(files) == 0 {
		t.Fatal("no marker files in testdata/hover")
	}
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	base := pathToURI(abs)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			header, sections := splitMarkers(string(b))
			c := newClient(t, clientOpt{})
			opened := map[string]bool{}
			out := header
			for _, s := range sections {
				f := strings.Fields(s.marker)
				if len(f) < 3 || f[0] != "hover" {
					t.Fatalf("bad marker %q", s.marker)
				}
				_, uri, text := fixture(t, f[1])
				if !opened[uri] {
					c.open(uri, text, 1)
					c.diagsAt(uri, 1)
					opened[uri] = true
				}
				p := markerPos(t, text, f[2:])
				got := strings.ReplaceAll(c.hoverText(uri, p), base, "$TESTDATA")
				if !*golden.Update && strings.TrimRight(got, "\n") != strings.TrimRight(s.text, "\n") {
					t.Errorf("hover at %s:\n%s", s.marker, golden.FirstDiff(s.text, got))
				}
				out += "=== " + s.marker + "\n" + strings.TrimRight(got, "\n") + "\n"
			}
			if *golden.Update {
				golden.Check(t, file, []byte(out))
			}
		})
	}
}

type markerSection struct{ marker, text string }

// splitMarkers cuts a marker file into its header and its sections.
func splitMarkers(s string) (string, []markerSection) {
	var out []markerSection
	parts := strings.Split("\n"+s, "\n=== ")
	header := strings.TrimPrefix(parts[0], "\n") + "\n"
	for _, p := range parts[1:] {
		marker, text, _ := strings.Cut(p, "\n")
		out = append(out, markerSection{marker, text})
	}
	return header, out
}

func markerPos(t *testing.T, text string, f []string) pos {
	t.Helper()
	l, err := strconv.Atoi(strings.Split(f[0], ":")[0])
	if err != nil {
		t.Fatalf("bad line in marker %v", f)
	}
	if len(f) == 3 {
		return valuePos(t, text, l, f[1], f[2])
	}
	_, c, ok := strings.Cut(f[0], ":")
	ch, err := strconv.Atoi(c)
	if !ok || err != nil {
		t.Fatalf("bad position in marker %v", f)
	}
	return pos{l, ch}
}
