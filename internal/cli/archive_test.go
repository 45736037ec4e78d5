package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchiveAfterRedactWrite: a log ccdag's own `redact --write` rewrote is archived as a new
// version beside the old copy, which stays as it was (before: refused on every run, the rest of
// the conversation never archived).
func TestArchiveAfterRedactWrite(t *testing.T) {
	p, text, spans := plantSecrets(t)
	src := filepath.Dir(filepath.Dir(p))
	dest := filepath.Join(t.TempDir(), "arch")
	if _, errs, code := run(t, "archive", dest, src); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, errs, code := run(t, "redact", "--write", p); code != ExitOK {
		t.Fatalf("redact --write: exit %d: %s", code, errs)
	}
	redacted, _ := os.ReadFile(p)
	_, errs, code := run(t, "archive", dest, src)
	noSecretIn(t, "archive", errs, spans)
	if code != ExitOK || !strings.Contains(errs, "1 new version(s) of rewritten logs") || !strings.Contains(errs, "rewritten by ccdag fix or redact") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
	if b, _ := os.ReadFile(filepath.Join(dest, "proj", name+".v2.jsonl")); !bytes.Equal(b, redacted) {
		t.Error("the new version is not the redacted log")
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "proj", name+".jsonl")); !bytes.Equal(b, text) {
		t.Error("the old copy was changed")
	}
	if _, errs, code = run(t, "archive", dest, src); code != ExitOK || !strings.Contains(errs, "0 new file(s), 0 grown, 1 already archived") {
		t.Errorf("again: exit %d: %s", code, errs)
	}
}

// TestArchiveDefaultLinkAndNamedLog: the config folder's projects/ kept elsewhere through a link is
// followed, and said; a log named is archived (before: nothing, exit 0, both times).
func TestArchiveDefaultLinkAndNamedLog(t *testing.T) {
	real := filepath.Join(t.TempDir(), "projects-elsewhere")
	log := filepath.Join(real, "-home-me-proj", "3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl")
	os.MkdirAll(filepath.Dir(log), 0o755)
	b, _ := os.ReadFile(filepath.Join("../..", exportDemo, filepath.Base(log)))
	os.WriteFile(log, b, 0o644)
	cfg := t.TempDir()
	if err := os.Symlink(real, filepath.Join(cfg, "projects")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	dest := filepath.Join(t.TempDir(), "arch")
	_, errs, code := run(t, "archive", dest)
	if code != ExitOK || !strings.Contains(errs, "a link named as a source: followed to "+real) || !strings.Contains(errs, "1 new file") {
		t.Errorf("projects/ a link: exit %d: %s", code, errs)
	}
	dest = filepath.Join(t.TempDir(), "arch")
	_, errs, code = run(t, "archive", dest, log)
	if code != ExitOK || !strings.Contains(errs, "1 new file") {
		t.Errorf("a log named: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dest, filepath.Base(log))); err != nil {
		t.Errorf("a log named: %v", err)
	}
}
