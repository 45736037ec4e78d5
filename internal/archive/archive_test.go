package archive

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tree makes a source folder with one session in Claude Code's layout, a name needing escapes and
// a file that is no session's.
func tree(t *testing.T) string {
	src := filepath.Join(t.TempDir(), "projects")
	sid := "0b4f6a6e-1111-2222-3333-444455556666"
	write(t, filepath.Join(src, "-home-me-proj", sid+".jsonl"), "{\"a\":1}\n")
	write(t, filepath.Join(src, "-home-me-proj", sid, "subagents", "agent-ab12.jsonl"), "{\"b\":2}\n")
	write(t, filepath.Join(src, "-home-me-proj", sid, "subagents", "agent-ab12.meta.json"), `{"agentType":"x"}`)
	write(t, filepath.Join(src, "-home-me-proj", sid, "tool-results", "toolu_1.txt"), "output")
	write(t, filepath.Join(src, "we\nird [*] name", "s.jsonl"), "{}\n")
	write(t, filepath.Join(src, "-home-me-proj", "notes.txt"), "not a session file")
	return src
}

func TestArchiveIncremental(t *testing.T) {
	src := tree(t)
	dest := filepath.Join(t.TempDir(), "archive")
	res, err := Run(dest, []string{src})
	if err != nil || res.New != 5 || len(res.Problems) != 0 {
		t.Fatalf("first run: %+v %v", res, err)
	}
	main := filepath.Join("-home-me-proj", "0b4f6a6e-1111-2222-3333-444455556666.jsonl")
	if read(t, filepath.Join(dest, main)) != read(t, filepath.Join(src, main)) {
		t.Fatal("copy differs")
	}
	if _, err := os.Stat(filepath.Join(dest, "-home-me-proj", "notes.txt")); err == nil {
		t.Error("a file of no session was archived")
	}
	// Again: nothing copied.
	res, _ = Run(dest, []string{src})
	if res.New != 0 || res.Grown != 0 || res.Same != 5 || res.Bytes != 0 {
		t.Fatalf("second run: %+v", res)
	}
	// The log grows: only its new bytes are copied.
	f, _ := os.OpenFile(filepath.Join(src, main), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"c\":3}\n")
	f.Close()
	res, _ = Run(dest, []string{src})
	if res.Grown != 1 || res.Bytes != 8 || len(res.Problems) != 0 {
		t.Fatalf("grown: %+v", res)
	}
	if read(t, filepath.Join(dest, main)) != "{\"a\":1}\n{\"c\":3}\n" {
		t.Fatal("grown copy differs")
	}
	// Rewritten in the middle, then shrunk: reported, the archive kept as it was.
	write(t, filepath.Join(src, main), "{\"X\":1}\n{\"c\":3}\n{\"d\":4}\n")
	res, _ = Run(dest, []string{src})
	if len(res.Problems) != 1 || !res.Problems[0].Changed || !strings.Contains(res.Problems[0].Why, "differ") {
		t.Fatalf("rewritten: %+v", res)
	}
	write(t, filepath.Join(src, main), "{}\n")
	res, _ = Run(dest, []string{src})
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Why, "shrank") {
		t.Fatalf("shrunk: %+v", res)
	}
	if read(t, filepath.Join(dest, main)) != "{\"a\":1}\n{\"c\":3}\n" {
		t.Fatal("the archive was rewritten")
	}
	assertNoTemp(t, dest)
}

// TestArchiveSourceChangingUnderneath: a source rewritten between the read and the copy is
// reported and nothing is left in the archive; one that only grew meanwhile is copied as read.
func TestArchiveSourceChangingUnderneath(t *testing.T) {
	src := tree(t)
	dest := filepath.Join(t.TempDir(), "archive")
	main := filepath.Join(src, "-home-me-proj", "0b4f6a6e-1111-2222-3333-444455556666.jsonl")
	testHook = func(p string) {
		if p == main {
			write(t, main, "{\"z\":9}\n")
		}
	}
	defer func() { testHook = nil }()
	res, _ := Run(dest, []string{src})
	if res.New != 4 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Why, "changed while") {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Lstat(filepath.Join(dest, "-home-me-proj", filepath.Base(main))); err == nil {
		t.Error("a copy of a changing source was left")
	}
	testHook = func(p string) {
		if p == main {
			f, _ := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("{\"more\":1}\n")
			f.Close()
		}
	}
	res, _ = Run(dest, []string{src})
	if res.New != 1 || len(res.Problems) != 0 || read(t, filepath.Join(dest, "-home-me-proj", filepath.Base(main))) != "{\"z\":9}\n" {
		t.Fatalf("grown meanwhile: %+v", res)
	}
	assertNoTemp(t, dest)
}

func TestArchiveRefusesInsideAndLinks(t *testing.T) {
	src := tree(t)
	if _, err := Run(filepath.Join(src, "backup"), []string{src}); !errors.Is(err, ErrInside) {
		t.Errorf("dest inside the source: %v", err)
	}
	if _, err := Run(src, []string{src}); !errors.Is(err, ErrInside) {
		t.Errorf("dest = source: %v", err)
	}
	secret := filepath.Join(t.TempDir(), "outside.jsonl")
	write(t, secret, "{\"outside\":1}\n")
	if err := os.Symlink(secret, filepath.Join(src, "-home-me-proj", "link.jsonl")); err != nil {
		t.Skip("no symbolic links here")
	}
	dest := filepath.Join(t.TempDir(), "a")
	res, _ := Run(dest, []string{src})
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Why, "link") {
		t.Errorf("%+v", res)
	}
	if _, err := os.Lstat(filepath.Join(dest, "-home-me-proj", "link.jsonl")); err == nil {
		t.Error("a link was followed")
	}
	// Something else than a file where the archive's copy would go: reported, left alone.
	os.RemoveAll(filepath.Join(dest, "-home-me-proj", "0b4f6a6e-1111-2222-3333-444455556666", "tool-results", "toolu_1.txt"))
	os.MkdirAll(filepath.Join(dest, "-home-me-proj", "0b4f6a6e-1111-2222-3333-444455556666", "tool-results", "toolu_1.txt"), 0o755)
	res, _ = Run(dest, []string{src})
	if len(res.Problems) != 2 {
		t.Errorf("%+v", res)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".ccdag-archive-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestWriteFailureLeavesNothing: a write that fails leaves no file under the copy's name, and an
// append refused leaves the copy as it was.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	src, _ := os.Stat(dir)
	// A destination folder that is a file: the write fails, nothing is left.
	write(t, filepath.Join(dir, "x"), "file")
	if _, err := writeNew(root, filepath.Join("x", "f.jsonl"), src, bytesCopy("data"), keep); err == nil {
		t.Fatal("no error")
	}
	// appendTo on a copy whose length changed: refused, the copy as it was.
	p := filepath.Join(dir, "g.jsonl")
	write(t, p, "abc")
	if _, err := appendTo(root, "g.jsonl", 2, src, bytesCopy("zz"), keep); err == nil || read(t, p) != "abc" {
		t.Fatalf("%v %q", err, read(t, p))
	}
}

// bytesCopy streams s (what copyRange does with a source's range) and keep lets it be kept.
func bytesCopy(s string) func(io.Writer) ([]byte, error) {
	return func(w io.Writer) ([]byte, error) {
		if _, err := io.WriteString(w, s); err != nil {
			return nil, err
		}
		sum := sha256.Sum256([]byte(s))
		return sum[:], nil
	}
}

func keep([]byte) error { return nil }
