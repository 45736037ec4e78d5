package cli

import (
	"fmt"
	"os"
	"testing"
)

// helpers are roles the test binary may play in a process of its own (a log writer, a cache
// writer): each says whether the environment asks for it, and its exit code.
var helpers []func() (code int, ok bool)

// TestMain runs a helper role when asked, else the tests, with the history cache in a folder of
// their own: no test reads or writes the user's cache.
func TestMain(m *testing.M) {
	for _, h := range helpers {
		if code, ok := h(); ok {
			os.Exit(code)
		}
	}
	dir, err := os.MkdirTemp("", "ccdag-cli-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("CCDAG_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
