package archive

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestBigAppendStreamed: a log that grew by 64 MiB is archived in pieces; the run allocates a small
// fraction of what it copies (reading the new bytes whole allocated all of them).
func TestBigAppendStreamed(t *testing.T) {
	src := filepath.Join(t.TempDir(), "projects")
	p := filepath.Join(src, "-p", "s.jsonl")
	write(t, p, "{\"a\":1}\n")
	dest := filepath.Join(t.TempDir(), "archive")
	if res, err := Run(dest, []string{src}); err != nil || res.New != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	const grow = 64 << 20
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 1023) + "\n")
	for range grow / len(line) {
		f.Write(line)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Run(dest, []string{src})
	runtime.ReadMemStats(&after)
	if err != nil || res.Grown != 1 || res.Bytes != grow {
		t.Fatalf("%+v %v", res, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > grow/8 {
		t.Errorf("archiving a %d MiB append allocated %d MiB: the new bytes are not streamed", grow>>20, got>>20)
	}
	a, _ := os.ReadFile(filepath.Join(dest, "-p", "s.jsonl"))
	b, _ := os.ReadFile(p)
	if !bytes.Equal(a, b) {
		t.Error("the archive's copy differs from the log")
	}
}

// fullDisk is a writer onto a disk with room for left more bytes.
type fullDisk struct {
	w    io.Writer
	left *int
}

func (d fullDisk) Write(p []byte) (int, error) {
	n := min(len(p), *d.left)
	*d.left -= n
	d.w.Write(p[:n])
	if n < len(p) {
		return n, &os.PathError{Op: "write", Path: "archive", Err: syscall.ENOSPC}
	}
	return n, nil
}

// TestFullDisk: archiving onto a disk that fills up mid-copy says so, counts nothing as archived
// that is not whole (a new file is not left under its name, a grown one is cut back to what it
// held), never touches the source, and the next run, with room again, completes.
func TestFullDisk(t *testing.T) {
	src := tree(t)
	dest := filepath.Join(t.TempDir(), "archive")
	main := filepath.Join("-home-me-proj", "0b4f6a6e-1111-2222-3333-444455556666.jsonl")
	// A first run with room for one small file and a part of the next.
	left := 10
	writeTo = func(f *os.File) io.Writer { return fullDisk{f, &left} }
	defer func() { writeTo = func(f *os.File) io.Writer { return f } }()
	snap := snapshot(t, src)
	res, err := Run(dest, []string{src})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 1 || len(res.Problems) != 4 {
		t.Fatalf("%+v", res)
	}
	for _, p := range res.Problems {
		if p.Changed || !strings.Contains(p.Why, "disk is full") || !strings.Contains(p.Why, "run archive again") {
			t.Errorf("not a clear disk-full report: %+v", p)
		}
	}
	assertWholeOrAbsent(t, src, dest)
	if !snapshotEqual(snap, snapshot(t, src)) {
		t.Error("the source was touched")
	}
	// A grown log onto a full disk: cut back to what the archive held.
	left = 1 << 30
	if res, _ := Run(dest, []string{src}); res.New != 4 || len(res.Problems) != 0 {
		t.Fatalf("with room again: %+v", res)
	}
	f, _ := os.OpenFile(filepath.Join(src, main), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(strings.Repeat("{\"c\":3}\n", 100))
	f.Close()
	snap = snapshot(t, src)
	held := read(t, filepath.Join(dest, main))
	left = 300
	res, _ = Run(dest, []string{src})
	if res.Grown != 0 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Why, "disk is full") {
		t.Fatalf("grown onto a full disk: %+v", res)
	}
	if read(t, filepath.Join(dest, main)) != held {
		t.Error("the archive's copy was not cut back to what it held")
	}
	assertWholeOrAbsent(t, src, dest)
	if !snapshotEqual(snap, snapshot(t, src)) {
		t.Error("the source was touched")
	}
	// Room again: the next run completes.
	left = 1 << 30
	if res, _ := Run(dest, []string{src}); res.Grown != 1 || len(res.Problems) != 0 || res.Same != 4 {
		t.Fatalf("after the disk was freed: %+v", res)
	}
	assertWholeOrAbsent(t, src, dest)
	if read(t, filepath.Join(dest, main)) != read(t, filepath.Join(src, main)) {
		t.Error("the copy is not whole after the next run")
	}
}

// assertWholeOrAbsent: every file of the archive equals its source or a start of it the archive
// held before (a grown log), and no temporary file is left.
func assertWholeOrAbsent(t *testing.T, src, dest string) {
	t.Helper()
	assertNoTemp(t, dest)
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == lockName {
			return nil
		}
		rel, _ := filepath.Rel(dest, p)
		a, b := read(t, p), read(t, filepath.Join(src, rel))
		if !strings.HasPrefix(b, a) || a == "" && b != "" {
			t.Errorf("%s in the archive is not its source's bytes: %q of %q", rel, a, b)
		}
		return nil
	})
}

type fileState struct {
	data  string
	mtime int64
}

func snapshot(t *testing.T, dir string) map[string]fileState {
	m := map[string]fileState{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			m[p] = fileState{read(t, p), fi.ModTime().UnixNano()}
		}
		return nil
	})
	return m
}

func snapshotEqual(a, b map[string]fileState) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
