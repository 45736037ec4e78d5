package lsp

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

// On every real log of the corpus the folds keep the promises the editors rely on (sorted; nested
// or apart; one per start line; no compaction boundary inside a fold, only on a fold's first
// line), and a long turn folds step by step: no fold leaves more than maxLoose of its lines outside
// its inner folds, whatever the turn's length.
func TestCorpusFoldsPerStep(t *testing.T) {
	const maxLoose = 30 // one message with seven parallel calls and their results is one step of 23 lines
	longest := 0
	for _, p := range testcorpus.Files(t, "that every real log folds per turn and per step, with no compaction hidden in a fold") {
		if strings.Contains(p, "/subagents/") {
			continue // opened with their main log's session; the steps are the same code
		}
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(text), "\n")
		var comp []int
		for i, l := range lines {
			if strings.Contains(l, `"subtype":"compact_boundary"`) {
				comp = append(comp, i)
			}
		}
		uri := pathToURI(p)
		c := newClient(t, clientOpt{})
		c.open(uri, string(text), 1)
		c.diagsAt(uri, 1)
		var fs []foldWire
		c.mustCall("textDocument/foldingRange", docParams(uri), &fs)
		for i, a := range fs {
			for _, b := range comp {
				if a.StartLine < b && b <= a.EndLine {
					t.Errorf("%s: compaction boundary on line %d inside fold %v", p, b, a)
				}
			}
			loose, next := 0, a.StartLine+1
			for _, b := range fs[i+1:] {
				if b.StartLine <= a.StartLine {
					t.Errorf("%s: fold %v after %v", p, b, a)
				}
				if b.StartLine <= a.EndLine && b.EndLine > a.EndLine {
					t.Errorf("%s: folds %v and %v overlap", p, a, b)
				}
				if b.StartLine > a.EndLine {
					break
				}
				if b.StartLine >= next { // a direct child
					loose += b.StartLine - next
					next = b.EndLine + 1
				}
			}
			loose += a.EndLine + 1 - next
			if loose > maxLoose {
				t.Errorf("%s: fold %v leaves %d lines outside its inner folds (a turn folded as one block)", p, a, loose)
			}
			longest = max(longest, a.EndLine-a.StartLine+1)
		}
	}
	t.Logf("longest fold %d lines", longest)
	if longest < 100 {
		t.Errorf("the corpus's longest fold has %d lines: the test no longer sees a long turn", longest)
	}
}

// A log that grows a few records at a time (a live session; the turn index re-reads only the last
// turn) folds exactly as the whole log read at once, at every step: steps, sub-agent steps and
// compaction cuts included.
func TestFoldsAfterAppendsEqualFresh(t *testing.T) {
	const rel = "dagster-io__erk/session/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl"
	p := testcorpus.Path(t, rel, "that folds after appends equal the folds of the whole log")
	text, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	dir := t.TempDir()
	uri := pathToURI(dir + "/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl")
	c := newClient(t, clientOpt{})
	n := 5
	c.open(uri, strings.Join(lines[:n], ""), 1)
	c.diagsAt(uri, 1)
	version := int32(1)
	for k := 0; n < len(lines); k++ {
		m := min(len(lines), n+1+k%29) // 1 to 29 records at a time
		version++
		c.change(uri, version, edit(rng{at(n, 0), at(n, 0)}, strings.Join(lines[n:m], "")))
		c.diagsAt(uri, version)
		n = m
		if k%4 != 0 && n < len(lines) {
			continue
		}
		var got, want []foldWire
		c.mustCall("textDocument/foldingRange", docParams(uri), &got)
		f := newClient(t, clientOpt{})
		furi := pathToURI(t.TempDir() + "/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl")
		f.open(furi, strings.Join(lines[:n], ""), 1)
		f.diagsAt(furi, 1)
		f.mustCall("textDocument/foldingRange", docParams(furi), &want)
		if !slices.Equal(got, want) {
			t.Fatalf("after %d lines: appended folds\n%v\nfresh\n%v", n, got, want)
		}
		if n == len(lines) && len(got) < 50 {
			t.Fatalf("%d folds for the whole log: the test no longer sees its steps", len(got))
		}
	}
}
