package catalog

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/search"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// rowsOf makes the rows of every session under dir, by session id.
func rowsOf(t *testing.T, dir string) map[string]Row {
	t.Helper()
	found, errs := history.Sessions([]string{dir})
	if len(errs) > 0 || len(found) == 0 {
		t.Fatalf("%d sessions, errors %v", len(found), errs)
	}
	rows := map[string]Row{}
	for _, h := range found {
		s, err := layout.LoadFound(h.Found, nil)
		if err != nil {
			t.Fatal(err)
		}
		rows[h.ID] = RowOf(s, h, func(p string) string { return p })
	}
	return rows
}

// TestRows (testdata/rows): a row people can read. The project is the folder the session ran in
// with ~, not Claude Code's encoded folder name (kept as projectFolder); sessions opened by a slash
// command without arguments are told apart by what follows it; a session without a message is
// empty; a cost priced on placeholder output counts is a lower bound.
func TestRows(t *testing.T) {
	rows := rowsOf(t, "testdata/rows")
	for id, want := range map[string]struct {
		title string
		empty bool
		bound bool
	}{
		"a1111111-1111-4111-8111-111111111111": {title: "/erk:plan-implement #4242"},                                  // its arguments
		"b2222222-2222-4222-8222-222222222222": {title: "/erk:plan-implement · use the magic link plan from staging"}, // the prompt typed after it
		"c3333333-3333-4333-8333-333333333333": {title: "/erk:plan-implement · plnd/fix-login-02-03", bound: true},    // its git branch
		"d4444444-4444-4444-8444-444444444444": {title: "", empty: true},
	} {
		r, ok := rows[id]
		if !ok {
			t.Errorf("%s: no row", id)
			continue
		}
		if r.Title != want.title || r.Empty != want.empty || r.Cost.LowerBound != want.bound {
			t.Errorf("%s: title %q empty %v cost %+v; want %q, %v, lower bound %v", id, r.Title, r.Empty, r.Cost, want.title, want.empty, want.bound)
		}
		if r.ProjectFolder != "-Users-ann-Desktop-webtech" {
			t.Errorf("%s: projectFolder %q", id, r.ProjectFolder)
		}
		wantProject := "~/Desktop/webtech"
		if want.empty { // no record names a cwd: the folder's name
			wantProject = "-Users-ann-Desktop-webtech"
		}
		if r.Project != wantProject {
			t.Errorf("%s: project %q, want %q", id, r.Project, wantProject)
		}
	}
	if c := rows["c3333333-3333-4333-8333-333333333333"].Cost; !strings.HasPrefix(c.String(), "≥ $") {
		t.Errorf("a lower bound shown %q", c.String())
	}
	if r := rows["d4444444-4444-4444-8444-444444444444"]; r.TitleText() != "(no messages)" {
		t.Errorf("an empty session's title column: %q", r.TitleText())
	}
}

// TestCorpusPlanSessionsToldApart: the two /erk:plan-implement sessions of the corpus (no
// arguments, no prompt after the command) read apart by their branches.
func TestCorpusPlanSessionsToldApart(t *testing.T) {
	dir := testcorpus.Path(t, "dagster-io__erk/session", "that sessions opened by a bare slash command get titles that tell them apart")
	rows := rowsOf(t, dir)
	seen := map[string]string{}
	for id, r := range rows {
		if !strings.HasPrefix(r.Title, "/erk:plan-implement · plnd/") {
			t.Errorf("%s: title %q", id, r.Title)
		}
		if other, dup := seen[r.Title]; dup {
			t.Errorf("%s and %s share the title %q", id, other, r.Title)
		}
		seen[r.Title] = id
		if r.Project != "~/.erk/repos/erk/worktrees/erk-slot-"+map[bool]string{true: "37", false: "36"}[strings.HasPrefix(id, "1b2f")] {
			t.Errorf("%s: project %q", id, r.Project)
		}
	}
}

// TestProjectOf: a cwd with ~ for a home folder guessed from it (macOS, Linux, Windows), kept
// whole elsewhere, escaped; the folder's name without a cwd.
func TestProjectOf(t *testing.T) {
	for _, c := range []struct{ cwd, folder, want string }{
		{"/Users/liuhanwen/Desktop/webtech", "-Users-liuhanwen-Desktop-webtech", "~/Desktop/webtech"},
		{"/home/dev/app", "-home-dev-app", "~/app"},
		{`C:\Users\eduar\src\x`, "C--Users-eduar-src-x", `~\src\x`},
		{"/srv/build", "-srv-build", "/srv/build"},
		{"/Users/ann", "-Users-ann", "~"},
		{"", "-Users-ann-x", "-Users-ann-x"},
		{"/tmp/\x1b[31mred", "x", `/tmp/\x1b[31mred`},
	} {
		if got := ProjectOf(c.cwd, c.folder); got != c.want {
			t.Errorf("ProjectOf(%q, %q) = %q, want %q", c.cwd, c.folder, got, c.want)
		}
	}
}

// TestSetDeletes: a deletion day still ahead is a date; one that has come is overdue, shown
// "at next start" (Claude Code deletes the log when it next starts), with the day it was due.
func TestSetDeletes(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.Local)
	var r Row
	r.SetDeletes(now.AddDate(0, 0, 3), now)
	if r.Overdue || r.Deletes != "2026-11-30" || r.DeletesText() != "2026-11-30" {
		t.Errorf("ahead: %+v %q", r, r.DeletesText())
	}
	r.SetDeletes(time.Date(2026, 3, 31, 12, 0, 0, 0, time.Local), now)
	if !r.Overdue || r.Deletes != "2026-03-31" || r.DeletesText() != "at next start (due 2026-03-31)" {
		t.Errorf("past: %+v %q", r, r.DeletesText())
	}
	if (&Row{}).DeletesText() != "-" {
		t.Error("never deleted")
	}
}

// TestHolds: a session matches a query when one record holds every word (case-insensitive), as
// `ccdag search` finds it, in any of its logs; words spread over two records do not match.
func TestHolds(t *testing.T) {
	q, err := search.Compile("MAGIC link")
	if err != nil {
		t.Fatal(err)
	}
	sc := q.NewScanner()
	one := []byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":"send the Magic Link again"}}` + "\n")
	apart := []byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":"magic"}}` + "\n" +
		`{"type":"user","uuid":"u2","message":{"role":"user","content":"link"}}` + "\n")
	if !Holds(sc, apart, one) {
		t.Error("the second log's record holding both words is not found")
	}
	if Holds(sc, apart) {
		t.Error("words in two records match")
	}
	found, _ := history.Sessions([]string{filepath.Join("testdata", "rows")})
	hits := map[string]bool{}
	for _, h := range found {
		hits[h.ID] = FoundHolds(sc, h.Found)
	}
	if !hits["b2222222-2222-4222-8222-222222222222"] || hits["a1111111-1111-4111-8111-111111111111"] {
		t.Errorf("sessions' matches: %v", hits)
	}
	// A log that cannot be read is not silently dropped: the load that follows reports it.
	if !FoundHolds(sc, layout.Found{Main: filepath.Join(t.TempDir(), "gone.jsonl")}) {
		t.Error("an unreadable log dropped by the query")
	}
}

// TestCostString: the COST column.
func TestCostString(t *testing.T) {
	for _, c := range []struct {
		cost Cost
		want string
	}{
		{Cost{}, "-"},
		{Cost{Unpriced: 2}, "unpriced"},
		{Cost{USD: 6.77, Priced: 3}, "$6.77"},
		{Cost{USD: 6.77, Priced: 3, LowerBound: true}, "≥ $6.77"},
		// a sum saturated at int64's end: its dollars as a float64 are just past it, and a plain
		// conversion wrapped them to "-$9,223,372,037"
		{Cost{USD: prices.Nano(math.MaxInt64).USD(), Priced: 2}, "$9,223,372,037"},
		{Cost{USD: 1e300, Priced: 1}, "$9,223,372,037"},
	} {
		if got := c.cost.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.cost, got, c.want)
		}
	}
}

// TestTitleOfHostileBranch: a git branch of a megabyte of escapes and terminal controls, after a
// bare command, makes a short title escaped like any log text.
func TestTitleOfHostileBranch(t *testing.T) {
	branch := strings.Repeat(`\u001b[31m\"`, 1<<17)
	line := `{"type":"user","uuid":"u1","sessionId":"s","gitBranch":"` + branch + `","message":{"role":"user","content":"<command-name>/clear</command-name>"}}` + "\n"
	s := layout.SessionOf(session.NewFile("s.jsonl", []byte(line)))
	got := Title(s, Options{})
	if !strings.HasPrefix(got, `/clear · \x1b[31m"`) || len(got) > 4*TitleMax+len("…") /* Shorten cuts, then escapes */ || strings.ContainsRune(got, 0x1b) {
		t.Errorf("title %q (%d bytes)", got, len(got))
	}
}

// TestTitleHidesSecretsItsCutLeavesWhole (docs/spec.md §15): a title is made of a prompt's first
// 320 bytes; a secret across that end no longer matches its rule there (a token after a page of
// blank lines, a pasted key whose END line is further on, a branch name), yet none of its 8 bytes
// show.
func TestTitleHidesSecretsItsCutLeavesWhole(t *testing.T) {
	ps := secretstest.Plants(31)
	token, key := ps[1].Secret, ps[3].Secret // github-pat, private-key
	esc := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	user := func(content, branch string) string {
		return `{"type":"user","uuid":"u1","sessionId":"s","gitBranch":` + esc(branch) + `,"message":{"role":"user","content":` + esc(content) + `}}` + "\n"
	}
	for name, line := range map[string]string{
		"token across byte 320": user("deploy"+strings.Repeat("\n", 280)+" "+token+" done", "main"),
		"pasted key":            user("Use this deploy key:\n"+key+"\nand push", "main"),
		"branch across 320":     user("<command-name>/clear</command-name>", strings.Repeat(" ", 300)+token),
	} {
		s := layout.SessionOf(session.NewFile("s.jsonl", []byte(line)))
		got := Title(s, Options{})
		if leak := secretstest.Leak(got, ps); leak != "" {
			t.Errorf("%s: the title %q shows %q", name, got, leak)
		}
		if got := Title(s, Options{NoRedact: true}); name != "pasted key" && secretstest.Leak(got, ps) == "" {
			t.Errorf("%s: without redaction the title %q shows no secret: the case tests nothing", name, got)
		}
	}
}
