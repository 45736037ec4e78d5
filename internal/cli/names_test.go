package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every text output of every command prints file and folder names escaped, stdout and stderr: a
// name holding a newline cannot forge a hit line, one holding ESC cannot set the terminal's title
// or colours (issue 20). `check --format text` did so before; search and sessions did not.
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
