package folds

import (
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	cases := []struct {
		name        string
		turns       []Span
		steps, subs []int
		comp        []int
		last        int
		want        string
	}{
		{"one turn, no steps", []Span{{0, 4}}, nil, nil, nil, 3, "[{0 3}]"},
		// prompt 0; step 1-2 (tool call + result), step 3-5; next turn at 6 with one step 7-8.
		{"steps nest in their turns", []Span{{0, 6}, {6, 9}}, []int{1, 3, 7}, nil, nil, 8,
			"[{0 5} {1 2} {3 5} {6 8} {7 8}]"},
		// A boundary at 4 inside the turn 0-9: the turn folds 0-3 and 5-9, the segment 4-9; the
		// step 3-6 is cut at the boundary, the step 6-9 nests in the part after it.
		{"a compaction cuts the turn and its step", []Span{{0, 10}}, []int{1, 3, 6}, nil, []int{4}, 9,
			"[{0 3} {1 2} {4 9} {5 9} {6 9}]"},
		// A step starting right after the boundary shares the part's first line: no fold of its own.
		{"a step on the part's first line", []Span{{0, 8}}, []int{1, 5}, nil, []int{4}, 7,
			"[{0 3} {1 3} {4 7} {5 7}]"},
		// A sub-agent's log has no typed prompt: its steps fold all the same.
		{"steps without turns", nil, []int{0, 2, 4}, nil, nil, 5, "[{0 1} {2 3} {4 5}]"},
		{"trailing blank lines", []Span{{0, 6}}, []int{1}, nil, nil, 3, "[{0 3} {1 3}]"},
		{"two boundaries", []Span{{0, 3}, {5, 9}}, nil, nil, []int{3, 7}, 8, "[{0 2} {3 6} {5 6} {7 8}]"},
		{"empty", nil, nil, nil, nil, -1, "[]"},
		// An Agent call at 1 whose progress records show the sub-agent speak at 3, 5 and 8; its
		// result at 10, the next step at 11, cut by the boundary at 12 (the part after it, 13-15,
		// folds as the turn's).
		{"sub-agent steps", []Span{{0, 16}}, []int{1, 11}, []int{3, 5, 8, 13}, []int{12}, 15,
			"[{0 11} {1 10} {3 4} {5 7} {8 10} {12 15} {13 15}]"},
	}
	for _, c := range cases {
		got := Of(c.turns, c.steps, c.subs, c.comp, c.last)
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("%s: got %s, want %s", c.name, s, c.want)
		}
		checkNested(t, c.name, got, c.comp)
	}
}

// checkNested holds the promises every editor relies on: folds are sorted, any two are nested or
// apart, no two share a start line, and no boundary is inside a fold (only on its first line).
func checkNested(t *testing.T, name string, fs []Fold, comp []int) {
	t.Helper()
	for i, a := range fs {
		for _, c := range comp {
			if a.Start < c && c <= a.End {
				t.Errorf("%s: boundary %d inside fold %v", name, c, a)
			}
		}
		for _, b := range fs[i+1:] {
			if b.Start <= a.Start {
				t.Errorf("%s: %v after %v: not sorted or same start", name, b, a)
			}
			if b.Start <= a.End && b.End > a.End {
				t.Errorf("%s: %v and %v overlap", name, a, b)
			}
		}
	}
}
