package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/repair"
)

// rewriteRun is what the two commands that rewrite logs, fix and redact, share: the sessions of the
// paths named, which of their files were named (only those are changed), stdout buffered for the
// diffs, and how each changed file is written or shown.
type rewriteRun struct {
	env          Env
	paths        []string
	sessions     []layout.Found
	out          *bufio.Writer
	write, force bool
	code         int // the exit code so far
}

// startRewrite collects the sessions of paths; nil (after saying why) when they cannot be listed.
func startRewrite(paths []string, env Env, write, force bool) *rewriteRun {
	sessions, err := collect(paths)
	if err != nil {
		errorf(env.Stderr, "ccdag: %v\n", err)
		return nil
	}
	sayNamedLinks(env, paths)
	return &rewriteRun{env: env, paths: paths, sessions: sessions, out: bufio.NewWriterSize(env.Stdout, 64<<10),
		write: write, force: force, code: ExitOK}
}

// named reports whether p is one of the paths named, or under one: a session's other files are
// only reported, never changed.
func (r *rewriteRun) named(p string) bool {
	for _, a := range r.paths {
		abs, _ := filepath.Abs(a)
		if p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// put writes rf's new text over its file (--write, fi: the file as it was read) or shows the change
// as a diff of show (a dry run; show is rf, or rf with what must not be printed masked). It reports
// whether the file counts as changed; a failure is said, with the file's display name dp, and sets
// the exit code. did is the past participle of the change ("repaired", "redacted").
func (r *rewriteRun) put(rf, show *repair.File, fi fs.FileInfo, dp, did string) bool {
	if !r.write {
		writeDiff(r.out, dp, show)
		return true
	}
	err := writeFixed(rf, fi, r.force)
	if err == nil {
		return true
	}
	r.code = ExitUsage
	var late *afterRename
	if !errors.As(err, &late) {
		errorf(r.env.Stderr, "ccdag: %s: %v; nothing written\n", dp, err)
		return false
	}
	errorf(r.env.Stderr, "ccdag: %s: %s, but %v\n", dp, did, late.err)
	return true
}

// readStable reads a session's file and its stat, reading again (up to tries more times) while a
// live writer appends, and refusing one that changed in every read.
func readStable(p, root string, tries int) ([]byte, fs.FileInfo, error) {
	for try := 0; ; try++ {
		before, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		b, err := layout.ReadFile(p, root)
		if err != nil {
			return nil, nil, err
		}
		after, err := os.Stat(p)
		if err == nil && after.Size() == before.Size() && after.ModTime().Equal(before.ModTime()) && int64(len(b)) == after.Size() {
			return b, after, nil
		}
		if try >= tries {
			return nil, nil, fmt.Errorf("%s changed while it was read (a live session?)", p)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
