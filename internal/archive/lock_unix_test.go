//go:build unix

package archive

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A second run into a DEST another run holds is refused before it removes or writes anything: it
// would remove the other's temporary files.
func TestArchiveOneRunAtATime(t *testing.T) {
	src := tree(t)
	dest := filepath.Join(t.TempDir(), "archive")
	os.MkdirAll(dest, 0o755)
	root, err := os.OpenRoot(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	unlock, err := lock(root)
	if err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(dest, tempPrefix+"other-run")
	write(t, temp, "being written")
	if _, err := Run(dest, []string{src}); !errors.Is(err, ErrBusy) {
		t.Errorf("a second run: %v, want ErrBusy", err)
	}
	if _, err := os.Stat(temp); err != nil {
		t.Errorf("the other run's temporary file was removed: %v", err)
	}
	unlock()
	if res, err := Run(dest, []string{src}); err != nil || res.New != 5 {
		t.Errorf("after the other run: %+v %v", res, err)
	}
}
