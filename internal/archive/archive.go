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

// testHook, when set, runs after a source's bytes are read and before they are checked unchanged:
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
	// The new bytes: read, then the source checked unchanged since it was looked at.
	add := make([]byte, size-have)
	if _, err := f.ReadAt(add, have); err != nil {
		fail(false, "%v", unwrap(err))
		return
	}
	if testHook != nil {
		testHook(src)
	}
	if after, err := os.Lstat(src); err != nil || after.Size() < size || !after.ModTime().Equal(before.ModTime()) && !grewOnly(f, have, add) {
		fail(true, "changed while it was copied: not copied (run archive again)")
		return
	}
	if di == nil {
		err = writeNew(dst, add)
	} else {
		err = appendTo(dst, have, add)
	}
	if err != nil {
		fail(false, "writing the archive: %v", unwrap(err))
		return
	}
	if di == nil {
		res.New++
	} else {
		res.Grown++
	}
	res.Bytes += int64(len(add))
}

// grewOnly reports whether the source still starts with what was read (it only grew since).
func grewOnly(f *os.File, have int64, add []byte) bool {
	now := make([]byte, len(add))
	_, err := f.ReadAt(now, have)
	return err == nil && bytes.Equal(now, add)
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

// writeNew writes data to a temporary file beside dst, syncs and verifies it, then links it to dst
// (never replacing a file there) and removes the temporary name.
func writeNew(dst string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".ccdag-archive-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after the link, or on failure: never a partial file under dst's name
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := verify(name, 0, data); err != nil {
		return err
	}
	if err := os.Link(name, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s appeared meanwhile: left as it is", dst)
		}
		// No hard links here (some file systems): rename, having looked that dst is still free.
		if _, serr := os.Lstat(dst); serr == nil {
			return fmt.Errorf("%s appeared meanwhile: left as it is", dst)
		}
		return os.Rename(name, dst)
	}
	return nil
}

// appendTo adds data after the first have bytes of dst; if anything fails, dst is cut back to have
// bytes, as it was.
func appendTo(dst string, have int64, data []byte) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND|noFollow, 0)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != have {
		f.Close()
		if err == nil {
			err = errors.New("the archive's copy changed meanwhile")
		}
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = verify(dst, have, data)
	}
	if err != nil {
		if terr := f.Truncate(have); terr != nil {
			err = fmt.Errorf("%v; and cutting it back to its old length failed too: %v", err, terr)
		}
		f.Close()
		return err
	}
	return f.Close()
}

// verify reads back what was written at off and compares it with data (by digest, in pieces).
func verify(path string, off int64, data []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, off, int64(len(data))+1)); err != nil {
		return err
	}
	if want := sha256.Sum256(data); !bytes.Equal(h.Sum(nil), want[:]) {
		return errors.New("the bytes read back differ from the bytes written")
	}
	return nil
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
