package cli

import (
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
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// liveWindow: a log modified this recently may still be written by Claude Code.
const liveWindow = 60 * time.Second

// fileSystem is what `ccdag fix --write` does to the disk; tests put failures in its place (a
// full disk, a permission refused) to hold that the original stays untouched.
type fileSystem interface {
	Stat(path string) (fs.FileInfo, error)
	// CreateExcl creates a new file (never an existing one) with mode perm and the owner, group
	// and extended attributes of like (the log), or fails saying which it could not give it.
	CreateExcl(path string, perm fs.FileMode, like *os.File) (io.WriteCloser, error)
	Rename(from, to string) error
	Remove(path string) error
	Writable(path string) bool
}

type osFS struct{}

func (osFS) Stat(p string) (fs.FileInfo, error) { return os.Lstat(p) }
func (osFS) CreateExcl(p string, perm fs.FileMode, like *os.File) (io.WriteCloser, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, perm&fs.ModePerm)
	if err != nil {
		return nil, err
	}
	// Owner first (a chown clears set-id bits), then the attributes (an ACL sets mode bits), then
	// the mode (the umask narrowed it).
	err = func() error {
		if like == nil {
			return nil
		}
		fi, err := like.Stat()
		if err != nil {
			return err
		}
		if err := keepOwner(f, fi); err != nil {
			return err
		}
		return keepXattrs(f, like)
	}()
	if err == nil {
		err = f.Chmod(perm)
	}
	if err != nil {
		f.Close()
		os.Remove(p)
		return nil, err
	}
	return syncCloser{f}, nil
}
func (osFS) Rename(from, to string) error { return os.Rename(from, to) }
func (osFS) Remove(p string) error        { return os.Remove(p) }
func (osFS) Writable(p string) bool       { return canWrite(p) }

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
		if opt.Codes, err = repairCodes(*codes); err != nil {
			return usageError(env, err)
		}
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && !strings.HasSuffix(p, ".jsonl") {
			errorf(env.Stderr, "ccdag: %s is not a session log (a .jsonl file): nothing written\n", p)
			return ExitUsage
		}
	}
	run := startRewrite(paths, env, *write, *force)
	if run == nil {
		return ExitUsage
	}
	defer run.out.Flush()
	nRepairs, nFiles := 0, 0
	for _, found := range run.sessions {
		r, f := run.fixSession(found, opt)
		nRepairs, nFiles = nRepairs+r, nFiles+f
	}
	run.out.Flush()
	switch {
	case nRepairs == 0 && run.code == ExitUsage:
		fmt.Fprintln(env.Stderr, "ccdag fix: nothing written")
	case nRepairs == 0:
		fmt.Fprintln(env.Stderr, "ccdag fix: nothing to repair")
	case *write:
		errorf(env.Stderr, "ccdag fix: %d repair(s) written to %d file(s) (a .bak of each beside it)\n", nRepairs, nFiles)
		if run.code == ExitUsage {
			fmt.Fprintln(env.Stderr, "ccdag fix: some files were not written (see above)")
		}
	default:
		errorf(env.Stderr, "ccdag fix: %d repair(s) in %d file(s); dry run, nothing written (--write to apply)\n", nRepairs, nFiles)
	}
	return run.code
}

// repairCodes reads --code: known codes that have a repair.
func repairCodes(list string) (map[check.Code]bool, error) {
	codes := map[check.Code]bool{}
	known := map[check.Code]bool{}
	for _, c := range check.Codes() {
		known[c] = true
	}
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		if !known[check.Code(c)] {
			return nil, fmt.Errorf("unknown --code %q", c)
		}
		if !repair.Repairable(check.Code(c)) {
			return nil, fmt.Errorf("--code %s: ccdag has no repair for it (see docs/repair.md)", c)
		}
		codes[check.Code(c)] = true
	}
	return codes, nil
}

// fixSession repairs the named files of one session (or shows the repairs), then says what no
// repair covers. It returns how many repairs it made in how many files.
func (run *rewriteRun) fixSession(found layout.Found, opt repair.Options) (nRepairs, nFiles int) {
	env := run.env
	stats := map[string]fs.FileInfo{}
	read := func(p string) ([]byte, error) {
		// A live writer may append while it is read: read again until a read saw no change.
		b, fi, err := readStable(p, found.Root(p), 20)
		stats[p] = fi
		return b, err
	}
	s, err := layout.LoadFound(found, read)
	if err != nil {
		errorf(env.Stderr, "ccdag: cannot read session %s: %v\n", found.ID, unwrapPathErr(err))
		run.code = ExitUsage
		return 0, 0
	}
	for _, f := range s.Files {
		if f.NotJSONL() && run.named(f.Path) {
			errorf(env.Stderr, "ccdag: %s is not JSON Lines (not a session log): nothing to repair, nothing written\n", displayPath(f.Path))
			run.code = ExitUsage
		}
	}
	fixes := repair.Session(s, opt)
	texts := map[string][]byte{}
	for _, rf := range fixes {
		dp := displayPath(rf.Path)
		if !run.named(rf.Path) {
			errorf(env.Stderr, "ccdag: %s (of the same session) needs %d repair(s); name it to repair it\n", dp, len(rf.Repairs))
			continue
		}
		for _, r := range rf.Repairs {
			fmt.Fprintf(env.Stderr, "%s:%d: %s: %s\n", textsafe.Printable(dp), r.Line+1, r.Code, textsafe.Printable(r.Title))
		}
		if !run.write {
			texts[rf.Path] = rf.New
		}
		show := rf
		if !run.write {
			show = shownFix(rf)
		}
		if run.put(rf, show, stats[rf.Path], dp, "repaired") {
			nRepairs += len(rf.Repairs)
			nFiles++
		}
	}
	// What remains: the files as they are now (--write) or would be (dry run).
	var after *session.Session
	if run.write {
		if after, err = layout.LoadFound(found, nil); err != nil {
			errorf(env.Stderr, "ccdag: re-checking %s: %v\n", found.ID, err)
			run.code = ExitUsage
			return nRepairs, nFiles
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
		if run.code == ExitOK {
			run.code = ExitFindings
		}
		w := env.Stderr
		if run.write {
			w = run.out
		}
		errorf(env.Stderr, "ccdag: %d finding(s) no repair covers remain in session %s:\n", len(remain), found.ID)
		run.out.Flush()
		report.WriteText(w, slices.Values(remain))
	}
	return nRepairs, nFiles
}

// writeFixed replaces rf.Path by rf.New: refuses a live, read-only or hard-linked file, writes a
// byte-identical backup first, the new text into a new file of the same folder, owner, group, mode
// and extended attributes, then, with no process writing the log (replaceHeld), renames it over
// the log, carrying over what a writer appended meanwhile. Any failure before the rename removes
// what it wrote and leaves the original as it was.
func writeFixed(rf *repair.File, read fs.FileInfo, force bool) error {
	fsys := fixFS
	fi, err := fsys.Stat(rf.Path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	// It may have grown since (a live writer): what it appended is carried over (replaceHeld).
	if read == nil || !os.SameFile(fi, read) || fi.Size() < read.Size() {
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
	if n := hardLinks(fi); n > 1 {
		return fmt.Errorf("it has %d hard links: a repaired copy would split them (the other names would keep the old text)", n)
	}
	orig, err := openLog(rf.Path)
	if err != nil {
		return err
	}
	defer orig.Close()
	if ofi, err := orig.Stat(); err != nil || !os.SameFile(ofi, fi) {
		return errors.New("the file changed since it was read")
	}
	perm := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	// A second fix within the second (or a name taken by someone else) gets the next free name.
	stamp := rf.Path + ".ccdag-" + now().UTC().Format("20060102-150405")
	backup := stamp + ".bak"
	for n := 2; ; n++ {
		err := writeNew(fsys, backup, perm, orig, rf.Old)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || n > 9 {
			return fmt.Errorf("writing the backup %s: %w", filepath.Base(backup), unwrapPathErr(err))
		}
		backup = fmt.Sprintf("%s-%d.bak", stamp, n)
	}
	tmp := filepath.Join(filepath.Dir(rf.Path), "."+filepath.Base(rf.Path)+".ccdag-new")
	fail := func(err error) error {
		fsys.Remove(tmp)
		fsys.Remove(backup)
		return err
	}
	if err := writeNew(fsys, tmp, perm, orig, rf.New); err != nil {
		return fail(fmt.Errorf("writing the repaired file: %w", unwrapPathErr(err)))
	}
	renamed, err := replaceHeld(fsys, rf, orig, tmp)
	if !renamed {
		return fail(err)
	}
	if err != nil {
		return &afterRename{err}
	}
	return nil
}

// afterRename is what went wrong once the log was replaced: it was written.
type afterRename struct{ err error }

func (e *afterRename) Error() string { return e.err.Error() }

// replaceHeld renames tmp over the log (orig, open) while no process writes it, so that no line a
// live session appends is lost (docs/SECURITY.md, "Live writers"):
//
//  1. It waits (up to a second) until no process has the log open for writing and holds off new
//     ones (holdWriters): a writer that keeps its descriptor open, as Claude Code does, would
//     append to the old file after the rename, so the fix is refused while there is one.
//  2. What was appended since the log was read is appended to tmp (a writer that opens, appends
//     and closes per line wrote it between the read and now).
//  3. New writers are held off tmp too, and tmp is renamed over the log.
//  4. A writer that looked the log up before the rename and waited to open it writes to the old
//     file once let go: it is let go, waited for, and what it wrote is appended to the log.
//
// renamed says whether the log was replaced (err then only says what could not be carried over).
func replaceHeld(fsys fileSystem, rf *repair.File, orig *os.File, tmp string) (renamed bool, err error) {
	release, err := holdWriters(orig, time.Second)
	if err != nil {
		return false, err
	}
	defer func() { release() }()
	cur, err := orig.Stat()
	if err != nil {
		return false, err
	}
	if at, err := fsys.Stat(rf.Path); err != nil || !os.SameFile(at, cur) {
		return false, errors.New("the file was replaced while it was being fixed")
	}
	end := cur.Size()
	if err := carry(orig, int64(len(rf.Old)), end, rf, tmp); err != nil {
		return false, err
	}
	nf, err := openLog(tmp)
	if err != nil {
		return false, err
	}
	defer nf.Close()
	releaseNew, err := holdWriters(nf, 0)
	if err != nil {
		return false, err
	}
	defer func() { releaseNew() }()
	if err := fsys.Rename(tmp, rf.Path); err != nil {
		if heldOpen(err, onWindows) {
			return false, errHeldOpen
		}
		return false, fmt.Errorf("replacing the file: %w", unwrapPathErr(err))
	}
	// 4: a look-up made before the rename reaches its open within moments; while one waits on the
	// old file's lease, it is let go and waited for until the old file has no writer again.
	for tries := 0; tries < 50; tries++ {
		time.Sleep(20 * time.Millisecond)
		if !writerWaiting(orig) {
			break
		}
		release()
		if release, err = holdWriters(orig, 2*time.Second); err != nil {
			release = func() {}
			break
		}
	}
	release()
	release = func() {}
	late, serr := orig.Stat()
	if serr != nil || late.Size() <= end {
		return true, err
	}
	extra := make([]byte, late.Size()-end)
	if _, rerr := orig.ReadAt(extra, end); rerr != nil {
		return true, fmt.Errorf("%d bytes a writer appended to the old file during the rename could not be read: %w", len(extra), rerr)
	}
	releaseNew()
	releaseNew = func() {}
	if werr := appendTo(rf.Path, nf, extra); werr != nil {
		return true, fmt.Errorf("%d bytes a writer appended to the old file during the rename were not carried over: %w", len(extra), werr)
	}
	return true, err
}

// carry appends to tmp what a writer appended to the log (orig) between the read (size read) and
// now (size end). It refuses when the log did not only grow, or when the repair changed the last
// line, to which the new bytes may belong.
func carry(orig *os.File, read, end int64, rf *repair.File, tmp string) error {
	if end == read {
		return nil
	}
	if end < read {
		return errors.New("the file changed while it was being fixed (it shrank)")
	}
	if read > 0 && (rf.Old[read-1] != '\n' || len(rf.New) == 0 || rf.New[len(rf.New)-1] != '\n') {
		return errors.New("the file changed while it was being fixed (its last line, which the repair changes, grew)")
	}
	tail := rf.Old[max(0, len(rf.Old)-4096):]
	buf := make([]byte, len(tail)+int(end-read))
	if _, err := orig.ReadAt(buf, read-int64(len(tail))); err != nil {
		return err
	}
	if !bytes.Equal(buf[:len(tail)], tail) {
		return errors.New("the file changed while it was being fixed")
	}
	nf, err := os.OpenFile(tmp, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return err
	}
	defer nf.Close()
	return appendTo(tmp, nf, buf[len(tail):])
}

// appendTo appends data to path, which must still be the file f, and syncs it.
func appendTo(path string, f *os.File, data []byte) error {
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|oNoFollow|oNonblock, 0)
	if err != nil {
		return err
	}
	wi, err1 := w.Stat()
	fi, err2 := f.Stat()
	if err1 != nil || err2 != nil || !os.SameFile(wi, fi) {
		w.Close()
		return errors.New("the file was replaced meanwhile")
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return err
	}
	return syncCloser{w}.Close()
}

func writeNew(fsys fileSystem, path string, perm fs.FileMode, like *os.File, data []byte) error {
	w, err := fsys.CreateExcl(path, perm, like)
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

// diffContext is how many unchanged lines a diff shows around a change.
const diffContext = 3

// shownFix is rf as the dry run's diff shows it (docs/spec.md §15): each secret the scan finds on
// a line the diff prints — removed, added or context — becomes `[SECRET:<rule>]`, as in redact's
// dry run; rf itself when there is none. Only the printed lines are scanned; what --write writes
// is rf, never masked.
func shownFix(rf *repair.File) *repair.File {
	old := repair.Lines(rf.Old)
	printed := make([]bool, len(old))
	for i, ch := range rf.Changed {
		if ch {
			for j := max(0, i-diffContext); j <= min(len(old)-1, i+diffContext); j++ {
				printed[j] = true
			}
		}
	}
	sc := secrets.Default()
	var hits []secrets.Hit
	masked := false
	mask := func(l []byte) []byte {
		body := bytes.TrimSuffix(l, []byte("\n"))
		if hits = sc.Line(body, hits[:0]); len(hits) == 0 {
			return l
		}
		masked = true
		return append(maskLine(body, hits), l[len(body):]...)
	}
	show := *rf
	show.Out = slices.Clone(rf.Out)
	var text []byte
	for i, l := range old {
		if !printed[i] {
			text = append(text, l...)
			continue
		}
		text = append(text, mask(l)...)
		if rf.Changed[i] {
			outs := make([][]byte, len(rf.Out[i]))
			for k, o := range rf.Out[i] {
				outs[k] = mask(o)
			}
			show.Out[i] = outs
		}
	}
	if !masked {
		return rf
	}
	show.Old = text
	return &show
}

// writeDiff prints a unified diff (diffContext lines of context) of one repaired file.
func writeDiff(w io.Writer, path string, rf *repair.File) {
	old := repair.Lines(rf.Old)
	fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", textsafe.Printable(path), textsafe.Printable(path))
	// newStart[i]: the new line number (0-based) where original line i's output begins.
	newStart := make([]int, len(old)+1)
	for i := range old {
		newStart[i+1] = newStart[i] + len(rf.Out[i])
	}
	const ctx = diffContext
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
