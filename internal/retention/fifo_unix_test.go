//go:build unix

package retention

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSettingsFIFORefused: a FIFO at settings.json is refused, not waited on (docs/spec.md §15):
// os.Open blocked until something wrote to it, and `ccdag sessions` with it. A link to a regular
// settings file is still read (dotfile managers link it).
func TestSettingsFIFORefused(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "settings.json"), 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan Policy, 1)
	go func() { done <- Load(dir) }()
	select {
	case p := <-done:
		if p.Days != DefaultDays || !strings.Contains(p.Problem, "not a regular file") {
			t.Errorf("FIFO settings: %+v", p)
		}
	case <-time.After(time.Minute): // only the defect waits: Load returns at once
		// Unblock the reader so the test process can end.
		if w, err := os.OpenFile(filepath.Join(dir, "settings.json"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("Load blocked on a FIFO at settings.json")
	}

	linked := t.TempDir()
	real := filepath.Join(t.TempDir(), "dotfiles-settings.json")
	os.WriteFile(real, []byte(`{"cleanupPeriodDays": 9}`), 0o644)
	if err := os.Symlink(real, filepath.Join(linked, "settings.json")); err != nil {
		t.Fatal(err)
	}
	if p := Load(linked); p.Days != 9 || !p.Set {
		t.Errorf("linked settings: %+v", p)
	}
}
