package cli

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// TestFixFixtures: the dry run's diff of each check fixture, against its golden file (one repair
// per code, and the codes without one).
func TestFixFixtures(t *testing.T) {
	entries, err := os.ReadDir("../../testdata/checks")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		t.Run(strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
			p := filepath.Join("testdata/checks", name)
			before, _ := os.ReadFile(filepath.Join("../..", p))
			args := []string{"fix", p}
			if name == "incomplete-last-line.jsonl" {
				args = []string{"fix", "--code", "incomplete-last-line", p}
			}
			out, errs, code := run(t, args...)
			golden(t, "testdata/fix/"+strings.TrimSuffix(name, ".jsonl")+".golden", out+"--- stderr\n"+errs+"--- exit "+string(rune('0'+code))+"\n")
			after, _ := os.ReadFile(filepath.Join("../..", p))
			if !bytes.Equal(before, after) {
				t.Fatal("a dry run changed the file")
			}
		})
	}
}

// copyLog puts a fixture into a temporary folder, last modified two minutes ago.
func copyLog(t *testing.T, fixture string, mode fs.FileMode) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/checks", fixture))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl")
	if err := os.WriteFile(p, b, mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
	old := time.Now().Add(-2 * time.Minute)
	os.Chtimes(p, old, old)
	return p
}

func fixMain(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Main(append([]string{"fix"}, args...), Env{Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), code
}

func backups(t *testing.T, p string) []string {
	m, _ := filepath.Glob(p + ".ccdag-*.bak")
	return m
}

// folderHolds lists the folder's files: nothing but the log (and its backup) may be left.
func folderHolds(t *testing.T, p string) []string {
	es, _ := os.ReadDir(filepath.Dir(p))
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestFixWrite(t *testing.T) {
	p := copyLog(t, "unmatched-tool-use.jsonl", 0o640)
	orig, _ := os.ReadFile(p)
	out, errs, code := fixMain("--write", p)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	now, _ := os.ReadFile(p)
	if bytes.Equal(now, orig) {
		t.Fatal("nothing written")
	}
	bs := backups(t, p)
	if len(bs) != 1 {
		t.Fatalf("backups %v", bs)
	}
	if b, _ := os.ReadFile(bs[0]); !bytes.Equal(b, orig) {
		t.Error("the backup differs from the original")
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if len(folderHolds(t, p)) != 2 {
		t.Errorf("folder holds %v", folderHolds(t, p))
	}
	// Check reports nothing of it now, and a second fix changes nothing.
	var cout, cerr bytes.Buffer
	if c := Main([]string{"check", "--fail-on", "warning", p}, Env{Stdout: &cout, Stderr: &cerr}); c != 0 {
		t.Errorf("check after fix: exit %d: %s", c, cout.String())
	}
	old := time.Now().Add(-2 * time.Minute)
	os.Chtimes(p, old, old)
	_, errs, code = fixMain("--write", p)
	if code != 0 || !strings.Contains(errs, "nothing to repair") {
		t.Errorf("second fix: exit %d: %s", code, errs)
	}
	if again, _ := os.ReadFile(p); !bytes.Equal(again, now) {
		t.Error("the second fix changed the file")
	}
}

// Input fix must refuse, each with a clear error and nothing written.
func TestFixRefuses(t *testing.T) {
	untouched := func(t *testing.T, p string, orig []byte) {
		t.Helper()
		if b, _ := os.ReadFile(p); !bytes.Equal(b, orig) {
			t.Error("the original changed")
		}
		if bs := backups(t, p); len(bs) > 0 {
			t.Errorf("backups left: %v", bs)
		}
		if fs := folderHolds(t, p); len(fs) != 1 {
			t.Errorf("folder holds %v", fs)
		}
	}
	t.Run("live", func(t *testing.T) {
		p := copyLog(t, "unmatched-tool-use.jsonl", 0o644)
		now := time.Now()
		os.Chtimes(p, now, now)
		orig, _ := os.ReadFile(p)
		_, errs, code := fixMain("--write", p)
		if code != 2 || !strings.Contains(errs, "live session") {
			t.Errorf("exit %d: %s", code, errs)
		}
		untouched(t, p, orig)
		if _, _, code := fixMain("--write", "--force", p); code != 0 {
			t.Errorf("--force: exit %d", code)
		}
	})
	t.Run("read-only file", func(t *testing.T) {
		p := copyLog(t, "unmatched-tool-use.jsonl", 0o444)
		orig, _ := os.ReadFile(p)
		_, errs, code := fixMain("--write", p)
		if code != 2 || !strings.Contains(errs, "read-only") {
			t.Errorf("exit %d: %s", code, errs)
		}
		untouched(t, p, orig)
	})
	t.Run("read-only folder", func(t *testing.T) {
		p := copyLog(t, "unmatched-tool-use.jsonl", 0o644)
		os.Chmod(filepath.Dir(p), 0o555)
		defer os.Chmod(filepath.Dir(p), 0o755)
		orig, _ := os.ReadFile(p)
		_, errs, code := fixMain("--write", p)
		if code != 2 || !strings.Contains(errs, "read-only") {
			t.Errorf("exit %d: %s", code, errs)
		}
		os.Chmod(filepath.Dir(p), 0o755)
		untouched(t, p, orig)
	})
	t.Run("not a session log", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "notes.md")
		os.WriteFile(p, []byte("# notes\n"), 0o644)
		_, errs, code := fixMain("--write", p)
		if code != 2 || !strings.Contains(errs, "not a session log") {
			t.Errorf("exit %d: %s", code, errs)
		}
	})
	t.Run("not-jsonl", func(t *testing.T) {
		p := copyLog(t, "not-jsonl.jsonl", 0o644)
		orig, _ := os.ReadFile(p)
		_, errs, code := fixMain("--write", p)
		if code != 2 || !strings.Contains(errs, "not JSON Lines") {
			t.Errorf("exit %d: %s", code, errs)
		}
		untouched(t, p, orig)
	})
	for _, c := range []struct {
		name string
		fsys fileSystem
		want string
	}{
		{"disk full", &faultyFS{failWrite: 2, err: syscall.ENOSPC}, "no space left"},
		{"disk full on the backup", &faultyFS{failWrite: 1, err: syscall.ENOSPC}, "no space left"},
		{"permission denied", &faultyFS{failCreate: 2, err: syscall.EACCES}, "permission denied"},
		{"rename refused", &faultyFS{failRename: true, err: syscall.EPERM}, "not permitted"},
		{"changed while fixing", &faultyFS{truncateOnCreate: 2}, "changed while it was being fixed"},
		// Windows, through the seam: the log is held open by another program (a sharing violation,
		// or access denied as MoveFileEx says over a file open without FILE_SHARE_DELETE).
		{"windows: held open (sharing violation)", &faultyFS{failRename: true, err: syscall.Errno(32)}, "has the file open"},
		{"windows: held open (access denied)", &faultyFS{failRename: true, err: syscall.Errno(5)}, "has the file open"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if strings.HasPrefix(c.name, "windows: ") {
				onWindows = true
				defer func() { onWindows = runtime.GOOS == "windows" }()
			}
			p := copyLog(t, "unmatched-tool-use.jsonl", 0o644)
			orig, _ := os.ReadFile(p)
			fixFS = c.fsys
			defer func() { fixFS = osFS{} }()
			if fs, ok := c.fsys.(*faultyFS); ok {
				fs.path = p
			}
			_, errs, code := fixMain("--write", p)
			if code != 2 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "nothing written") {
				t.Errorf("exit %d: %s", code, errs)
			}
			if c.name == "changed while fixing" {
				orig = orig[:len(orig)-1] // what the other writer cut
			}
			untouched(t, p, orig)
		})
	}
}

// faultyFS fails the n-th create or write, or the rename; or appends to the log (another writer)
// when the n-th file is created.
type faultyFS struct {
	osFS
	path           string
	creates        int
	failCreate     int
	failWrite      int
	failRename     bool
	appendOnCreate int
	appended       string
	// truncateOnCreate: the log loses its last byte when that file is created.
	truncateOnCreate int
	err              error
}

func (f *faultyFS) CreateExcl(p string, perm fs.FileMode, like *os.File) (io.WriteCloser, error) {
	f.creates++
	if f.creates == f.failCreate {
		return nil, &os.PathError{Op: "open", Path: p, Err: f.err}
	}
	if f.creates == f.appendOnCreate {
		fh, _ := os.OpenFile(f.path, os.O_APPEND|os.O_WRONLY, 0)
		fh.Write([]byte(f.appended))
		fh.Close()
	}
	if f.creates == f.truncateOnCreate {
		fi, _ := os.Stat(f.path)
		os.Truncate(f.path, fi.Size()-1)
	}
	w, err := f.osFS.CreateExcl(p, perm, like)
	if err != nil || f.creates != f.failWrite {
		return w, err
	}
	return failingWriter{w, f.err}, nil
}

func (f *faultyFS) Rename(from, to string) error {
	if f.failRename {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: f.err}
	}
	return f.osFS.Rename(from, to)
}

// failingWriter writes half, then fails as a full disk does.
type failingWriter struct {
	w   io.WriteCloser
	err error
}

func (f failingWriter) Write(b []byte) (int, error) {
	n, _ := f.w.Write(b[:len(b)/2])
	return n, f.err
}
func (f failingWriter) Close() error { return errors.Join(f.w.Close()) }

// What a writer appended between the read and the rename is carried over to the repaired log
// (before: refused, or lost when it came after the last look).
func TestFixCarriesOverWhatGrew(t *testing.T) {
	p := copyLog(t, "unmatched-tool-use.jsonl", 0o644)
	line := `{"type":"system","uuid":"late","content":"appended meanwhile"}` + "\n"
	fixFS = &faultyFS{path: p, appendOnCreate: 2, appended: line}
	defer func() { fixFS = osFS{} }()
	if _, errs, code := fixMain("--write", p); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(p)
	if !bytes.HasSuffix(got, []byte(line)) || bytes.Count(got, []byte("appended meanwhile")) != 1 {
		t.Errorf("the appended line was not carried over:\n%s", got)
	}
	if bs := backups(t, p); len(bs) != 1 {
		t.Errorf("backups %v", bs)
	}
}

// On linux errno 32 is EPIPE: only Windows' errors mean "held open".
func TestHeldOpenOnlyOnWindows(t *testing.T) {
	for _, c := range []struct {
		err     error
		windows bool
		want    bool
	}{
		{&os.LinkError{Op: "rename", Err: syscall.Errno(32)}, true, true},
		{&os.LinkError{Op: "rename", Err: syscall.Errno(33)}, true, true},
		{&os.LinkError{Op: "rename", Err: syscall.Errno(5)}, true, true},
		{&os.LinkError{Op: "rename", Err: syscall.Errno(32)}, false, false},
		{&os.LinkError{Op: "rename", Err: syscall.Errno(112)}, true, false}, // ERROR_DISK_FULL
		{errors.New("no errno"), true, false},
	} {
		if got := heldOpen(c.err, c.windows); got != c.want {
			t.Errorf("heldOpen(%v, windows %v) = %v", c.err, c.windows, got)
		}
	}
}

// TestFixDryRunShowsNoSecret (docs/spec.md §15): the dry run's diff masks every secret the scan
// finds on the lines it prints, as redact's dry run does — a re-parented record's text, a removed
// tool result, records split from a glued line, an inserted result answering a call whose id is
// a secret, a context line, the partial last line — and the titles name no secret; --write
// writes the repairs with every byte of the log they keep.
func TestFixDryRunShowsNoSecret(t *testing.T) {
	byRule := map[string]string{}
	for _, p := range secretstest.Plants(81) {
		byRule[p.Rule] = p.Secret
	}
	ghp2 := secretstest.Plants(82)[1].Secret
	plants := []secretstest.Planted{{Rule: "github-pat", Secret: byRule["github-pat"]}, {Rule: "github-pat", Secret: ghp2},
		{Rule: "slack-bot-token", Secret: byRule["slack-bot-token"]}, {Rule: "aws-access-token", Secret: byRule["aws-access-token"]},
		{Rule: "generic-api-key", Secret: byRule["generic-api-key"]}}
	rec := func(typ, uuid, parent, content string) string {
		return `{"sessionId":"0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e","type":"` + typ + `","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"role":"` + typ + `","content":` + content + `}}`
	}
	log := strings.Replace(rec("user", "u1", "", `"hi"`), `"parentUuid":""`, `"parentUuid":null`, 1) + "\n" +
		rec("user", "u2", "nowhere", `"orphan with GITHUB_TOKEN=`+byRule["github-pat"]+`"`) + "\n" +
		rec("assistant", "u3", "u2", `[{"type":"tool_use","id":"`+ghp2+`","name":"Bash","input":{"command":"ls"}}]`) + "\n" +
		rec("user", "u4", "u3", `[{"type":"tool_result","tool_use_id":"toolu_nothere","content":"SLACK=`+byRule["slack-bot-token"]+`"},{"type":"text","text":"more"}]`) + "\n" +
		rec("user", "u5", "u4", `"a"`) + rec("user", "u6", "u5", `"AWS=`+byRule["aws-access-token"]+`"`) + "\n" +
		rec("user", "u7", "u6", `"api_key=`+byRule["generic-api-key"]+`"`) + "\n"
	partial := rec("user", "u8", "u7", `"use GITHUB_TOKEN=`+byRule["github-pat"]+` and then go on"`)
	for _, tc := range []struct {
		name, text string
		args       []string
		want       []string // repairs the diff must show
	}{
		{"repairs", log, nil, []string{"orphan", "unmatched-tool-use", "unmatched-tool-result", "invalid-json"}},
		// Cut after the secret: a secret cut itself is no longer found by its rule (spec §15).
		{"partial last line", log + partial[:strings.Index(partial, " and then")+5], []string{"--code", "incomplete-last-line"}, []string{"incomplete-last-line"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl")
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errs, _ := fixMain(append(tc.args, p)...)
			for _, code := range tc.want {
				if !strings.Contains(errs, ": "+code+": ") {
					t.Errorf("no %s repair: the log no longer tests its diff\n%s", code, errs)
				}
			}
			if !strings.Contains(out, "[SECRET:") {
				t.Errorf("the diff shows no secret's place:\n%s", out)
			}
			if leak := secretstest.Leak(out+errs, plants); leak != "" {
				i := strings.Index(out+errs, leak)
				t.Errorf("the dry run shows %q: …%s…", leak, (out + errs)[max(0, i-60):min(len(out+errs), i+30)])
			}
			old := time.Now().Add(-2 * time.Minute)
			os.Chtimes(p, old, old)
			if _, errs, code := fixMain(append(tc.args, "--write", p)...); code == ExitUsage {
				t.Fatalf("--write: %s", errs)
			}
			now, _ := os.ReadFile(p)
			for _, s := range []string{byRule["github-pat"], ghp2, byRule["aws-access-token"], byRule["generic-api-key"]} {
				if !bytes.Contains(now, []byte(s)) {
					t.Errorf("--write lost a secret the log keeps (%.4s…): the edits were masked", s)
				}
			}
		})
	}
}
