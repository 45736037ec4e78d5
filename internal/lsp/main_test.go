package lsp

import (
	"os"
	"testing"

	"github.com/ccdag/ccdag/internal/testutil"
)

func TestMain(m *testing.M) {
	done := testutil.NoClaudeHere() // the loader of the fixtures' logs is their own version
	code := m.Run()
	done()
	os.Exit(code)
}
