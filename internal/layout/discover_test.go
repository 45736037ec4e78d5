package layout

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// DiscoverListed takes a folder's entries from the listing it is given (a walk's) instead of
// listing the folder again, and looks on disk only where the listing does not answer.
func TestDiscoverListedReadsTheListing(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "s1.jsonl")
	sub := filepath.Join(root, "s1", "subagents")
	for _, p := range []string{main, filepath.Join(sub, "agent-a1.jsonl"), filepath.Join(sub, "agent-a2.jsonl"), filepath.Join(sub, "agent-a2.meta.json")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u","sessionId":"s1"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	disk, err := Discover(main)
	if err != nil || len(disk.Agents) != 2 || disk.Agents[1].Meta == "" {
		t.Fatalf("Discover: %+v, %v", disk, err)
	}
	asked := map[string]int{}
	walked := func(dir string) ([]fs.DirEntry, bool) {
		asked[dir]++
		es, err := os.ReadDir(dir)
		if err != nil {
			return nil, false
		}
		if dir == sub { // the walk saw no agent-a2 (made after it): neither is found
			es = slices.DeleteFunc(es, func(e fs.DirEntry) bool { return e.Name() != "agent-a1.jsonl" })
		}
		return es, true
	}
	got, err := DiscoverListed(main, walked)
	if err != nil || len(got.Agents) != 1 || got.Agents[0].AgentID != "a1" || got.Agents[0].Meta != "" {
		t.Errorf("DiscoverListed: %+v, %v; want a1 alone, as listed", got, err)
	}
	if asked[sub] == 0 || asked[root] == 0 {
		t.Errorf("listings asked: %v", asked)
	}
	none, err := DiscoverListed(main, func(string) ([]fs.DirEntry, bool) { return nil, false })
	if err != nil || len(none.Agents) != 2 {
		t.Errorf("with nothing listed: %+v, %v; want Discover's", none, err)
	}
}

// First is a session's first path as Paths lists them, without making the list.
func TestFoundFirst(t *testing.T) {
	for _, f := range []Found{{Main: "/p/s.jsonl", Agents: []Agent{{Path: "/p/s/subagents/agent-a.jsonl"}}},
		{Agents: []Agent{{Path: "/p/agent-b.jsonl"}, {Path: "/p/agent-c.jsonl"}}}, {Main: "/p/t.jsonl"}} {
		if got := f.First(); got != f.Paths()[0] {
			t.Errorf("First() = %q, Paths()[0] = %q", got, f.Paths()[0])
		}
	}
	if got := (Found{}).First(); got != "" {
		t.Errorf("First() of nothing = %q", got)
	}
}
