package cli

import (
	"os"
	"testing"

	"github.com/ccdag/ccdag/internal/testutil"
)

// asWriter, when set (fix_live_linux_test.go), makes the test binary a log writer when asked.
var asWriter func()

func TestMain(m *testing.M) {
	if asWriter != nil {
		asWriter()
	}
	done := testutil.NoClaudeHere() // the loader of the fixtures' logs is their own version
	code := m.Run()
	done()
	os.Exit(code)
}
