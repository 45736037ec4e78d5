package testutil

import (
	"os"
	"path/filepath"
	"strings"
)

// NoClaudeHere makes the loader a resume assumes (docs/spec.md §15) the same on every machine for
// a test binary's logs outside any config folder: CLAUDE_CONFIG_DIR names an empty folder, and no
// PATH entry holding a `claude` stays on PATH, so it is the log's own version, as on CI, not the
// developer's Claude Code. Call it from TestMain; the returned func removes the folder. A test
// that needs either sets its own (t.Setenv).
func NoClaudeHere() func() {
	dir, err := os.MkdirTemp("", "ccdag-noclaude-")
	if err != nil {
		panic(err)
	}
	os.Setenv("CLAUDE_CONFIG_DIR", dir)
	var keep []string
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		has := false
		for _, name := range []string{"claude", "claude.exe", "claude.cmd"} {
			if _, err := os.Stat(filepath.Join(p, name)); err == nil {
				has = true
			}
		}
		if !has {
			keep = append(keep, p)
		}
	}
	os.Setenv("PATH", strings.Join(keep, string(os.PathListSeparator)))
	return func() { os.RemoveAll(dir) }
}
