// Package folds nests a log's turns and steps into folding ranges that never hide a compaction
// boundary. It knows lines only: the caller (the LSP adapter) finds the turns, the steps and the
// boundaries, so every editor folds the same way.
package folds

import (
	"slices"
)

// Fold is a range of lines, both ends included; folded, its first line stays visible.
type Fold struct {
	Start, End int
}

// Span is a turn: lines [Start, End).
type Span struct {
	Start, End int
}

// Of returns the folds of a log, outer before inner (sorted by start, then by end descending):
//   - each compaction segment, from its boundary to the line before the next boundary (or last);
//   - each turn, cut at every boundary inside it: the part before the boundary folds on its own,
//     the part after it folds from the line after the boundary, so the boundary, the start line of
//     its segment, is never inside a turn's fold and stays visible when the turn is folded;
//   - each step inside a turn part (or before the first turn, as in a sub-agent's log), from its
//     start line to the line before the next step (or the part's end): a turn of hundreds of records
//     folds step by step. A step that starts on its part's first line gets no fold of its own (it
//     would share the part's first line, and editors keep one fold per start line);
//   - each sub-agent step inside a step (subs: where a sub-agent's progress records show it speak
//     after its prompt or tool results), to the line before the next one or the step's end: an
//     Agent call that runs for hundreds of progress records folds step by step too.
//
// turns and steps are in line order; compactions are the boundaries' lines, in order; last is the
// last line with a record (trailing blank lines fold into nothing). A fold of one line is left out.
func Of(turns []Span, steps, subs, compactions []int, last int) []Fold {
	out := []Fold{}
	for i, c := range compactions {
		end := last
		if i+1 < len(compactions) {
			end = compactions[i+1] - 1
		}
		add(&out, c, end)
	}
	// Regions: the lines before the first turn (no fold of its own) and each turn, both cut at
	// the boundaries.
	type region struct {
		start, end int
		fold       bool
	}
	var regions []region
	pre := last
	if len(turns) > 0 {
		pre = turns[0].Start - 1
	}
	regions = append(regions, region{0, pre, false})
	for _, t := range turns {
		regions = append(regions, region{t.Start, min(t.End-1, last), true})
	}
	ci, si, ui := 0, 0, 0
	for _, r := range regions {
		for s := r.start; s <= r.end; {
			for ci < len(compactions) && compactions[ci] < s {
				ci++
			}
			e := r.end
			next := -1
			if ci < len(compactions) && compactions[ci] <= r.end {
				next = compactions[ci]
				e = next - 1
			}
			if r.fold {
				add(&out, s, e)
			}
			for si < len(steps) && steps[si] < s {
				si++
			}
			for k := si; k < len(steps) && steps[k] <= e; k++ {
				se := e
				if k+1 < len(steps) && steps[k+1] <= e {
					se = steps[k+1] - 1
				}
				if steps[k] > s || !r.fold {
					add(&out, steps[k], se)
				}
				for ui < len(subs) && subs[ui] <= steps[k] {
					ui++
				}
				for u := ui; u < len(subs) && subs[u] <= se; u++ {
					ue := se
					if u+1 < len(subs) && subs[u+1] <= se {
						ue = subs[u+1] - 1
					}
					add(&out, subs[u], ue)
				}
			}
			if next < 0 {
				break
			}
			s = next + 1
		}
	}
	slices.SortFunc(out, func(a, b Fold) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	return slices.CompactFunc(out, func(a, b Fold) bool { return a.Start == b.Start })
}

func add(out *[]Fold, start, end int) {
	if end > start {
		*out = append(*out, Fold{start, end})
	}
}
