package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// Every text output of every command prints file and folder names escaped, stdout and stderr: a
// name holding a newline cannot forge a hit line, one holding ESC cannot set the terminal's title
// or colours (issue 20). `check --format text` did so before; search and sessions did not, nor
// redact, archive, export and resume on stderr.
func TestTextOutputsEscapeNames(t *testing.T) {
	evil := "evil\nsecrets.txt:1:1: USER_INPUT: FORGED HIT \x1b]0;pwned\x07\x1b[31m\u202e"
	root := t.TempDir()
	proj := filepath.Join(root, "proj"+evil)
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(proj, evil+".jsonl")
	if err := os.WriteFile(log, []byte(`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"needle here"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// a second session with a secret in it (redact names the file of each hit) and a timestamp
	// (export), in a folder of its own so that search still finds one hit
	other := filepath.Join(t.TempDir(), "other"+evil)
	secret := secretstest.Plants(20)[0].Secret
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, evil+"2.jsonl"), []byte(`{"type":"user","uuid":"u1","sessionId":"s2","timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":"key `+secret+`"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(root, "gone"+evil)
	clean := func(what, s string) {
		t.Helper()
		if strings.ContainsAny(s, "\x1b\x07\u202e") || strings.Contains(s, "\nsecrets") {
			t.Errorf("%s prints a raw name:\n%q", what, s)
		}
	}
	for _, args := range [][]string{
		{"search", "needle", root},
		{"search", "needle", missing, root},
		{"sessions", root},
		{"sessions", missing, root},
		{"check", root},
		{"check", missing},
		{"fix", root},
		{"graph", log + "x"},
		{"transcript", log + "x"},
		{"redact", root, other},
		{"redact", missing},
		{"redact", "-o", filepath.Join(t.TempDir(), "out"+evil), other},
		{"archive", filepath.Join(t.TempDir(), "dest"+evil), root, other},
		{"archive", filepath.Join(t.TempDir(), "dest"+evil), missing},
		{"export", "--format", "otlp-json", "-o", filepath.Join(t.TempDir(), "out"+evil), root, other},
		{"export", "--format", "otlp-json", missing},
		{"export", "--otlp", "http://127.0.0.1:1/v1/traces", "--state", filepath.Join(t.TempDir(), "state"+evil, "s.json"), other},
		{"resume", log},
		{"resume", log + "x"},
		{"resume", filepath.Join(other, evil+"2.jsonl") + "/x.jsonl"},
	} {
		out, errs, _ := run(t, args...)
		clean(args[0]+" stdout", out)
		clean(args[0]+" stderr", errs)
	}
	out, _, _ := run(t, "search", "needle", root)
	if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, `\x1b]0;pwned\x07`) {
		t.Errorf("search: %d lines, want one hit with the name escaped:\n%s", n, out)
	}
}
