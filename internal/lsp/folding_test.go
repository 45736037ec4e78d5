package lsp

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
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

// A folded range shows what it holds (collapsedText), not its first line's JSON: a turn its number,
// its prompt and its code lens's figures; a step its tool calls; a compaction segment what it is.
// Held on the corpus session the Neovim and Emacs tests fold (first turn 3-518, the compaction at
// 625), and a prompt's secret is not shown.
func TestFoldTexts(t *testing.T) {
	p := testcorpus.Path(t, "Jason-liu-0219__my-claude/projects/-Users-liuhanwen-Desktop-project-webtech-monorepo/87bcc603-30fb-432c-beb2-9c774a335172.jsonl", "the text a folded turn, step and compaction segment show")
	text, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	uri := pathToURI(t.TempDir() + "/87bcc603-30fb-432c-beb2-9c774a335172.jsonl")
	c := newClient(t, clientOpt{})
	c.open(uri, string(text), 1)
	c.diagsAt(uri, 1)
	type foldText struct {
		StartLine     int    `json:"startLine"`
		EndLine       int    `json:"endLine"`
		CollapsedText string `json:"collapsedText"`
	}
	var fs []foldText
	c.mustCall("textDocument/foldingRange", docParams(uri), &fs)
	var lenses []lensWire
	c.mustCall("textDocument/codeLens", docParams(uri), &lenses)
	lensAt := map[int]string{}
	for _, l := range lenses {
		lensAt[l.Range.Start.Line] = l.Command.Title
	}
	at := map[int]string{}
	for _, f := range fs {
		if f.CollapsedText == "" || strings.HasPrefix(f.CollapsedText, "{") {
			t.Errorf("fold %d-%d shows %q", f.StartLine, f.EndLine, f.CollapsedText)
		}
		at[f.StartLine] = f.CollapsedText
	}
	if want := "turn 1 · 我發現claude code skill 裡面關於每一個頁面模組寫的 skill"; !strings.HasPrefix(at[2], want) || !strings.HasSuffix(at[2], " · "+lensAt[2]) || lensAt[2] == "" {
		t.Errorf("the first turn's fold shows %q, want %q…, then its lens %q", at[2], want, lensAt[2])
	}
	if want := "compaction · "; !strings.HasPrefix(at[624], want) {
		t.Errorf("the compaction segment's fold shows %q, want %q…", at[624], want)
	}
	// the Agent call's step (51-313): the call named
	if got := at[50]; !strings.HasPrefix(got, "step · ") || !(strings.Contains(got, "Task") || strings.Contains(got, "Agent")) {
		t.Errorf("the Agent call's step shows %q", got)
	}
	t.Logf("turn: %s | step: %s | %s", at[2], at[50], at[624])
}

// A secret in a prompt is not shown by its turn's fold, nor one the fold's first 320 bytes cut
// (whitespace squashed, it would stand within the 80 shown: docs/spec.md §15).
func TestFoldTextRedacts(t *testing.T) {
	secret := secretstest.Plants(11)[1].Secret // github-pat
	for _, text := range []string{"use " + secret + " for the push", "use" + strings.Repeat(`\n`, 300) + secret + " for the push"} {
		log := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"` + text + `"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}
`
		uri := pathToURI(t.TempDir() + "/s.jsonl")
		c := newClient(t, clientOpt{})
		c.open(uri, log, 1)
		c.diagsAt(uri, 1)
		var fs []struct {
			CollapsedText string `json:"collapsedText"`
		}
		c.mustCall("textDocument/foldingRange", docParams(uri), &fs)
		if len(fs) != 1 || !strings.HasPrefix(fs[0].CollapsedText, "turn 1 · use") {
			t.Fatalf("folds %+v", fs)
		}
		if strings.Contains(fs[0].CollapsedText, secret[:8]) {
			t.Errorf("the fold shows the secret: %q", fs[0].CollapsedText)
		}
	}
}
