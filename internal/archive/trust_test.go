package archive

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const sid = "0b4f6a6e-1111-2222-3333-444455556666"

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

func problemsSay(res *Result, what string) int {
	n := 0
	for _, p := range res.Problems {
		if strings.Contains(p.Why, what) {
			n++
		}
	}
	return n
}

// A source named on the command line that is a link (~/.claude/projects kept elsewhere) is
// followed, and said; a project folder inside a source that is a link is reported as a folder not
// walked, never skipped in silence (docs/spec.md §15).
func TestArchiveLinkedFolders(t *testing.T) {
	real := tree(t)
	projects := filepath.Join(t.TempDir(), "projects")
	symlink(t, real, projects)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	write(t, filepath.Join(elsewhere, "s.jsonl"), "{}\n")
	symlink(t, elsewhere, filepath.Join(real, "-home-me-linked"))

	dest := filepath.Join(t.TempDir(), "archive")
	res, err := Run(dest, []string{projects})
	if err != nil || res.New != 5 {
		t.Fatalf("the linked source: %+v %v", res, err)
	}
	if len(res.Notes) != 1 || res.Notes[0].Path != projects || !strings.Contains(res.Notes[0].What, "followed") {
		t.Errorf("the link followed is not said: %+v", res.Notes)
	}
	if len(res.Problems) != 1 || res.Problems[0].Path != filepath.Join(real, "-home-me-linked") || problemsSay(res, "not walked") != 1 {
		t.Errorf("the linked project folder is not reported: %+v", res.Problems)
	}
	if _, err := os.Lstat(filepath.Join(dest, "-home-me-linked")); err == nil {
		t.Error("a link inside the source was followed")
	}
}

// A log named archives its whole session, below DEST as below the log's folder: sub-agent logs
// and their meta.json, tool-results/, in the subagents/ layout and in the flat one.
func TestArchiveNamedLog(t *testing.T) {
	src := tree(t)
	dest := filepath.Join(t.TempDir(), "archive")
	res, err := Run(dest, []string{filepath.Join(src, "-home-me-proj", sid+".jsonl")})
	if err != nil || res.New != 4 || len(res.Problems) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	for _, rel := range []string{sid + ".jsonl", sid + "/subagents/agent-ab12.jsonl", sid + "/subagents/agent-ab12.meta.json", sid + "/tool-results/toolu_1.txt"} {
		if read(t, filepath.Join(dest, rel)) != read(t, filepath.Join(src, "-home-me-proj", rel)) {
			t.Errorf("%s: not archived", rel)
		}
	}
	flat := t.TempDir()
	write(t, filepath.Join(flat, "7a2b.jsonl"), `{"sessionId":"7a2b","type":"user","uuid":"u1"}`+"\n")
	write(t, filepath.Join(flat, "agent-9f8e.jsonl"), `{"sessionId":"7a2b","isSidechain":true,"agentId":"9f8e","type":"user","uuid":"u2"}`+"\n")
	write(t, filepath.Join(flat, "other.jsonl"), `{"sessionId":"other","type":"user","uuid":"u3"}`+"\n")
	dest = filepath.Join(t.TempDir(), "archive")
	res, err = Run(dest, []string{filepath.Join(flat, "7a2b.jsonl")})
	if err != nil || res.New != 2 || len(res.Problems) != 0 {
		t.Fatalf("flat: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dest, "other.jsonl")); err == nil {
		t.Error("another session's log was archived")
	}
}

// A log that ccdag fix or redact rewrote (its .ccdag-<time>.bak beside it holds what the archive
// has) is archived whole as <name>.v2.jsonl beside the old copy, which stays as it was; the new
// version then grows as the log does. A rewrite by anything else is still reported, not copied.
func TestArchiveRewrittenLogIsANewVersion(t *testing.T) {
	src := tree(t)
	dest := filepath.Join(t.TempDir(), "archive")
	if _, err := Run(dest, []string{src}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(src, "-home-me-proj", sid+".jsonl")
	old := read(t, log)
	write(t, log+".ccdag-20261127-101500.bak", old+"{\"grown\":1}\n") // the log grew, then was fixed
	write(t, log, "{\"fixed\":1}\n")
	res, err := Run(dest, []string{src})
	if err != nil || res.Versions != 1 || len(res.Problems) != 0 || len(res.Notes) != 1 || !strings.Contains(res.Notes[0].What, sid+".v2.jsonl") {
		t.Fatalf("%+v %v", res, err)
	}
	v2 := filepath.Join(dest, "-home-me-proj", sid+".v2.jsonl")
	if read(t, v2) != "{\"fixed\":1}\n" || read(t, filepath.Join(dest, "-home-me-proj", sid+".jsonl")) != old {
		t.Fatalf("new version %q, old copy %q", read(t, v2), read(t, filepath.Join(dest, "-home-me-proj", sid+".jsonl")))
	}
	appendTo := func(s string) {
		f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(s)
		f.Close()
	}
	appendTo("{\"next\":2}\n")
	if res, _ = Run(dest, []string{src}); res.Grown != 1 || res.Versions != 0 || read(t, v2) != "{\"fixed\":1}\n{\"next\":2}\n" {
		t.Fatalf("the new version does not grow with the log: %+v", res)
	}
	if res, _ = Run(dest, []string{src}); res.Same != 5 || res.Versions != 0 {
		t.Fatalf("again: %+v", res)
	}
	write(t, log, "{\"edited by hand\":1}\n") // no backup holds the archived text
	res, _ = Run(dest, []string{src})
	if res.Versions != 0 || len(res.Problems) != 1 || !res.Problems[0].Changed {
		t.Fatalf("a rewrite not ccdag's: %+v", res)
	}
	if _, err := os.Lstat(filepath.Join(dest, "-home-me-proj", sid+".v3.jsonl")); err == nil {
		t.Error("a rewrite not ccdag's made a version")
	}
}

// A folder link inside DEST is never written through: the files that would go there are
// reported, nothing is written outside DEST.
func TestArchiveWritesThroughNoLinkInDest(t *testing.T) {
	src := tree(t)
	dest := filepath.Join(t.TempDir(), "archive")
	outside := t.TempDir()
	os.MkdirAll(dest, 0o755)
	symlink(t, outside, filepath.Join(dest, "-home-me-proj"))
	res, err := Run(dest, []string{src})
	if err != nil || res.New != 1 || len(res.Problems) != 4 || problemsSay(res, "is a link: nothing is written through it") != 4 {
		t.Fatalf("%+v %v", res, err)
	}
	if names, _ := os.ReadDir(outside); len(names) != 0 {
		t.Errorf("written outside DEST through a link: %v", names)
	}
}

// A copy keeps its source's mode bits and modification time, when new and when grown.
func TestArchiveKeepsModeAndTime(t *testing.T) {
	src := tree(t)
	log := filepath.Join(src, "-home-me-proj", sid+".jsonl")
	meta := filepath.Join(src, "-home-me-proj", sid, "subagents", "agent-ab12.meta.json")
	when := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	os.Chmod(log, 0o640)
	os.Chmod(meta, 0o444)
	os.Chtimes(log, when, when)
	dest := filepath.Join(t.TempDir(), "archive")
	Run(dest, []string{src})
	same := func(step, rel string) {
		t.Helper()
		a, _ := os.Stat(filepath.Join(src, rel))
		b, err := os.Stat(filepath.Join(dest, rel))
		if err != nil || a.Mode() != b.Mode() || !a.ModTime().Equal(b.ModTime()) {
			t.Errorf("%s: %s: source %v %v, archive %v %v", step, rel, a.Mode(), a.ModTime(), b.Mode(), b.ModTime())
		}
	}
	same("new", filepath.Join("-home-me-proj", sid+".jsonl"))
	same("new", filepath.Join("-home-me-proj", sid, "subagents", "agent-ab12.meta.json"))
	f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"c\":3}\n")
	f.Close()
	later := when.Add(time.Hour)
	os.Chtimes(log, later, later)
	os.Chmod(log, 0o600)
	if res, _ := Run(dest, []string{src}); res.Grown != 1 {
		t.Fatalf("%+v", res)
	}
	same("grown", filepath.Join("-home-me-proj", sid+".jsonl"))
}

// A link put in the copy's place, after its bytes are written and before its mode and time are set,
// is not followed: they are set through the open file, and a file in DEST the link names keeps
// its own (they were once set by name, through such a link). New copy: its temporary name swapped
// for a link; grown copy of a read-only source: its name swapped for a link, so the append fails
// and its write permission, given for the append, is taken back, from the copy, not the link's
// target.
func TestArchiveMetaNotThroughALink(t *testing.T) {
	victimTime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	when := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	setup := func(t *testing.T) (src, log, dest, folder, victim string) {
		src = tree(t)
		log = filepath.Join(src, "-home-me-proj", sid+".jsonl")
		os.Chmod(log, 0o444)
		os.Chtimes(log, when, when)
		dest = filepath.Join(t.TempDir(), "archive")
		folder = filepath.Join(dest, "-home-me-proj")
		victim = filepath.Join(dest, "victim.jsonl")
		write(t, victim, "{}\n")
		os.Chmod(victim, 0o600)
		os.Chtimes(victim, victimTime, victimTime)
		return
	}
	untouched := func(t *testing.T, victim string) {
		t.Helper()
		fi, err := os.Lstat(victim)
		if err != nil || fi.Mode().Perm() != 0o600 || !fi.ModTime().Equal(victimTime) {
			t.Errorf("the file the link names was changed through it: %v %v %v", fi.Mode(), fi.ModTime(), err)
		}
	}
	defer func() { testHook = nil }()

	t.Run("new", func(t *testing.T) {
		src, log, dest, folder, victim := setup(t)
		testHook = func(p string) {
			if p != log {
				return
			}
			names, _ := os.ReadDir(folder)
			for _, e := range names {
				if strings.HasPrefix(e.Name(), tempPrefix) {
					tmp := filepath.Join(folder, e.Name())
					os.Remove(tmp)
					symlink(t, "../victim.jsonl", tmp) // relative: os.Root follows it, it stays inside DEST
				}
			}
		}
		res, _ := Run(dest, []string{src})
		testHook = nil
		if res.New != 4 || len(res.Problems) != 1 || res.Problems[0].Path != log {
			t.Errorf("%+v", res)
		}
		untouched(t, victim)
	})

	t.Run("grown", func(t *testing.T) {
		src, log, dest, folder, victim := setup(t)
		if res, _ := Run(dest, []string{src}); res.New != 5 || len(res.Problems) != 0 {
			t.Fatalf("first run: %+v", res)
		}
		os.Chmod(log, 0o644)
		f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("{\"c\":3}\n")
		f.Close()
		os.Chmod(log, 0o444)
		copied := filepath.Join(folder, sid+".jsonl")
		moved := filepath.Join(dest, "moved.jsonl")
		testHook = func(p string) {
			if p == log {
				os.Rename(copied, moved)
				symlink(t, "../victim.jsonl", copied)
			}
		}
		res, _ := Run(dest, []string{src})
		testHook = nil
		if res.Grown != 0 || len(res.Problems) != 1 || res.Problems[0].Path != log {
			t.Errorf("%+v", res)
		}
		untouched(t, victim)
		if fi, err := os.Lstat(moved); err != nil || fi.Mode().Perm() != 0o444 || fi.Size() != 8 {
			t.Errorf("the copy was not put back as it was: %v %v", fi, err)
		}
	})
}

// A run killed while it copied leaves its temporary file in DEST; the next run removes it (and
// says so), and archives the file whole.
func TestArchiveRemovesAKilledRunsTemporaryFiles(t *testing.T) {
	if dest := os.Getenv("CCDAG_ARCHIVE_DIE_DEST"); dest != "" {
		writeTo = func(f *os.File) io.Writer { return dying{f} }
		Run(dest, []string{os.Getenv("CCDAG_ARCHIVE_DIE_SRC")})
		return
	}
	src := tree(t)
	big := filepath.Join(src, "-home-me-proj", "big.jsonl")
	write(t, big, strings.Repeat("{\"x\":\"........................................\"}\n", 50_000))
	dest := filepath.Join(t.TempDir(), "archive")
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestArchiveRemovesAKilledRunsTemporaryFiles$")
		cmd.Env = append(os.Environ(), "CCDAG_ARCHIVE_DIE_DEST="+dest, "CCDAG_ARCHIVE_DIE_SRC="+src)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("the run was not stopped: %s", out)
		}
	}
	temps := 0
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			temps++
		}
		return nil
	})
	if temps == 0 {
		t.Fatal("the killed runs left no temporary file: the test does not test")
	}
	res, err := Run(dest, []string{src})
	if err != nil || len(res.Problems) != 0 || len(res.Notes) != 1 || !strings.Contains(res.Notes[0].What, "removed") {
		t.Fatalf("%+v %v", res, err)
	}
	assertWholeOrAbsent(t, src, dest)
	if read(t, filepath.Join(dest, "-home-me-proj", "big.jsonl")) != read(t, big) {
		t.Error("not archived whole after the killed runs")
	}
}

// dying is a writer that ends the process at its first write after some bytes went through, as a
// kill would: no deferred function runs.
type dying struct{ f *os.File }

func (d dying) Write(p []byte) (int, error) {
	if fi, err := d.f.Stat(); err == nil && fi.Size() > 0 {
		os.Exit(3)
	}
	return d.f.Write(p)
}

// What archive opens in DEST is never opened through a link, even one staying inside DEST (which
// os.Root follows): reading, appending or creating (docs/spec.md §15).
func TestArchiveOpensNoLinkInDest(t *testing.T) {
	dest := t.TempDir()
	write(t, filepath.Join(dest, "keep", "target"), "kept")
	symlink(t, filepath.Join("keep", "target"), filepath.Join(dest, "to-file"))
	symlink(t, filepath.Join("keep", "missing"), filepath.Join(dest, "to-nothing"))
	root, err := os.OpenRoot(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, c := range []struct {
		name string
		flag int
	}{
		{"to-file", os.O_RDONLY},
		{"to-file", os.O_WRONLY | os.O_APPEND},
		{"to-file", os.O_RDWR | os.O_CREATE},
		{"to-nothing", os.O_RDWR | os.O_CREATE},
	} {
		f, err := openInDest(root, c.name, c.flag, 0o600)
		if f != nil {
			f.Close()
		}
		if !errors.Is(err, errLink) {
			t.Errorf("%s (flag %#x): %v, want the link refused", c.name, c.flag, err)
		}
	}
	if names, _ := os.ReadDir(filepath.Join(dest, "keep")); len(names) != 1 || read(t, filepath.Join(dest, "keep", "target")) != "kept" {
		t.Errorf("written through a link: %v", names)
	}
	f, err := openInDest(root, "new", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatalf("a new file: %v", err)
	}
	f.Close()
	if f, err = openInDest(root, "new", os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		t.Fatalf("an existing file: %v", err)
	}
	f.Close()
}
