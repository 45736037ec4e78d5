package lsp

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the tests a history cache folder of their own: no test reads or writes the
// user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ccdag-lsp-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("CCDAG_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
