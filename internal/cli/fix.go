package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/repair"
	"github.com/ccdag/ccdag/internal/report"
	"github.com/ccdag/ccdag/internal/session"
)

// liveWindow: a log modified this recently may still be written by Claude Code.
const liveWindow = 60 * time.Second

// fileSystem is what `ccdag fix --write` does to the disk; tests put failures in its place (a
// full disk, a permission refused) to hold that the original stays untouched.
type fileSystem interface {
	Stat(path string) (fs.FileInfo, error)
	// CreateExcl creates a new file (never an existing one) with mode perm.
	CreateExcl(path string, perm fs.FileMode) (io.WriteCloser, error)
	Rename(from, to string) error
	Remove(path string) error
	Writable(path string) bool
}

type osFS struct{}

func (osFS) Stat(p string) (fs.FileInfo, error) { return os.Lstat(p) }
func (osFS) CreateExcl(p string, perm fs.FileMode) (io.WriteCloser, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, perm)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil { // the umask narrowed it
		f.Close()
		os.Remove(p)
		return nil, err
	}
	return syncCloser{f}, nil
}
func (osFS) Rename(from, to string) error { return os.Rename(from, to) }
func (osFS) Remove(p string) error        { return os.Remove(p) }
func (osFS) Writable(p string) bool       { return writable(p) }

// syncCloser flushes the file to the disk before closing it: a rename must never publish bytes
// that are not there yet.
type syncCloser struct{ f *os.File }

func (s syncCloser) Write(b []byte) (int, error) { return s.f.Write(b) }
func (s syncCloser) Close() error {
	if err := s.f.Sync(); err != nil {
		s.f.Close()
		return err
	}
	return s.f.Close()
}

// fixFS is replaced by tests.
var fixFS fileSystem = osFS{}

// now is replaced by tests.
var now = time.Now

func runFix(args []string, env Env) int {
	fset := newFlagSet("fix", env)
	write := fset.Bool("write", false, "write the repaired files (a backup of each first); without it, print a diff")
	force := fset.Bool("force", false, "with --write: also write a file modified in the last 60 s (a live session)")
	codes := fset.String("code", "", "repair only these codes (comma-separated); incomplete-last-line only when named")
	paths, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	if len(paths) == 0 {
		return usageError(env, fmt.Errorf("fix needs at least one PATH (a session log, a sub-agent log or a directory)"))
	}
	opt := repair.Options{}
	if *codes != "" {
		opt.Codes = map[check.Code]bool{}
		known := map[check.Code]bool{}
		for _, c := range check.Codes() {
			known[c] = true
		}
		for _, c := range strings.Split(*codes, ",") {
			c = strings.TrimSpace(c)
			if !known[check.Code(c)] {
				return usageError(env, fmt.Errorf("unknown --code %q", c))
			}
			if !repair.Repairable(check.Code(c)) {
				return usageError(env, fmt.Errorf("--code %s: ccdag has no repair for it (see docs/repair.md)", c))
			}
			opt.Codes[check.Code(c)] = true
		}
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && !strings.HasSuffix(p, ".jsonl") {
			fmt.Fprintf(env.Stderr, "ccdag: %s is not a session log (a .jsonl file): nothing written\n", check.Printable(p))
			return ExitUsage
		}
	}
	sessions, err := collect(paths)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ccdag: %v\n", err)
		return ExitUsage
	}
	named := func(p string) bool {
		for _, a := range paths {
			abs, _ := filepath.Abs(a)
			if p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	defer out.Flush()
	code := ExitOK
	nRepairs, nFiles := 0, 0
	for _, found := range sessions {
		stats := map[string]fs.FileInfo{}
		read := func(p string) ([]byte, error) {
			root := found.Root(p)
			before, err := os.Stat(p)
			if err != nil {
				return nil, err
			}
			b, err := layout.ReadFile(p, root)
			if err != nil {
				return nil, err
			}
			after, err := os.Stat(p)
			if err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || int64(len(b)) != after.Size() {
				return nil, fmt.Errorf("%s changed while it was read (a live session?)", p)
			}
			stats[p] = after
			return b, nil
		}
		s, err := layout.LoadFound(found, read)
		if err != nil {
			fmt.Fprintf(env.Stderr, "ccdag: cannot read session %s: %v\n", check.Printable(found.ID), unwrapPathErr(err))
			code = ExitUsage
			continue
		}
		for _, f := range s.Files {
			if f.NotJSONL() && named(f.Path) {
				fmt.Fprintf(env.Stderr, "ccdag: %s is not JSON Lines (not a session log): nothing to repair, nothing written\n", check.Printable(displayPath(f.Path)))
				code = ExitUsage
			}
		}
		fixes := repair.Session(s, opt)
		texts := map[string][]byte{}
		for _, rf := range fixes {
			dp := displayPath(rf.Path)
			if !named(rf.Path) {
				fmt.Fprintf(env.Stderr, "ccdag: %s (of the same session) needs %d repair(s); name it to repair it\n", check.Printable(dp), len(rf.Repairs))
				continue
			}
			for _, r := range rf.Repairs {
				fmt.Fprintf(env.Stderr, "%s:%d: %s: %s\n", check.Printable(dp), r.Line+1, r.Code, check.Printable(r.Title))
			}
			if !*write {
				writeDiff(out, dp, rf)
				texts[rf.Path] = rf.New
				nRepairs += len(rf.Repairs)
				nFiles++
				continue
			}
			if err := writeFixed(rf, stats[rf.Path], *force); err != nil {
				fmt.Fprintf(env.Stderr, "ccdag: %s: %v; nothing written\n", check.Printable(dp), err)
				code = ExitUsage
				continue
			}
			nRepairs += len(rf.Repairs)
			nFiles++
		}
		// What remains: the files as they are now (--write) or would be (dry run).
		var after *session.Session
		if *write {
			if after, err = layout.LoadFound(found, nil); err != nil {
				fmt.Fprintf(env.Stderr, "ccdag: re-checking %s: %v\n", check.Printable(found.ID), err)
				code = ExitUsage
				continue
			}
		} else {
			after = repair.Reload(s, texts)
		}
		var remain []report.Item
		for _, it := range report.FromFindings(check.New(after).All(nil)) {
			if it.Severity == "error" || it.Severity == "warning" {
				it.Path = displayPath(it.Path)
				remain = append(remain, it)
			}
		}
		if len(remain) > 0 {
			if code == ExitOK {
				code = ExitFindings
			}
			w := env.Stderr
			if *write {
				w = out
			}
			fmt.Fprintf(env.Stderr, "ccdag: %d finding(s) no repair covers remain in session %s:\n", len(remain), check.Printable(found.ID))
			out.Flush()
			report.WriteText(w, slices.Values(remain))
		}
	}
	out.Flush()
	switch {
	case nRepairs == 0 && code == ExitUsage:
		fmt.Fprintln(env.Stderr, "ccdag fix: nothing written")
	case nRepairs == 0:
		fmt.Fprintln(env.Stderr, "ccdag fix: nothing to repair")
	case *write:
		fmt.Fprintf(env.Stderr, "ccdag fix: %d repair(s) written to %d file(s) (a .bak of each beside it)\n", nRepairs, nFiles)
		if code == ExitUsage {
			fmt.Fprintln(env.Stderr, "ccdag fix: some files were not written (see above)")
		}
	default:
		fmt.Fprintf(env.Stderr, "ccdag fix: %d repair(s) in %d file(s); dry run, nothing written (--write to apply)\n", nRepairs, nFiles)
	}
	return code
}

// writeFixed replaces rf.Path by rf.New: refuses a live or read-only file, writes a byte-identical
// backup first, the new text into a new file of the same folder and mode, checks that the
// original did not change since it was read, then renames over it. Any failure before the rename
// removes what it wrote and leaves the original as it was.
func writeFixed(rf *repair.File, read fs.FileInfo, force bool) error {
	fsys := fixFS
	fi, err := fsys.Stat(rf.Path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	if read == nil || fi.Size() != read.Size() || !fi.ModTime().Equal(read.ModTime()) {
		return errors.New("the file changed since it was read")
	}
	if age := now().Sub(fi.ModTime()); age < liveWindow && !force {
		return fmt.Errorf("modified %s ago: it may be a live session (--force writes anyway)", age.Round(time.Second))
	}
	// Mode bits as well as access(2): root may write anything, but a read-only mark is a wish.
	if fi.Mode().Perm()&0o222 == 0 || !fsys.Writable(rf.Path) {
		return errors.New("the file is read-only")
	}
	if di, err := fsys.Stat(filepath.Dir(rf.Path)); err != nil || di.Mode().Perm()&0o222 == 0 || !fsys.Writable(filepath.Dir(rf.Path)) {
		return errors.New("its folder is read-only (the backup and the new file are written beside it)")
	}
	perm := fi.Mode().Perm()
	backup := rf.Path + ".ccdag-" + now().UTC().Format("20060102-150405") + ".bak"
	if err := writeNew(fsys, backup, perm, rf.Old); err != nil {
		return fmt.Errorf("writing the backup %s: %w", filepath.Base(backup), unwrapPathErr(err))
	}
	tmp := filepath.Join(filepath.Dir(rf.Path), "."+filepath.Base(rf.Path)+".ccdag-new")
	fail := func(err error) error {
		fsys.Remove(tmp)
		fsys.Remove(backup)
		return err
	}
	if err := writeNew(fsys, tmp, perm, rf.New); err != nil {
		return fail(fmt.Errorf("writing the repaired file: %w", unwrapPathErr(err)))
	}
	if fi2, err := fsys.Stat(rf.Path); err != nil || fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
		return fail(errors.New("the file changed while it was being fixed"))
	}
	if err := fsys.Rename(tmp, rf.Path); err != nil {
		return fail(fmt.Errorf("replacing the file: %w", unwrapPathErr(err)))
	}
	return nil
}

func writeNew(fsys fileSystem, path string, perm fs.FileMode, data []byte) error {
	w, err := fsys.CreateExcl(path, perm)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fsys.Remove(path)
	}
	return err
}

// writeDiff prints a unified diff (3 lines of context) of one repaired file.
func writeDiff(w io.Writer, path string, rf *repair.File) {
	old := repair.Lines(rf.Old)
	fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", check.Printable(path), check.Printable(path))
	// newStart[i]: the new line number (0-based) where original line i's output begins.
	newStart := make([]int, len(old)+1)
	for i := range old {
		newStart[i+1] = newStart[i] + len(rf.Out[i])
	}
	const ctx = 3
	for i := 0; i < len(old); {
		if !rf.Changed[i] {
			i++
			continue
		}
		// A hunk: from ctx lines before the first change to ctx lines after the last one of a run
		// whose gaps are at most 2*ctx unchanged lines.
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(old); j++ {
			if rf.Changed[j] {
				end = j + 1
			} else if j-end >= 2*ctx {
				break
			}
		}
		stop := min(len(old), end+ctx)
		oldN, newN := stop-start, newStart[stop]-newStart[start]
		fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(start, oldN), hunkRange(newStart[start], newN))
		for j := start; j < stop; j++ {
			if !rf.Changed[j] {
				diffLine(w, ' ', old[j])
				continue
			}
			outs := rf.Out[j]
			if len(outs) > 0 && bytes.Equal(outs[0], old[j]) { // kept, with lines inserted after it
				diffLine(w, ' ', old[j])
				outs = outs[1:]
			} else {
				diffLine(w, '-', old[j])
			}
			for _, l := range outs {
				diffLine(w, '+', l)
			}
		}
		i = stop
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func diffLine(w io.Writer, mark byte, line []byte) {
	w.Write([]byte{mark})
	w.Write(line)
	if !bytes.HasSuffix(line, []byte("\n")) {
		io.WriteString(w, "\n\\ No newline at end of file\n")
	}
}
