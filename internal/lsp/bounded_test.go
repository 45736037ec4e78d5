package lsp

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// negative finds a figure with a minus sign (not a date's "2026-02-01").
var negative = regexp.MustCompile(`(^|[\s$(:*])-\d`)

// TestImplausibleUsageSurvives holds docs/spec.md §15 on the server: a log whose usage figures are
// -2^63, 1e19, fractions or past 2^53 is answered — code lens (which VS Code asks for on every open),
// hover on every line, inlay hints, the transcript — with the implausible figures left out and found
// (invalid-field), never a negative or wrapped figure. Short(-2^63) once recursed until the stack
// overflowed and took the server down.
func TestImplausibleUsageSurvives(t *testing.T) {
	for _, c := range []struct{ name, lens string }{
		// Each: two messages of claude-opus-4-5; the implausible fields are read as absent.
		{"negative", "session: 1 turn · 300 out · 1.2k in+cache · $0.013"},
		{"float", "session: 1 turn · 300 out · 1.2k in+cache · $0.013"},
		{"huge", "session: 1 turn · 300 out · 9007T in+cache · $4,503,599,627"}, // 2^53 cache reads: the largest plausible
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := filepath.Abs(filepath.Join("../../testdata/checks", "invalid-usage-"+c.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			text, uri := string(b), pathToURI(p)
			cl := newClient(t, clientOpt{})
			cl.open(uri, text, 1)
			invalid := 0
			for _, d := range cl.diagsAt(uri, 1) {
				if d.Code == "invalid-field" {
					invalid++
				}
			}
			if invalid == 0 {
				t.Errorf("no invalid-field finding")
			}
			bad := func(what, s string) {
				t.Helper()
				if w := negative.FindString(s); w != "" || strings.Contains(s, "< $0.0001") || strings.Contains(s, "9223372") {
					t.Errorf("%s shows a negative or wrapped figure (%q): %q", what, w, s)
				}
			}
			var lenses []lensWire
			cl.mustCall("textDocument/codeLens", docParams(uri), &lenses)
			var titles []string
			for _, l := range lenses {
				titles = append(titles, l.Command.Title)
				bad("code lens", l.Command.Title)
			}
			if all := strings.Join(titles, " | "); !strings.Contains(all, c.lens) {
				t.Errorf("code lenses %q lack %q", all, c.lens)
			}
			for l := range strings.Count(text, "\n") {
				for _, ch := range []int{0, 40} {
					bad("hover", cl.hoverText(uri, at(l, ch)))
				}
			}
			var hints []hintWire
			cl.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng{at(0, 0), at(10, 0)}}, &hints)
			for _, h := range hints {
				bad("inlay hint", h.Label)
			}
			var tr transcriptWire
			cl.mustCall("ccdag/transcript", docParams(uri), &tr)
			if !strings.Contains(tr.Markdown, `Done\.`) {
				t.Errorf("transcript:\n%s", tr.Markdown)
			}
			bad("transcript", tr.Markdown)
		})
	}
}
