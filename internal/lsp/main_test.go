package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain gives the tests a history cache folder of their own and, unless the environment names
// one, an empty config folder: no test reads or writes the user's cache or indexes their history
// (a window on no .claude/projects folder indexes the config folder's).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ccdag-lsp-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("CCDAG_CACHE_DIR", filepath.Join(dir, "cache"))
	if os.Getenv("CLAUDE_CONFIG_DIR") == "" {
		os.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(dir, "config"))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
