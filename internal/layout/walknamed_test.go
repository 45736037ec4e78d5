package layout

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// WalkNamed goes through a root that is a link and names what it finds under the root as given;
// a root that is a folder is walked as WalkDir walks it.
func TestWalkNamedThroughALink(t *testing.T) {
	real := t.TempDir()
	if err := os.MkdirAll(filepath.Join(real, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "p", "s.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, named); err != nil {
		t.Skipf("no links here: %v", err)
	}
	walk := func(root string) (seen []string) {
		err := WalkNamed(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			seen = append(seen, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return seen
	}
	want := []string{named, filepath.Join(named, "p"), filepath.Join(named, "p", "s.jsonl")}
	if got := walk(named); !slices.Equal(got, want) {
		t.Errorf("through the link: %q, want %q", got, want)
	}
	want = []string{real, filepath.Join(real, "p"), filepath.Join(real, "p", "s.jsonl")}
	if got := walk(real); !slices.Equal(got, want) {
		t.Errorf("the folder itself: %q, want %q", got, want)
	}
}
