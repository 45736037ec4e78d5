package graph

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// BuildDrawn must draw exactly what Collapsed draws of the full graph, for every budget and
// option, with the same problems on the same nodes: the fixtures, every corpus session, and
// budgets that stop the collapse at each of its steps.
func TestBuildDrawnIsCollapsed(t *testing.T) {
	var sessions []*session.Session
	var names []string
	for _, c := range cases(t) {
		s, _ := fixture(t, filepath.Join(fixtures, c))
		sessions, names = append(sessions, s), append(names, c)
	}
	for _, p := range testcorpus.Files(t, "BuildDrawn against Collapsed on every real session") {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if s.Main() != nil && s.Main().Path != mustAbs(p) {
			continue
		}
		sessions, names = append(sessions, s), append(names, filepath.Base(p))
	}
	compared := 0
	for i, s := range sessions {
		full := Build(s)
		fs := check.New(s).All(nil)
		n := len(full.Nodes)
		budgets := []int{0, 1, 2, 3, 5, 8, 13, n / 3, n / 2, n - 1, n, n + 1, DefaultMaxNodes}
		for _, m := range budgets {
			for _, o := range []CollapseOptions{{MaxNodes: m}, {MaxNodes: m, MainOnly: true}, {MaxNodes: m, Agents: true}} {
				if o.MaxNodes < 0 {
					continue
				}
				want := Collapsed(full, o)
				got := BuildDrawn(s, Options{}, o)
				wj := AppendProblems(AppendJSON(nil, want), ProblemsDrawn(full, want, fs))
				gj := AppendProblems(AppendJSON(nil, got), ProblemsDrawn(got, got, fs))
				if !bytes.Equal(wj, gj) {
					t.Fatalf("%s %+v: BuildDrawn differs from Collapsed\n%s", names[i], o, firstDiff(indent(wj), indent(gj)))
				}
				compared++
			}
		}
	}
	t.Logf("%d sessions, %d drawings compared", len(sessions), compared)
}

func indent(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", " "); err != nil {
		return fmt.Sprintf("%s (%v)", raw, err)
	}
	return b.String()
}
