package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestRedactSaysWhatItCouldNotRead: a file named that passes the first look but whose read is
// refused (here a link, named, to /proc/self/status: a regular file whose size says 0 whatever it
// holds, so its read never matches its stat) is said to be unread, by name and why, and the summary
// does not say "no secret found" of it: it once did, after the error line, with or without --write.
func TestRedactSaysWhatItCouldNotRead(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	dir := filepath.Join(t.TempDir(), "proj")
	os.Mkdir(dir, 0o755)
	unread := filepath.Join(dir, "5e550000-0000-4000-8000-000000000003.jsonl")
	if err := os.Symlink("/proc/self/status", unread); err != nil {
		t.Fatal(err)
	}
	secret := secretstest.Plants(7)[0].Secret
	withSecret := filepath.Join(dir, "5e550000-0000-4000-8000-000000000004.jsonl")
	text := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"5e550000-0000-4000-8000-000000000004","timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":"key ` + secret + `"}}` + "\n"
	if err := os.WriteFile(withSecret, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		said []string
	}{
		{"write", []string{"redact", "--write", unread}, []string{"1 file(s) named could not be read"}},
		{"dry run", []string{"redact", unread}, []string{"1 file(s) named could not be read"}},
		{"with another", []string{"redact", unread, withSecret},
			[]string{"1 secret(s) in 1 file(s); dry run", "1 file(s) named could not be read"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := run(t, c.args...)
			if code != ExitUsage || strings.Contains(errs, "no secret") ||
				!strings.Contains(errs, "cannot read "+unread+": ") || !strings.Contains(errs, "changed while it was read") {
				t.Errorf("exit %d, stderr:\n%s", code, errs)
			}
			for _, s := range c.said {
				if !strings.Contains(errs, s) {
					t.Errorf("not said %q:\n%s", s, errs)
				}
			}
		})
	}
}
