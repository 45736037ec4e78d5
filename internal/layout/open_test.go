//go:build unix

package layout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What Open opens is what it looked at: each case swaps something in between the look and the
// open (afterLook) and the open must refuse, at once.
func TestOpenRefusesWhatIsSwappedInAfterTheLook(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "p")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(dir, "sub"), filepath.Join(outside, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "secret.jsonl")
	write(secret, "secret\n")
	write(filepath.Join(outside, "sub", "agent-a.jsonl"), "secret\n")
	cases := []struct {
		name, path string
		setup      func(path string) // before the look
		swap       func(path string) // between the look and the open
	}{
		{"a FIFO in place of a file", filepath.Join(dir, "fifo.jsonl"),
			func(p string) { write(p, "ok\n") },
			func(p string) { os.Remove(p); mkfifo(p) }},
		{"a link out in place of a file", filepath.Join(dir, "file.jsonl"),
			func(p string) { write(p, "ok\n") },
			func(p string) { os.Remove(p); os.Symlink(secret, p) }},
		{"a link inside re-pointed out", filepath.Join(dir, "alias.jsonl"),
			func(p string) { write(filepath.Join(dir, "inner.jsonl"), "ok\n"); os.Symlink("inner.jsonl", p) },
			func(p string) { os.Remove(p); os.Symlink(secret, p) }},
		{"a folder on the way swapped for a link out", filepath.Join(dir, "sub", "agent-a.jsonl"),
			func(p string) { write(p, "ok\n") },
			func(p string) {
				os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "old"))
				os.Symlink(filepath.Join(outside, "sub"), filepath.Join(dir, "sub"))
			}},
	}
	t.Cleanup(func() { afterLook = nil })
	for _, c := range cases {
		c.setup(c.path)
		if fh, err := Open(c.path, dir); err != nil { // unswapped, it opens
			t.Fatalf("%s: before the swap: %v", c.name, err)
		} else {
			fh.Close()
		}
		afterLook = func(p string) {
			if p == c.path {
				c.swap(p)
			}
		}
		done := make(chan error, 1)
		go func() {
			fh, err := Open(c.path, dir)
			if err == nil {
				b := make([]byte, 16)
				n, _ := fh.Read(b)
				fh.Close()
				t.Errorf("%s: opened, read %q", c.name, b[:n])
			}
			done <- err
		}()
		select {
		case err := <-done:
			t.Logf("%s: %v", c.name, err)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Open blocked", c.name)
		}
		afterLook = nil
	}
}

// TestReadFileMax: a file past the limit is refused from its size, before any byte is read (a
// sparse file costs no disk), and one at the limit is read whole.
func TestReadFileMax(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadFileMax(p, dir, 1<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 4<<20 || !strings.Contains(err.Error(), "limit of 1 MB") {
		t.Fatalf("4 MB under a 1 MB limit: %v", err)
	}
	if b, err := ReadFileMax(p, dir, 4<<20); err != nil || len(b) != 4<<20 {
		t.Fatalf("at the limit: %d bytes, %v", len(b), err)
	}
	if b, err := ReadFileMax(p, dir, 0); err != nil || len(b) != 4<<20 {
		t.Fatalf("no limit: %d bytes, %v", len(b), err)
	}
}
