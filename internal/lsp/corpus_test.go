package lsp

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// On every real log of the corpus, the server publishes exactly the findings a fresh check of the
// session gives (main log and sub-agent logs together), with ranges on the same lines.
func TestCorpusDiagnosticsMatchAFreshCheck(t *testing.T) {
	for _, p := range testcorpus.Files(t, "that the server publishes, for every real log, exactly the findings a fresh check gives") {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var want []string
		fs := check.New(s).File(s.File(p), nil)
		resume.Annotate(fs, func() *resume.Result { return resume.Compute(s) }) // as the server does
		for _, f := range fs {
			want = append(want, fmt.Sprintf("%d:%s:%d:%s", f.Line, f.Code, f.Severity, f.Message))
		}
		text, _ := os.ReadFile(p)
		uri := pathToURI(p)
		c := newClient(t, clientOpt{})
		c.open(uri, string(text), 1)
		var got []string
		for _, d := range c.diagsAt(uri, 1) {
			got = append(got, fmt.Sprintf("%d:%s:%d:%s", d.Range.Start.Line, d.Code, d.Severity, d.Message))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got  %q\n want %q", p, got, want)
		}
	}
}

// The corpus session with a subagents/ folder: definitions across files, both ways.
func TestCorpusSubagentsDefinition(t *testing.T) {
	const session = "Jason-liu-0219__my-claude/projects/-Users-liuhanwen-Desktop-project-webtech-monorepo/87bcc603-30fb-432c-beb2-9c774a335172"
	const checks = "definition, references and hover across a session's files (main log to subagents/ and back)"
	mainPath := testcorpus.Path(t, session+".jsonl", checks)
	agentPath := testcorpus.Path(t, session+"/subagents/agent-ac6b686.jsonl", checks)
	suggPath := testcorpus.Path(t, session+"/subagents/agent-aprompt_suggestion-debb9a.jsonl", checks)
	b, err := os.ReadFile(mainPath)
	if err != nil {
		t.Fatal(err)
	}
	mainText := string(b)
	mainURI, agentURI, suggURI := pathToURI(mainPath), pathToURI(agentPath), pathToURI(suggPath)
	c := newClient(t, clientOpt{})
	c.open(mainURI, mainText, 1)
	ds := c.diagsAt(mainURI, 1)
	var lines []int
	for _, d := range ds {
		if d.Code == "missing-agent-file" {
			// one diagnostic for the session's missing sub-agent logs, each call in its related information
			for _, ri := range d.RelatedInformation {
				lines = append(lines, int(ri.Location.Range.Start.Line)+1)
			}
		}
	}
	if want := []int{24, 27, 36, 42, 51, 378, 381, 551, 707}; !slices.Equal(lines, want) {
		t.Errorf("missing-agent-file at %v, want %v", lines, want)
	}

	// the Task call that ran agent ac6b686, and its result
	const task = "toolu_017xTxSdx33AzofDvxdCpABD"
	taskLine := lineOf(t, mainText, `"id":"`+task+`","name":"Task"`)
	resultLine := lineOf(t, mainText, `"tool_use_id":"`+task+`"`)
	for what, p := range map[string]pos{
		"agentId in the result": valuePos(t, mainText, resultLine, "agentId", "ac6b686"),
		"the Task call":         valuePos(t, mainText, taskLine, "name", "Task"),
	} {
		if locs := c.definition(mainURI, p); len(locs) != 1 || locs[0].URI != agentURI {
			t.Errorf("definition from %s: %+v, want %s", what, locs, agentURI)
		}
	}
	// line 514's parent is in the prompt-suggestion agent's log
	var rec struct {
		Parent string `json:"parentUuid"`
	}
	line514 := strings.Split(mainText, "\n")[513]
	if err := unmarshal([]byte(line514), &rec); err != nil {
		t.Fatal(err)
	}
	if locs := c.definition(mainURI, valuePos(t, mainText, 513, "parentUuid", rec.Parent)); len(locs) != 1 || locs[0].URI != suggURI {
		t.Errorf("definition from line 514's parentUuid: %+v, want %s", locs, suggURI)
	}
	// from the agent's first record back to the Task call, with the agent's log open
	ab, _ := os.ReadFile(agentPath)
	c.open(agentURI, string(ab), 1)
	c.diagsAt(agentURI, 1)
	locs := c.definition(agentURI, pos{0, 0})
	if len(locs) != 1 || locs[0].URI != mainURI || int(locs[0].Range.Start.Line) != taskLine {
		t.Errorf("definition from the agent's first record: %+v, want line %d of the main log", locs, taskLine)
	}
	// its hover names its lane
	if h := c.hoverText(agentURI, pos{1, 0}); !strings.Contains(h, "agent-ac6b686") {
		t.Errorf("hover in the agent's log:\n%s", h)
	}
}

// Document symbols on every corpus log: names are never empty, every range is well formed and
// holds its selection range and its children (VS Code rejects an outline that breaks this).
func TestCorpusSymbolsWellFormed(t *testing.T) {
	files := testcorpus.Files(t, "that document symbols of every real log have names and well-formed, nested ranges")
	c := newClient(t, clientOpt{})
	for _, p := range files {
		text, _ := os.ReadFile(p)
		uri := pathToURI(p)
		c.open(uri, string(text), 1)
		c.diagsAt(uri, 1)
		var syms []docSymbol
		c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
		var check func(list []docSymbol, parent *docSymbol)
		n := 0
		check = func(list []docSymbol, parent *docSymbol) {
			for i := range list {
				s := &list[i]
				n++
				if strings.TrimSpace(s.Name) == "" {
					t.Errorf("%s: a symbol without a name at %+v", p, s.Range)
				}
				if !before(s.Range.Start, s.Range.End) || !contains(s.Range, s.SelectionRange) || parent != nil && !contains(parent.Range, s.Range) {
					t.Errorf("%s: symbol %q: range %+v selection %+v", p, s.Name, s.Range, s.SelectionRange)
				}
				check(s.Children, s)
			}
		}
		check(syms, nil)
		if n == 0 && strings.Contains(string(text), `"type":"user"`) && !strings.Contains(p, "agent-") {
			t.Errorf("%s: no symbols", p)
		}
	}
}

func before(a, b position.Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character <= b.Character
}

func contains(outer, inner position.Range) bool {
	return before(outer.Start, inner.Start) && before(inner.End, outer.End)
}
