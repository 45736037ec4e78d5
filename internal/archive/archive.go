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
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Result counts what a run did; Problems are the files it did not archive and why.
type Result struct {
	New, Grown, Same int
	Bytes            int64 // bytes copied
	Problems         []Problem
}

// Problem is a file left out: its source path and why.
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

// Run archives every session file under each source folder into dest/<rel> (rel: its path below
// the source folder). Links are not followed (a link is reported, not copied).
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
	res := &Result{}
	for _, src := range sources {
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				res.Problems = append(res.Problems, Problem{Path: p, Why: err.Error()})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			rel, rerr := filepath.Rel(src, p)
			if rerr != nil || d.IsDir() || !sessionFile(filepath.ToSlash(rel)) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				res.Problems = append(res.Problems, Problem{Path: p, Why: "a link: not followed, not archived"})
				return nil
			}
			if !d.Type().IsRegular() {
				res.Problems = append(res.Problems, Problem{Path: p, Why: "not a regular file"})
				return nil
			}
			copyFile(res, p, filepath.Join(dest, rel))
			return nil
		})
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// testHook, when set, runs after a source's bytes are copied and before they are checked unchanged:
// tests change the source there.
var testHook func(src string)

// copyFile brings dst up to src: a new file is written under a temporary name and linked into
// place only when whole and verified; a grown one gets its new bytes appended after its old bytes
// are found equal to the source's start (cut back to its old length if anything fails); an equal
// one is left alone. A source shorter than its archive, or different from it, is reported.
func copyFile(res *Result, src, dst string) {
	fail := func(changed bool, format string, a ...any) {
		res.Problems = append(res.Problems, Problem{Path: src, Why: fmt.Sprintf(format, a...), Changed: changed})
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
	size := before.Size()
	di, err := os.Lstat(dst)
	var have int64
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		fail(false, "the archive's copy: %v", unwrap(err))
		return
	case !di.Mode().IsRegular():
		fail(false, "the archive holds something else than a file at %s", dst)
		return
	default:
		have = di.Size()
		if have > size {
			fail(true, "the source shrank (%d bytes, the archive holds %d): not copied, the archive kept as it is", size, have)
			return
		}
		same, err := samePrefix(f, dst, have)
		if err != nil {
			fail(false, "comparing with the archive: %v", err)
			return
		}
		if !same {
			fail(true, "the source's first %d bytes differ from the archive's: it was rewritten; not copied, the archive kept as it is", have)
			return
		}
		if have == size {
			res.Same++
			return
		}
	}
	// The new bytes, streamed in pieces (a log may grow by gigabytes): written, then the source
	// checked unchanged since it was looked at, then the copy synced and read back.
	copyNew := func(w io.Writer) ([]byte, error) { return copyRange(w, f, have, size) }
	check := func(sum []byte) error { return unchanged(f, src, before, have, size, sum) }
	var n int64
	if di == nil {
		n, err = writeNew(dst, copyNew, check)
	} else {
		n, err = appendTo(dst, have, copyNew, check)
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
	if di == nil {
		res.New++
	} else {
		res.Grown++
	}
	res.Bytes += n
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

// samePrefix reports whether the first n bytes of src equal the file at dst (of n bytes).
func samePrefix(src *os.File, dst string, n int64) (bool, error) {
	d, err := os.Open(dst)
	if err != nil {
		return false, unwrap(err)
	}
	defer d.Close()
	a, b := make([]byte, 1<<20), make([]byte, 1<<20)
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

// writeNew writes a new copy to a temporary file beside dst (copy streams the bytes and returns
// their digest, check then says whether they may be kept), syncs and verifies it, then links it to
// dst (never replacing a file there) and removes the temporary name: dst is absent or whole.
func writeNew(dst string, copy func(io.Writer) ([]byte, error), check func([]byte) error) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".ccdag-archive-*")
	if err != nil {
		return 0, fullErr(err)
	}
	name := tmp.Name()
	defer os.Remove(name) // after the link, or on failure: never a partial file under dst's name
	sum, err := copy(writeTo(tmp))
	if err == nil {
		err = check(sum)
	}
	if err == nil {
		err = fullErr(tmp.Sync())
	}
	if cerr := tmp.Close(); err == nil {
		err = fullErr(cerr)
	}
	if err != nil {
		return 0, err
	}
	n, err := verify(name, 0, sum)
	if err != nil {
		return 0, err
	}
	if err := os.Link(name, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return 0, fmt.Errorf("%s appeared meanwhile: left as it is", dst)
		}
		// No hard links here (some file systems): rename, having looked that dst is still free.
		if _, serr := os.Lstat(dst); serr == nil {
			return 0, fmt.Errorf("%s appeared meanwhile: left as it is", dst)
		}
		return n, os.Rename(name, dst)
	}
	return n, nil
}

// appendTo adds the bytes copy streams after the first have bytes of dst (check then says whether
// they may be kept); if anything fails, dst is cut back to have bytes, as it was.
func appendTo(dst string, have int64, copy func(io.Writer) ([]byte, error), check func([]byte) error) (int64, error) {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND|noFollow, 0)
	if err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != have {
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
		n, err = verify(dst, have, sum)
	}
	if err != nil {
		if terr := f.Truncate(have); terr != nil {
			err = fmt.Errorf("%w; and cutting it back to its old length failed too: %v", err, terr)
		}
		f.Close()
		return 0, err
	}
	return n, f.Close()
}

// verify reads back what was written from off to the end, in pieces, and compares its digest with
// sum; it returns the length read.
func verify(path string, off int64, sum []byte) (int64, error) {
	f, err := os.Open(path)
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

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
