package graph

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Every node has one line, and the line names its record's line and is where TextLine says.
func TestTextLines(t *testing.T) {
	for _, name := range cases(t) {
		_, g := fixture(t, filepath.Join(fixtures, name))
		text, rows := Text(g)
		lines := strings.Split(text, "\n")
		if len(rows) != len(g.Nodes) {
			t.Errorf("%s: %d node lines for %d nodes", name, len(rows), len(g.Nodes))
		}
		seen := map[int]bool{}
		for _, r := range rows {
			want := fmt.Sprintf("%7d ", r.Location.Range.Start.Line+1)
			if r.Row >= len(lines) || !strings.HasPrefix(lines[r.Row], want) || seen[r.Row] {
				t.Errorf("%s: row %d (%q) is not the node's line %q", name, r.Row, lines[min(r.Row, len(lines)-1)], want)
			}
			seen[r.Row] = true
		}
	}
}

func TestTextLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"  a\tb\n\x1bc  ", 90, "a b c"},
		{"ééééé", 5, "ééééé"},
		{"éééééé", 5, "éééé…"},
		{"", 5, ""},
	} {
		if got := textLine(c.in, c.max); got != c.want {
			t.Errorf("textLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
