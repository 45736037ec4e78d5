package cli

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// helpers are roles the test binary may play in a process of its own (a log writer, a cache
// writer): each says whether the environment asks for it, and its exit code.
var helpers []func() (code int, ok bool)

// The test binary may run the CLI in a process of its own (runProcess): a fresh process forgets
// what a run remembers (the newest Claude Code version under a config folder, for 30 s).
func init() {
	helpers = append(helpers, func() (int, bool) {
		args := os.Getenv("CCDAG_TEST_MAIN_ARGS")
		if args == "" {
			return 0, false
		}
		return Main(strings.Split(args, "\n"), Env{Stdout: os.Stdout, Stderr: os.Stderr}), true
	})
}

// runProcess runs the CLI with args in a process of its own and returns its stdout.
func runProcess(t *testing.T, args ...string) string {
	t.Helper()
	out, err := processOut(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// processOut is runProcess for any goroutine: an exit other than 0 or anything on stderr is an error.
func processOut(args ...string) (string, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CCDAG_TEST_MAIN_ARGS="+strings.Join(args, "\n"))
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil || errb.Len() > 0 {
		return "", fmt.Errorf("%v: %v\n%s", args, err, errb.String())
	}
	return string(out), nil
}

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
