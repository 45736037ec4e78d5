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
	outside := filepath.Join(t.TempDir(), "out.jsonl")
	os.WriteFile(outside, []byte(rec("out")+"\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "a", "link.jsonl"))

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
	if want := []string{"nested", "other", "plain", "flat"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("sessions %v, want %v (newest first, no link followed)", ids, want)
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
		if !ok || err != nil || !os.SameFile(fi, want) || fi.Size() != want.Size() || !fi.ModTime().Equal(want.ModTime()) {
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
