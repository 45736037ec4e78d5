package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccdag/ccdag/internal/testutil"
)

// TestMain gives the tests a history cache folder of their own and an empty config folder with no
// `claude` on PATH: no test reads or writes the user's cache or indexes their history (a window on
// no .claude/projects folder indexes the config folder's), and the loader of the fixtures' logs is
// their own version on every machine.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ccdag-lsp-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("CCDAG_CACHE_DIR", filepath.Join(dir, "cache"))
	done := testutil.NoClaudeHere()
	code := m.Run()
	done()
	os.RemoveAll(dir)
	os.Exit(code)
}
