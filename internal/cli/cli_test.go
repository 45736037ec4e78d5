package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	goldenfile "github.com/ccdag/ccdag/internal/golden"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// run executes the CLI from the repository root, so paths print as users see them.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	code = Main(args, Env{Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), code
}

// golden compares got with a golden file named from the repository's root (-update rewrites it).
func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("../..", path), []byte(got))
}

// TestCheckFixtures runs `ccdag check` on one fixture per diagnostic code and compares the text
// output with its golden file.
func TestCheckFixtures(t *testing.T) {
	entries, err := os.ReadDir("../../testdata/checks")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".golden") {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
			out, errs, code := run(t, "check", "--fail-on", "never", "testdata/checks/"+name)
			if code != 0 || !summaryRE.MatchString(errs) {
				t.Fatalf("exit %d, stderr not one summary line: %q", code, errs)
			}
			if name != "clean.jsonl" && out == "" {
				t.Fatalf("no finding for fixture %s", name)
			}
			want := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), "-pending"), "-in-flight"), "-bare-cr")
			if strings.HasPrefix(want, "invalid-usage-") { // implausible numbers (docs/spec.md §15)
				want = "invalid-field"
			}
			if name != "clean.jsonl" && !strings.Contains(out, "["+want+"]") {
				t.Errorf("fixture %s does not report its own code:\n%s", name, out)
			}
			golden(t, "testdata/checks/"+strings.TrimSuffix(name, ".jsonl")+".golden", out)
		})
	}
	if n < 15 {
		t.Fatalf("only %d fixtures", n)
	}
}

// TestLayouts checks that every session layout is discovered from any of its files: the JSON
// summary counts the files found.
func TestLayouts(t *testing.T) {
	cases := []struct {
		path  string
		files int
	}{
		{"testdata/sessions/demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl", 2},
		{"testdata/sessions/demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a/subagents/agent-a4c9e1f07b2d36e58.jsonl", 2},
		{"testdata/sessions/flat/7a2b3c4d-1111-4222-8333-444455556666.jsonl", 2},
		{"testdata/sessions/flat/agent-9f8e7d6c.jsonl", 2},
		{"testdata/sessions/flat/agent-0badc0de.jsonl", 1},
		{"testdata/sessions/in-file-sidechains/1c0de000-aaaa-4bbb-8ccc-dddddddddddd.jsonl", 1},
		{"testdata/sessions/workflows/2b4d6f80-1357-4ace-8bdf-0123456789ab.jsonl", 2},
		{"testdata/sessions/workflows/2b4d6f80-1357-4ace-8bdf-0123456789ab/subagents/workflows/run-01/agent-aw0rkf10wagent01.jsonl", 2},
		{"testdata/sessions/agents-only/agent-5e5e5e5e.jsonl", 1},
	}
	for _, c := range cases {
		out, errs, code := run(t, "check", "--format", "json", "--fail-on", "never", c.path)
		if code != 0 {
			t.Fatalf("%s: exit %d %s", c.path, code, errs)
		}
		var res struct {
			Diagnostics []map[string]any
			Summary     struct{ Sessions, Files int }
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if res.Summary.Sessions != 1 || res.Summary.Files != c.files {
			t.Errorf("%s: %d sessions, %d files; want 1 session of %d files", c.path, res.Summary.Sessions, res.Summary.Files, c.files)
		}
	}
	// The whole folder: each session once, whatever file it was found through.
	out, _, _ := run(t, "check", "--format", "json", "--fail-on", "never", "testdata/sessions")
	golden(t, "testdata/sessions/check.golden.json", out)
}

// summaryRE is text output's last line on stderr.
var summaryRE = regexp.MustCompile(`^ccdag: \d+ sessions?, \d+ files?: \d+ errors?, \d+ warnings?, \d+ information, \d+ hints?\n$`)

// A folder or file that holds no session log is a usage error that says so (a CI typo must not
// pass); text output ends with one summary line on stderr.
func TestNoSessionLogAndSummary(t *testing.T) {
	for path, words := range map[string]string{"internal/cli": "holds no session log", "README.md": "is not a session log"} {
		if _, errs, code := run(t, "check", path); code != 2 || !strings.Contains(errs, path) || !strings.Contains(errs, words) {
			t.Errorf("check %s: exit %d, stderr %q; want 2 and %q", path, code, errs, words)
		}
	}
	_, errs, code := run(t, "check", "testdata/sessions/demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl")
	if code != 0 || errs != "ccdag: 1 session, 2 files: 0 errors, 1 warning, 1 information, 0 hints\n" {
		t.Errorf("summary: exit %d, stderr %q", code, errs)
	}
	if _, errs, _ := run(t, "check", "--format", "json", "testdata/sessions/demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl"); errs != "" {
		t.Errorf("json output writes to stderr: %q", errs)
	}
}

func TestExitCodesAndErrors(t *testing.T) {
	demo := "testdata/sessions/demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl"
	if _, _, code := run(t, "check", demo); code != 0 {
		t.Errorf("warnings only, --fail-on error: exit %d, want 0", code)
	}
	if _, _, code := run(t, "check", "--fail-on", "warning", demo); code != 1 {
		t.Errorf("--fail-on warning: exit %d, want 1", code)
	}
	if out, _, code := run(t, "check", "--severity", "orphan=error", demo); code != 1 || !strings.Contains(out, "error: parentUuid") {
		t.Errorf("--severity orphan=error: exit %d\n%s", code, out)
	}
	if out, _, _ := run(t, "check", "--severity", "orphan=off", demo); strings.Contains(out, "[orphan]") {
		t.Errorf("--severity orphan=off still reports orphans")
	}
	for _, args := range [][]string{
		{"check"}, {"check", "--format", "xml", demo}, {"check", "--fail-on", "sometimes", demo},
		{"check", "--severity", "nonsense=error", demo}, {"check", "testdata/does-not-exist.jsonl"}, {"frobnicate"},
		{"check", "internal/cli"}, {"check", "README.md"}, {"check", demo, "docs"},
	} {
		if _, errs, code := run(t, args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
	out, _, code := run(t, "check", "--format", "sarif", "--fail-on", "never", demo)
	var sarif struct {
		Version string
		Runs    []struct{ Results []struct{ RuleID string } }
	}
	if code != 0 || json.Unmarshal([]byte(out), &sarif) != nil || sarif.Version != "2.1.0" || len(sarif.Runs[0].Results) != 2 {
		t.Errorf("sarif: exit %d, %+v", code, sarif)
	}
	if out, _, code := run(t, "version"); code != 0 || !strings.HasPrefix(out, "ccdag ") {
		t.Errorf("version: %q", out)
	}
}

func TestGraphFormats(t *testing.T) {
	demo := "testdata/sessions/demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl"
	out, errs, code := run(t, "graph", demo)
	if code != 0 {
		t.Fatalf("graph: exit %d %s", code, errs)
	}
	var g struct {
		Session struct{ ID string }
		Lanes   []struct{ ID, SubagentType string }
		Nodes   []struct{ ID, Kind, Lane string }
		Edges   []struct{ Source, Target, Kind string }
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatal(err)
	}
	if g.Session.ID != "3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a" || len(g.Lanes) != 2 || g.Lanes[1].SubagentType != "Explore" {
		t.Errorf("session/lanes: %+v %+v", g.Session, g.Lanes)
	}
	kinds := map[string]int{}
	for _, e := range g.Edges {
		kinds[e.Kind]++
	}
	for _, k := range []string{"flow", "tool", "spawn", "return", "compact"} {
		if kinds[k] == 0 {
			t.Errorf("no %s edge in the demo graph: %v", k, kinds)
		}
	}
	for format, marker := range map[string]string{"dot": "digraph", "mermaid": "flowchart", "html": "Content-Security-Policy"} {
		out, errs, code := run(t, "graph", "--format", format, demo)
		if code != 0 || !strings.Contains(out, marker) {
			t.Errorf("--format %s: exit %d %s, no %q", format, code, errs, marker)
		}
	}
	// --format text is graph.Text, the drawing the editors show: held by testdata/graph's goldens.
	out, errs, code = run(t, "graph", "--format", "text", "testdata/graph/fork/0b000004-4444-4444-8444-000000000004.jsonl")
	if want, err := os.ReadFile("../../testdata/graph/fork/graph.golden.txt"); code != 0 || err != nil || out != string(want) {
		t.Errorf("--format text: exit %d %s %v:\n%s\nwant testdata/graph/fork/graph.golden.txt", code, errs, err, out)
	}
	dir := t.TempDir()
	if _, errs, code := run(t, "graph", "--format", "html", "-o", filepath.Join(dir, "g.html"), demo); code != 0 {
		t.Fatalf("-o: exit %d %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "g.html")); err != nil || !bytes.Contains(b, []byte("<html")) {
		t.Errorf("-o wrote %d bytes, %v", len(b), err)
	}
	for _, args := range [][]string{{"graph"}, {"graph", "--format", "png", demo}, {"graph", "testdata/nope.jsonl"}, {"graph", "testdata"}, {"graph", demo, demo}} {
		if _, errs, code := run(t, args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d %q, want 2 and a message", args, code, errs)
		}
	}
}

// A file keeps the first session.MaxLineErrors faulty lines of a kind; `check` still lists every
// one, read again from the file as it writes them, in line order among the other findings, and
// counts them all (the editor gets the first ones and a count: internal/lsp).
func TestCheckListsEveryFaultyLine(t *testing.T) {
	var b strings.Builder
	var want []int // the faulty lines, 1-based
	b.WriteString(`{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")
	for i := 2; i <= 2600; i++ {
		switch {
		case i == 1500:
			b.WriteString(`{"type":"assistant","parentUuid":"a","sessionId":"s","message":{"role":"assistant","content":"no uuid"}}` + "\n")
			continue
		case i%500 == 0:
			b.WriteString("[1,\n")
		default:
			b.WriteString("1\n")
		}
		want = append(want, i)
	}
	path := filepath.Join(t.TempDir(), "faulty.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "check", path)
	if code != 1 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	var got []int
	missingUUID := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		parts := strings.SplitN(l, ":", 4)
		n, _ := strconv.Atoi(parts[1])
		switch {
		case strings.HasSuffix(l, "[missing-uuid]"):
			missingUUID = len(got)
			if n != 1500 {
				t.Errorf("missing-uuid on line %d", n)
			}
		case strings.HasSuffix(l, "[not-an-object]") || strings.HasSuffix(l, "[invalid-json]"):
			if strings.Contains(l, "are not shown") {
				t.Errorf("the count of the rest reached the CLI: %s", l)
			}
			got = append(got, n)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d faulty lines listed (%v...), want %d", len(got), got[:min(5, len(got))], len(want))
	}
	if want[missingUUID] < 1500 || want[missingUUID-1] > 1500 {
		t.Errorf("missing-uuid listed after line %d", want[missingUUID-1])
	}
	if !strings.Contains(stderr, fmt.Sprintf("%d errors, 1 warning", len(want))) {
		t.Errorf("summary: %s", stderr)
	}
	js, _, _ := run(t, "check", "--format", "json", path)
	var doc struct {
		Diagnostics []struct{ Line int } `json:"diagnostics"`
		Summary     struct{ Error int }  `json:"summary"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Diagnostics) != len(want)+1 || doc.Summary.Error != len(want) {
		t.Errorf("json: %d diagnostics, %d errors; want %d and %d", len(doc.Diagnostics), doc.Summary.Error, len(want)+1, len(want))
	}
}

// A session with more findings than checkAll holds is streamed: its output, exit code and summary
// must be those of the held path, byte for byte, across a main log and an agent log, findings
// pointing at other records, a faulty file past session.MaxLineErrors and a second session.
func TestStreamedCheckIsTheSame(t *testing.T) {
	dir := t.TempDir()
	var main, agent strings.Builder
	main.WriteString(`{"type":"user","uuid":"u0","sessionId":"s1","message":{"role":"user","content":"hi"}}` + "\n")
	for i := 1; i < 6000; i++ {
		switch i % 5 {
		case 0:
			main.WriteString(`{"type":"user"}` + "\n") // missing-uuid
		case 1:
			fmt.Fprintf(&main, `{"type":"user","uuid":"u0","parentUuid":"u%d","sessionId":"s1","message":{"role":"user","content":"dup"}}`+"\n", i) // duplicate-uuid, orphan
		case 2:
			main.WriteString("1\n") // not-an-object, past the thousand kept
		case 3:
			fmt.Fprintf(&main, `{"type":"user","uuid":"r%d","parentUuid":"u0","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"x"}]}}`+"\n", i, i)
		default:
			main.WriteString("{\n") // invalid-json
		}
	}
	for i := range 1200 {
		fmt.Fprintf(&agent, `{"type":"assistant","uuid":"a%d","parentUuid":"gone","isSidechain":true,"sessionId":"s1","message":{"role":"assistant","content":"x"}}`+"\n", i)
	}
	if err := os.MkdirAll(filepath.Join(dir, "s1", "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, text string) {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("s1.jsonl", main.String())
	write("s1/subagents/agent-x.jsonl", agent.String())
	write("s2.jsonl", `{"type":"user","uuid":"b","parentUuid":"nowhere","sessionId":"s2","message":{"role":"user","content":"hi"}}`+"\n")

	old := streamAbove
	defer func() { streamAbove = old }()
	for _, args := range [][]string{{"check", dir}, {"check", "--format", "json", dir}, {"check", "--severity", "orphan=off", "--fail-on", "warning", dir}} {
		streamAbove = 1 << 62
		held, heldErr, heldCode := run(t, args...)
		streamAbove = 100
		streamed, streamedErr, streamedCode := run(t, args...)
		if strings.Count(held, "\n") < 5000 {
			t.Fatalf("%v: only %d lines: the fixture does not reach the cap", args, strings.Count(held, "\n"))
		}
		if held != streamed || heldErr != streamedErr || heldCode != streamedCode {
			t.Errorf("%v: streamed output differs (exit %d vs %d, stderr %q vs %q)", args, streamedCode, heldCode, streamedErr, heldErr)
		}
	}
}

// SARIF lists what JSON lists, streamed as JSON is: every line that is not a record (not the 1 000
// a file keeps, and SARIF had lost the finding counting the rest) and every finding of a session
// too large to hold (a million missing-uuid findings took 1.5 GB before SARIF was written).
func TestSARIFListsWhatJSONLists(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")
	b.WriteString(strings.Repeat("1\n", 1500))                           // not-an-object, past the 1 000 kept
	b.WriteString(strings.Repeat(`{"type":"user"}`+"\n", streamAbove+5)) // missing-uuid, streamed
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "check", "--format", "json", "--fail-on", "warning", path)
	var js struct {
		Diagnostics []struct {
			Code         string
			Line, Column int
		}
	}
	if code != 1 || json.Unmarshal([]byte(out), &js) != nil {
		t.Fatalf("json: exit %d, %.300s", code, out)
	}
	out, _, code = run(t, "check", "--format", "sarif", "--fail-on", "warning", path)
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if code != 1 || json.Unmarshal([]byte(out), &sarif) != nil || len(sarif.Runs) != 1 {
		t.Fatalf("sarif: exit %d, %.300s", code, out)
	}
	want := 1500 + streamAbove + 5
	res := sarif.Runs[0].Results
	if len(js.Diagnostics) != want || len(res) != want {
		t.Fatalf("json %d findings, sarif %d; want %d each", len(js.Diagnostics), len(res), want)
	}
	for i, d := range js.Diagnostics {
		r := res[i]
		if reg := r.Locations[0].PhysicalLocation.Region; r.RuleID != d.Code || reg.StartLine != d.Line || reg.StartColumn != d.Column {
			t.Fatalf("finding %d: json %s at %d:%d, sarif %s at %d:%d", i, d.Code, d.Line, d.Column, r.RuleID, reg.StartLine, reg.StartColumn)
		}
	}
}
