package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `check` and `sessions` of a folder that is itself a link (~/.claude/projects kept on another
// disk) read the logs under it, named under the link; before, both said the folder held none.
func TestCheckAndSessionsOfALinkedFolder(t *testing.T) {
	real := filepath.Join(t.TempDir(), "projects")
	log, err := os.ReadFile("../../testdata/checks/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(real, "-home-x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "-home-x", "s.jsonl"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(real, named); err != nil {
		t.Skipf("no links here: %v", err)
	}
	if _, errs, code := run(t, "check", named); code != 0 || !strings.Contains(errs, "1 session, 1 file") {
		t.Errorf("check of the linked folder: exit %d, %q", code, errs)
	}
	out, errs, code := run(t, "sessions", "--no-cache", "--format", "json", named)
	if code != 0 || !strings.Contains(out, filepath.Join(named, "-home-x", "s.jsonl")) {
		t.Errorf("sessions of the linked folder: exit %d, %q %q", code, out, errs)
	}
}
