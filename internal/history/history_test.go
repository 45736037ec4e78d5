package history

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/layout"
)

// Sessions finds what layout.Discover finds for each main log, in every layout, newest first,
// without following a link out of the folder, and says what it could not read.
func TestSessionsAgreeWithDiscover(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string, age time.Duration) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		os.Chtimes(p, when, when)
	}
	rec := func(sid string) string { return `{"type":"user","uuid":"u","sessionId":"` + sid + `"}` }
	write("a/plain.jsonl", rec("plain"), 3*time.Hour)                    // alone in its folder
	write("b/nested.jsonl", rec("nested"), 5*time.Hour)                  // 2.1.2+: <id>/subagents/
	write("b/nested/subagents/agent-n1.jsonl", rec("nested"), time.Hour) // ... newer than its main log
	write("c/flat.jsonl", rec("flat"), 4*time.Hour)                      // 2.0: agent-<id>.jsonl beside
	write("c/agent-f1.jsonl", rec("flat"), 4*time.Hour)                  // ... tied by sessionId
	write("c/other.jsonl", rec("other"), 2*time.Hour)                    // same folder, not its agent
	write("b/nested/subagents/agent-n1.meta.json", "{}", time.Hour)      // its meta file
	write("d/wf.jsonl", rec("wf"), 6*time.Hour)                          // a workflow's agents, deeper
	write("d/wf/subagents/workflows/r1/agent-w1.jsonl", rec("wf"), 6*time.Hour)
	write("e/ln.jsonl", rec("ln"), 7*time.Hour)                   // a link to a log inside the
	write("e/ln/subagents/keep/real.txt", rec("ln"), 7*time.Hour) // session's folder: followed
	os.Symlink("keep/real.txt", filepath.Join(root, "e/ln/subagents/agent-l1.jsonl"))
	outside := filepath.Join(t.TempDir(), "out.jsonl")
	os.WriteFile(outside, []byte(rec("out")+"\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "a", "link.jsonl"))
	write("f/lo.jsonl", rec("lo"), 8*time.Hour) // subagents/ a link out of the folder: not followed
	write("f/lo/kept.jsonl", rec("lo"), 9*time.Hour)
	os.MkdirAll(filepath.Join(filepath.Dir(outside), "sub"), 0o755)
	os.WriteFile(filepath.Join(filepath.Dir(outside), "sub", "agent-o1.jsonl"), []byte(rec("lo")+"\n"), 0o644)
	os.Symlink(filepath.Join(filepath.Dir(outside), "sub"), filepath.Join(root, "f/lo/subagents"))

	got, errs := Sessions([]string{root, filepath.Join(root, "missing")})
	if len(errs) != 1 {
		t.Errorf("errors %v, want one for the missing folder", errs)
	}
	var ids []string
	for _, s := range got {
		ids = append(ids, s.ID)
		want, err := layout.Discover(s.Paths()[0])
		if err != nil || !reflect.DeepEqual(s.Found, want) {
			t.Errorf("%s: %+v, Discover %+v", s.ID, s.Found, want)
		}
	}
	for _, s := range got {
		if s.ID == "ln" && len(s.Agents) != 1 || s.ID == "nested" && (len(s.Agents) != 1 || s.Agents[0].Meta == "") || s.ID == "wf" && len(s.Agents) != 1 {
			t.Errorf("%s: agents %+v", s.ID, s.Agents)
		}
	}
	if want := []string{"nested", "other", "plain", "flat", "wf", "ln", "lo", "kept"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("sessions %v, want %v (newest first, no link followed)", ids, want)
	}
}

// The walk hands on each folder's entries as it listed them (Session.Listed), so that finding a
// session's sub-agent logs (layout.DiscoverListed) and the resume loader's newest version list no
// folder a second time; a folder it could not list whole, or did not list, is not answered.
func TestSessionListedIsTheWalks(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"p/s1.jsonl", "p/s1/subagents/agent-a1.jsonl", "p/notes.txt", "q/s2.jsonl"} {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u","sessionId":"s1"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("s1.jsonl", filepath.Join(root, "p", "link.jsonl"))
	got, _ := Sessions([]string{root, filepath.Join(root, "p")}) // p walked twice: listed once
	if len(got) != 2 {
		t.Fatalf("sessions: %+v", got)
	}
	for _, dir := range []string{root, filepath.Join(root, "p"), filepath.Join(root, "p", "s1"), filepath.Join(root, "p", "s1", "subagents"), filepath.Join(root, "q")} {
		es, ok := got[0].Listed(dir)
		want, err := os.ReadDir(dir)
		if !ok || err != nil || len(es) != len(want) {
			t.Errorf("Listed(%s) = %v, %v; want %v", dir, es, ok, want)
			continue
		}
		for i := range es {
			if es[i].Name() != want[i].Name() || es[i].Type() != want[i].Type() {
				t.Errorf("Listed(%s)[%d] = %s %v, want %s %v", dir, i, es[i].Name(), es[i].Type(), want[i].Name(), want[i].Type())
			}
		}
	}
	if _, ok := got[0].Listed(filepath.Join(root, "missing")); ok {
		t.Error("Listed answers for a folder the walk did not list")
	}
	named, _ := Sessions([]string{filepath.Join(root, "p", "s1.jsonl")})
	if _, ok := named[0].Listed(filepath.Join(root, "p")); ok {
		t.Error("Listed answers for the folder of a named log (not walked)")
	}
	if os.Geteuid() != 0 { // root reads a folder whatever its mode
		os.Chmod(filepath.Join(root, "q"), 0o300)
		defer os.Chmod(filepath.Join(root, "q"), 0o755)
		again, _ := Sessions([]string{root})
		if _, ok := again[0].Listed(filepath.Join(root, "q")); ok {
			t.Error("Listed answers for a folder the walk could not read")
		}
	}
}

// A log named alone brings in its whole session, as its folder does: sub-agent logs below
// <id>/subagents/ and flat agent-<id>.jsonl files beside it.
func TestSessionsOfANamedLogAreWhole(t *testing.T) {
	root := t.TempDir()
	for rel, sid := range map[string]string{"b/nested.jsonl": "nested", "b/nested/subagents/agent-n1.jsonl": "nested",
		"c/flat.jsonl": "flat", "c/agent-f1.jsonl": "flat"} {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u","sessionId":"`+sid+`"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, main := range []string{"b/nested.jsonl", "c/flat.jsonl"} {
		named := filepath.Join(root, main)
		got, errs := Sessions([]string{named})
		if len(got) != 1 || len(errs) != 0 {
			t.Fatalf("%s: %d sessions, errors %v", main, len(got), errs)
		}
		in, _ := Sessions([]string{filepath.Dir(named)})
		if len(got[0].Agents) != 1 || !reflect.DeepEqual(got[0].Paths(), in[0].Paths()) {
			t.Errorf("%s named: files %v; named by its folder: %v", main, got[0].Paths(), in[0].Paths())
		}
	}
}

// The walk's look at each log is handed on (Session.Info), so that stamping the logs for the
// history cache needs no second lstat of each; a named log (os.Stat: it may be a link) and a path
// the walk did not see are not answered.
func TestSessionInfoIsTheWalks(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "p", "s1.jsonl")
	agent := filepath.Join(root, "p", "s1", "subagents", "agent-a1.jsonl")
	for _, p := range []string{main, agent} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u","sessionId":"s1"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := Sessions([]string{root})
	if len(got) != 1 {
		t.Fatalf("sessions: %+v", got)
	}
	for _, p := range []string{main, agent} {
		fi, ok := got[0].Info(p)
		want, err := os.Lstat(p)
		if !ok || err != nil || !reflect.DeepEqual(fi.Sys(), want.Sys()) || fi.Size() != want.Size() || !fi.ModTime().Equal(want.ModTime()) {
			t.Errorf("Info(%s) = %v, %v; want the lstat %v", p, fi, ok, want)
		}
	}
	if _, ok := got[0].Info(filepath.Join(root, "p", "gone.jsonl")); ok {
		t.Error("Info answers for a log the walk did not see")
	}
	named, _ := Sessions([]string{main})
	if _, ok := named[0].Info(main); ok {
		t.Error("Info answers for a named log (its os.Stat, not its lstat)")
	}
}

// A folder named that is itself a link (~/.claude/projects kept on another disk) is walked: its
// sessions are found, with their paths under the name given, and a link inside it is still not
// followed out.
func TestSessionsOfALinkedFolder(t *testing.T) {
	real, outside := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(real, "-home-x", "s1.jsonl"), filepath.Join(outside, "o.jsonl")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u","sessionId":"s1"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	named := filepath.Join(t.TempDir(), "projects")
	if err := os.Symlink(real, named); err != nil {
		t.Skipf("no links here: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(real, "out")); err != nil {
		t.Fatal(err)
	}
	got, errs := Sessions([]string{named})
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(got) != 1 || got[0].Found.Main != filepath.Join(named, "-home-x", "s1.jsonl") {
		t.Fatalf("sessions under the linked folder: %+v, want the one log under %s", got, named)
	}
	if _, ok := got[0].Info(got[0].Found.Main); !ok {
		t.Error("the walk's lstat of the log is not handed on")
	}
}
