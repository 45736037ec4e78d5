// Package archive copies session logs out of reach of Claude Code's cleanup (docs/spec.md §11):
// every session file under a source folder (logs, sub-agent logs and their meta.json, tool-results/)
// into a destination in the same layout, incrementally and verified, never deleting or rewriting
// what the destination holds.
package archive

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/ccdag/ccdag/internal/layout"
)

// Result counts what a run did; Notes are what it did besides copying that a person should know,
// Problems the files and folders it did not archive and why.
type Result struct {
	New, Grown, Same int
	Versions         int   // new versions of logs ccdag fix/redact rewrote, kept beside the old
	Bytes            int64 // bytes copied
	Notes            []Note
	Problems         []Problem
}

// Note is something a run did that was not asked in so many words: a link named on the command
// line followed, a new version made, temporary files of a stopped run removed.
type Note struct {
	Path string
	What string
}

// Problem is a file or folder left out: its source path and why.
type Problem struct {
	Path string
	Why  string
	// Changed is true for a source that shrank or changed where the archive already holds it (or
	// changed while copied): the person should look; false for a read or write error.
	Changed bool
}

// sessionFile reports whether rel (slash-separated, below the source folder) is a file of a
// session: a log (.jsonl), a sub-agent's meta.json, or a file in a session's tool-results/.
func sessionFile(rel string) bool {
	if strings.HasSuffix(rel, ".jsonl") || strings.HasSuffix(rel, ".meta.json") {
		return true
	}
	return strings.Contains("/"+rel, "/tool-results/")
}

// ErrInside is returned when the destination lies inside a source folder (it would archive itself).
var ErrInside = errors.New("the destination is inside a source folder")

// ErrBusy is returned when another run is archiving into the same destination.
var ErrBusy = errors.New("another ccdag archive is writing into the destination")

// realPath resolves links in p, or in its longest existing parent when p does not exist yet.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return filepath.Join(abs, rest), nil
		}
		rest = filepath.Join(filepath.Base(abs), rest)
		abs = parent
	}
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// tempPrefix names the temporary files a copy is written under (removed by the next run when a
// run was stopped before it could remove them); lockName the file a run holds a lock on.
const (
	tempPrefix = ".ccdag-archive-"
	lockName   = ".ccdag-archive.lock"
)

// archiver is one run: DEST opened as a root (nothing it writes resolves outside DEST, whatever
// links appear in it meanwhile) and the folders of DEST looked at (none of them a link).
type archiver struct {
	dest string
	root *os.Root
	res  *Result
	dirs map[string]error // folder below DEST (relative) -> nil when it is a folder, not a link
}

// Run archives every session file under each source into dest/<rel>. A source is a folder (rel:
// a file's path below it) or a log (its whole session: rel below the log's folder). A source that
// is a link was named on the command line: it is followed, and said (Result.Notes). Links inside
// a source are not followed: each is reported, a link to a folder as a folder not walked. Nothing
// is written through a link inside dest (reported); temporary files a stopped run left in dest
// are removed first.
func Run(dest string, sources []string) (*Result, error) {
	rd, err := realPath(dest)
	if err != nil {
		return nil, err
	}
	for _, s := range sources {
		rs, err := realPath(s)
		if err != nil {
			return nil, err
		}
		if within(rd, rs) {
			return nil, fmt.Errorf("%w (%s is in %s)", ErrInside, dest, s)
		}
	}
	if err := os.MkdirAll(dest, 0o700); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	unlock, err := lock(root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	a := &archiver{dest: dest, root: root, res: &Result{}, dirs: map[string]error{".": nil}}
	a.removeTemps()
	for _, src := range sources {
		a.source(src)
	}
	return a.res, nil
}

func (a *archiver) problem(p, why string, changed bool) {
	a.res.Problems = append(a.res.Problems, Problem{Path: p, Why: why, Changed: changed})
}

// removeTemps removes the temporary files a run stopped before it could remove them left in
// dest (a killed run: hundreds of MB each), links not followed.
func (a *archiver) removeTemps() {
	n, size := 0, int64(0)
	fs.WalkDir(a.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasPrefix(d.Name(), tempPrefix) || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err == nil && a.root.Remove(p) == nil {
			n++
			size += info.Size()
		}
		return nil
	})
	if n > 0 {
		a.res.Notes = append(a.res.Notes, Note{Path: a.dest, What: fmt.Sprintf("removed %d temporary file(s) (%d bytes) an archive run stopped before its end left", n, size)})
	}
}

// source archives one source named: a folder, a log, or a link to either (followed, and said).
func (a *archiver) source(src string) {
	p := src
	if li, err := os.Lstat(src); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(src)
		if err != nil {
			a.problem(src, fmt.Sprintf("a link that leads nowhere: %v", unwrap(err)), false)
			return
		}
		a.res.Notes = append(a.res.Notes, Note{Path: src, What: "a link named as a source: followed to " + target})
		p = target
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		a.problem(src, unwrap(err).Error(), false)
	case fi.IsDir():
		a.walk(p, p)
	case fi.Mode().IsRegular() && strings.HasSuffix(p, ".jsonl"):
		a.log(p)
	default:
		a.problem(src, "not a folder or a session log (.jsonl): nothing archived", false)
	}
}

// log archives the session of a log named: the log, its sub-agent logs and their meta.json (in
// every layout, layout.Discover), and its <id>/ folder, each below dest as below the folder
// holding the session's main log.
func (a *archiver) log(p string) {
	found, err := layout.Discover(p)
	base := found.Dir
	if err != nil || base == "" {
		base = filepath.Dir(p)
	}
	files := append([]string{p}, found.Paths()...)
	for _, ag := range found.Agents {
		if ag.Meta != "" {
			files = append(files, ag.Meta)
		}
	}
	seen := map[string]bool{}
	for _, f := range files {
		if rel, err := filepath.Rel(base, f); err == nil && !seen[f] && within(f, base) {
			seen[f] = true
			a.file(f, rel)
		}
	}
	if found.ID != "" {
		if d := filepath.Join(base, found.ID); isDir(d) {
			a.walkSkipping(base, d, seen)
		}
	}
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// walk archives the session files under dir, rel below base.
func (a *archiver) walk(base, dir string) { a.walkSkipping(base, dir, nil) }

func (a *archiver) walkSkipping(base, dir string, skip map[string]bool) {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			a.problem(p, unwrap(err).Error()+": not walked", false)
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		rel, rerr := filepath.Rel(base, p)
		if rerr != nil || d.IsDir() || skip[p] {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if isLinkedDir(p) {
				a.problem(p, "a link to a folder: not walked, nothing in it archived (name it on the command line to archive it)", false)
			} else if sessionFile(filepath.ToSlash(rel)) {
				a.problem(p, "a link: not followed, not archived", false)
			}
			return nil
		}
		if !sessionFile(filepath.ToSlash(rel)) {
			return nil
		}
		a.file(p, rel)
		return nil
	})
	if err != nil {
		a.problem(dir, unwrap(err).Error(), false)
	}
}

func isLinkedDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// file archives one regular session file at dest/<rel>.
func (a *archiver) file(p, rel string) {
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		a.problem(p, unwrap(err).Error(), false)
	case fi.Mode()&fs.ModeSymlink != 0:
		a.problem(p, "a link: not followed, not archived", false)
	case !fi.Mode().IsRegular():
		a.problem(p, "not a regular file", false)
	default:
		a.copyFile(p, rel)
	}
}

// folder makes sure the folder rel (below dest) is a folder, making it when missing: never a
// link (nothing is written through a link inside dest).
func (a *archiver) folder(rel string) error {
	if err, ok := a.dirs[rel]; ok {
		return err
	}
	err := a.folder(filepath.Dir(rel))
	if err == nil {
		fi, lerr := a.root.Lstat(rel)
		switch {
		case errors.Is(lerr, fs.ErrNotExist):
			if err = a.root.Mkdir(rel, 0o700); errors.Is(err, fs.ErrExist) {
				err = nil
				if fi, lerr = a.root.Lstat(rel); lerr != nil || !fi.IsDir() {
					err = fmt.Errorf("%s appeared meanwhile and is not a folder", filepath.Join(a.dest, rel))
				}
			}
		case lerr != nil:
			err = lerr
		case fi.Mode()&fs.ModeSymlink != 0:
			err = fmt.Errorf("%s is a link: nothing is written through it", filepath.Join(a.dest, rel))
		case !fi.IsDir():
			err = fmt.Errorf("%s is not a folder", filepath.Join(a.dest, rel))
		}
	}
	a.dirs[rel] = err
	return err
}

// version is the name of a log's nth version below dest (n ≥ 2): <name>.v<n>.jsonl beside
// <name>.jsonl (the first).
func version(rel string, n int) string {
	ext := filepath.Ext(rel)
	return strings.TrimSuffix(rel, ext) + ".v" + strconv.Itoa(n) + ext
}

// latest is the newest version of rel in dest (rel itself when there is no other) and the number
// the next one would take.
func (a *archiver) latest(rel string) (string, int) {
	cur, n := rel, 2
	for ; ; n++ {
		if _, err := a.root.Lstat(version(rel, n)); err != nil {
			return cur, n
		}
		cur = version(rel, n)
	}
}

// testHook, when set, runs after a source's bytes are copied and before they are checked unchanged:
// tests change the source there.
var testHook func(src string)

// copyFile brings dest/<rel> up to src: a new file is written under a temporary name and linked
// into place only when whole and verified; a grown one gets its new bytes appended after its old
// bytes are found equal to the source's start (cut back to its old length if anything fails); an
// equal one is left alone. A log the archive holds that ccdag fix or redact rewrote since is
// archived whole as a new version beside it (rewrittenByCcdag); any other source shorter than its
// archive, or different from it, is reported. A copy written keeps the source's mode bits and
// modification time.
func (a *archiver) copyFile(src, rel string) {
	fail := func(changed bool, format string, args ...any) {
		a.problem(src, fmt.Sprintf(format, args...), changed)
	}
	f, err := os.OpenFile(src, os.O_RDONLY|noFollow|noBlock, 0)
	if err != nil {
		fail(false, "%v", unwrap(err))
		return
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		fail(false, "%v", unwrap(err))
		return
	}
	if !before.Mode().IsRegular() {
		fail(false, "not a regular file")
		return
	}
	if err := a.folder(filepath.Dir(rel)); err != nil {
		fail(false, "%v: not archived", err)
		return
	}
	size := before.Size()
	dst, next := a.latest(rel)
	di, err := a.root.Lstat(dst)
	var have int64
	newVersion := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		di = nil
	case err != nil:
		fail(false, "the archive's copy: %v", unwrap(err))
		return
	case !di.Mode().IsRegular():
		fail(false, "the archive holds something else than a file at %s", filepath.Join(a.dest, dst))
		return
	default:
		have = di.Size()
		same := have <= size
		if same {
			if same, err = samePrefix(f, a.root, dst, have); err != nil {
				fail(false, "comparing with the archive: %v", err)
				return
			}
		}
		if !same {
			backup, err := rewrittenByCcdag(src, a.root, dst, have)
			switch {
			case err != nil:
				fail(false, "comparing with the archive: %v", err)
				return
			case backup == "" && have > size:
				fail(true, "the source shrank (%d bytes, the archive holds %d): not copied, the archive kept as it is", size, have)
				return
			case backup == "":
				fail(true, "the source's first %d bytes differ from the archive's: it was rewritten; not copied, the archive kept as it is", have)
				return
			}
			newVersion = backup
			dst, di, have = version(rel, next), nil, 0
		} else if have == size {
			a.res.Same++
			return
		}
	}
	// The new bytes, streamed in pieces (a log may grow by gigabytes): written, then the source
	// checked unchanged since it was looked at, then the copy synced and read back.
	copyNew := func(w io.Writer) ([]byte, error) { return copyRange(w, f, have, size) }
	check := func(sum []byte) error { return unchanged(f, src, before, have, size, sum) }
	var n int64
	if di == nil {
		n, err = writeNew(a.root, dst, before, copyNew, check)
	} else {
		n, err = appendTo(a.root, dst, have, before, copyNew, check)
	}
	switch {
	case errors.Is(err, errChanged):
		fail(true, "changed while it was copied: not copied (run archive again)")
		return
	case errors.Is(err, errFull):
		fail(false, "%v", errFull)
		return
	case err != nil:
		fail(false, "writing the archive: %v", unwrap(err))
		return
	}
	switch {
	case newVersion != "":
		a.res.Versions++
		a.res.Notes = append(a.res.Notes, Note{Path: src, What: fmt.Sprintf("rewritten by ccdag fix or redact (%s holds what the archive has): archived as a new version, %s, beside the old one",
			filepath.Base(newVersion), filepath.Join(a.dest, dst))})
	case di == nil:
		a.res.New++
	default:
		a.res.Grown++
	}
	a.res.Bytes += n
}

// rewrittenByCcdag tells a log that ccdag fix or redact --write rewrote from any other rewrite:
// they leave the text they replaced beside the log, byte for byte, as <log>.ccdag-<time>[-n].bak.
// It returns that backup's path when one starts with the archive's copy (dest/<dst>, have bytes:
// what the archive holds was the log's start when it was rewritten), else "".
func rewrittenByCcdag(src string, root *os.Root, dst string, have int64) (string, error) {
	names, err := os.ReadDir(filepath.Dir(src))
	if err != nil {
		return "", nil
	}
	prefix := filepath.Base(src) + ".ccdag-"
	for _, e := range names {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) || !strings.HasSuffix(e.Name(), ".bak") {
			continue
		}
		p := filepath.Join(filepath.Dir(src), e.Name())
		b, err := os.OpenFile(p, os.O_RDONLY|noFollow|noBlock, 0)
		if err != nil {
			continue
		}
		fi, err := b.Stat()
		same := false
		if err == nil && fi.Mode().IsRegular() && fi.Size() >= have {
			same, err = samePrefix(b, root, dst, have)
		}
		b.Close()
		if err != nil {
			return "", err
		}
		if same {
			return p, nil
		}
	}
	return "", nil
}

// keepMeta gives a copy, open as f (dest/<name>), the source's mode bits and modification time (its
// access time is left), through f where the system can (setTimes): never by name, which a link
// put there since the file was opened would lead elsewhere.
func keepMeta(root *os.Root, f *os.File, name string, src fs.FileInfo) error {
	if err := setTimes(f, root, name, src.ModTime()); err != nil {
		return err
	}
	return f.Chmod(src.Mode().Perm())
}

// chunk is the size of the pieces a copy is streamed in: the memory a copy takes.
const chunk = 1 << 20

// writeTo is the seam tests put a full disk into: what a copy's bytes are written through.
var writeTo = func(f *os.File) io.Writer { return f }

// errChanged: the source changed while it was copied. errFull: the archive's disk is full.
var (
	errChanged = errors.New("the source changed while it was copied")
	errFull    = errors.New("the archive's disk is full (no space left on device): this file is not archived and no part of it is kept; free space and run archive again")
)

// copyRange copies src's bytes [from, to) to w in pieces and returns their SHA-256.
func copyRange(w io.Writer, src *os.File, from, to int64) ([]byte, error) {
	h := sha256.New()
	buf := make([]byte, max(1, min(chunk, to-from)))
	if _, err := io.CopyBuffer(io.MultiWriter(w, h), io.NewSectionReader(src, from, to-from), buf); err != nil {
		return nil, fullErr(err)
	}
	return h.Sum(nil), nil
}

// unchanged checks, after the copy, that the source was not rewritten since it was first looked at
// (before): it may only have grown, its bytes [have, size) still those copied (digest sum).
func unchanged(f *os.File, src string, before fs.FileInfo, have, size int64, sum []byte) error {
	if testHook != nil {
		testHook(src)
	}
	after, err := os.Lstat(src)
	if err != nil || after.Size() < size {
		return errChanged
	}
	if after.ModTime().Equal(before.ModTime()) {
		return nil
	}
	again, err := copyRange(io.Discard, f, have, size)
	if err != nil || !bytes.Equal(again, sum) {
		return errChanged
	}
	return nil
}

// fullErr words a full disk as errFull.
func fullErr(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return errFull
	}
	return err
}

// samePrefix reports whether the first n bytes of src equal the file at dest/<dst> (of n bytes).
func samePrefix(src *os.File, root *os.Root, dst string, n int64) (bool, error) {
	d, err := openInDest(root, dst, os.O_RDONLY, 0)
	if err != nil {
		return false, unwrap(err)
	}
	defer d.Close()
	a, b := make([]byte, min(1<<20, max(n, 1))), make([]byte, min(1<<20, max(n, 1)))
	for off := int64(0); off < n; {
		k := min(int64(len(a)), n-off)
		if _, err := src.ReadAt(a[:k], off); err != nil {
			return false, nil // the source is shorter now: not the same
		}
		if _, err := d.ReadAt(b[:k], off); err != nil {
			return false, unwrap(err)
		}
		if !bytes.Equal(a[:k], b[:k]) {
			return false, nil
		}
		off += k
	}
	return true, nil
}

// createTemp creates a new file beside dest/<dst> under a temporary name (tempPrefix).
func createTemp(root *os.Root, dst string) (*os.File, string, error) {
	for range 100 {
		name := filepath.Join(filepath.Dir(dst), tempPrefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, name, err
		}
	}
	return nil, "", errors.New("no free temporary name")
}

// writeNew writes a new copy to a temporary file beside dest/<dst> (copy streams the bytes and
// returns their digest, check then says whether they may be kept), syncs and verifies it, gives it
// src's mode and modification time, then links it to dst (never replacing a file there) and
// removes the temporary name: dst is absent or whole. dst's folder is one (Run checked it).
func writeNew(root *os.Root, dst string, src fs.FileInfo, copy func(io.Writer) ([]byte, error), check func([]byte) error) (int64, error) {
	tmp, name, err := createTemp(root, dst)
	if err != nil {
		return 0, fullErr(err)
	}
	defer root.Remove(name) // after the link, or on failure: never a partial file under dst's name
	sum, err := copy(writeTo(tmp))
	if err == nil {
		err = check(sum)
	}
	if err == nil {
		err = fullErr(tmp.Sync())
	}
	if err == nil {
		err = keepMeta(root, tmp, name, src)
	}
	if cerr := tmp.Close(); err == nil {
		err = fullErr(cerr)
	}
	if err != nil {
		return 0, err
	}
	n, err := verify(root, name, 0, sum)
	if err != nil {
		return 0, err
	}
	if err := root.Link(name, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return 0, fmt.Errorf("%s appeared meanwhile: left as it is", dst)
		}
		// No hard links here (some file systems): rename, having looked that dst is still free.
		if _, serr := root.Lstat(dst); serr == nil {
			return 0, fmt.Errorf("%s appeared meanwhile: left as it is", dst)
		}
		return n, root.Rename(name, dst)
	}
	return n, nil
}

// appendTo adds the bytes copy streams after the first have bytes of dest/<dst> (check then says
// whether they may be kept), then gives it src's mode and modification time; if anything fails,
// dst is cut back to have bytes, as it was. A copy without its owner's write permission (a
// read-only source's) gets it for the append, and back if the append fails. Where the system
// changes a mode through a read-only descriptor (unix), that is done through one of the file looked
// at, so a link put at dst meanwhile is not followed; elsewhere by name (os.Root: inside DEST).
func appendTo(root *os.Root, dst string, have int64, src fs.FileInfo, copy func(io.Writer) ([]byte, error), check func([]byte) error) (int64, error) {
	var ro *os.File
	var looked fs.FileInfo
	var err error
	if chmodReadOnlyFD {
		if ro, err = openInDest(root, dst, os.O_RDONLY, 0); err != nil {
			return 0, err
		}
		defer ro.Close()
		looked, err = ro.Stat()
	} else {
		looked, err = root.Lstat(dst)
	}
	if err != nil {
		return 0, err
	}
	chmod := func(m fs.FileMode) error {
		if ro != nil {
			return ro.Chmod(m)
		}
		return root.Chmod(dst, m)
	}
	perm := looked.Mode().Perm()
	if perm&0o200 == 0 {
		if err := chmod(perm | 0o200); err != nil {
			return 0, err
		}
	}
	n, err := appendWritable(root, dst, looked, have, src, copy, check)
	if err != nil && perm&0o200 == 0 {
		chmod(perm) // as it was
	}
	return n, err
}

// appendWritable is appendTo's append to dest/<dst>, the file looked at (writable by now).
func appendWritable(root *os.Root, dst string, looked fs.FileInfo, have int64, src fs.FileInfo, copy func(io.Writer) ([]byte, error), check func([]byte) error) (int64, error) {
	f, err := openInDest(root, dst, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != have || !os.SameFile(looked, fi) {
		f.Close()
		if err == nil {
			err = errors.New("the archive's copy changed meanwhile")
		}
		return 0, err
	}
	var n int64
	sum, err := copy(writeTo(f))
	if err == nil {
		err = check(sum)
	}
	if err == nil {
		err = fullErr(f.Sync())
	}
	if err == nil {
		n, err = verify(root, dst, have, sum)
	}
	if err != nil {
		if terr := f.Truncate(have); terr != nil {
			err = fmt.Errorf("%w; and cutting it back to its old length failed too: %v", err, terr)
		}
		f.Close()
		return 0, err
	}
	err = keepMeta(root, f, dst, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// verify reads back what was written to dest/<name> from off to the end, in pieces, and compares
// its digest with sum; it returns the length read.
func verify(root *os.Root, name string, off int64, sum []byte) (int64, error) {
	f, err := openInDest(root, name, os.O_RDONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.NewSectionReader(f, off, 1<<62), make([]byte, chunk))
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(h.Sum(nil), sum) {
		return 0, errors.New("the bytes read back differ from the bytes written")
	}
	return n, nil
}

// errLink is openInDest's refusal of a link.
var errLink = errors.New("a link: not followed, nothing written through it")

// openInDest opens dest/<name> without following a link. os.Root follows a link that stays inside
// DEST at a name's last element, O_NOFOLLOW or not (a lock file linked to keep/x created keep/x).
// So a file is created only with O_EXCL, which os.Root never follows, and a file that exists must
// be a regular file when looked at (Lstat) and the very file opened (same device and inode): a
// link put in its place meanwhile is refused, nothing read or written through it.
func openInDest(root *os.Root, name string, flag int, perm fs.FileMode) (*os.File, error) {
	for range 10 {
		if flag&os.O_CREATE != 0 {
			f, err := root.OpenFile(name, flag|os.O_EXCL|noFollow|noBlock, perm)
			if !errors.Is(err, fs.ErrExist) {
				return f, err
			}
		}
		looked, err := root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0 {
			continue // removed meanwhile: create it
		}
		switch {
		case err != nil:
			return nil, err
		case looked.Mode()&fs.ModeSymlink != 0:
			return nil, &fs.PathError{Op: "open", Path: name, Err: errLink}
		case !looked.Mode().IsRegular():
			return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a regular file")}
		}
		f, err := root.OpenFile(name, flag&^os.O_CREATE|noFollow|noBlock, 0)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err != nil || !os.SameFile(looked, fi) {
			f.Close()
			return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("replaced while it was opened")}
		}
		return f, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("made and removed again and again meanwhile")}
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
