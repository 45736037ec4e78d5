package testcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a test was ended instead of ending it.
type recorder struct {
	testing.TB
	ended string // "skip: …" or "fatal: …"
}

type stop struct{}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.ended = "skip: " + fmt.Sprintf(format, args...)
	panic(stop{})
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.ended = "fatal: " + fmt.Sprintf(format, args...)
	panic(stop{})
}

func run(t *testing.T, fn func(tb testing.TB)) string {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil && v != (stop{}) {
				panic(v)
			}
		}()
		fn(r)
	}()
	return r.ended
}

func TestAbsentCorpusSkipsLocallyAndFailsUnderCI(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "no-corpus")
	t.Setenv(Env, gone)
	for _, ci := range []string{"", "false", "0", "true", "1"} {
		t.Setenv("CI", ci)
		want := "skip: "
		if ci == "true" || ci == "1" {
			want = "fatal: "
		}
		for name, fn := range map[string]func(tb testing.TB){
			"Files": func(tb testing.TB) { Files(tb, "the true findings") },
			"Path":  func(tb testing.TB) { Path(tb, "a/b.jsonl", "the true findings") },
		} {
			got := run(t, fn)
			if !strings.HasPrefix(got, want) || !strings.Contains(got, gone) || !strings.Contains(got, "the true findings") {
				t.Errorf("CI=%q %s: ended %q, want %q naming %s and what it checks", ci, name, got, want, gone)
			}
		}
	}
}

func TestPresentCorpus(t *testing.T) {
	t.Setenv("CI", "true")
	dir := t.TempDir()
	for _, p := range []string{"b/s.jsonl", "a.jsonl", "notes.txt"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(Env, dir)
	if got, want := Files(t, "x"), []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b/s.jsonl")}; !slices.Equal(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
	if got := Path(t, "b/s.jsonl", "x"); got != filepath.Join(dir, "b", "s.jsonl") {
		t.Errorf("Path = %q", got)
	}
	// an empty folder is as good as none
	t.Setenv(Env, filepath.Join(dir, "b", "..", "empty"))
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	if got := run(t, func(tb testing.TB) { Files(tb, "x") }); !strings.Contains(got, "holds no .jsonl") {
		t.Errorf("empty folder: ended %q", got)
	}
}

func TestDefaultRootIsBesideTheClone(t *testing.T) {
	t.Setenv(Env, "")
	wd, _ := os.Getwd() // internal/testcorpus
	if got, want := Root(), filepath.Join(wd, "..", "..", "..", "shared", "corpus"); got != filepath.Clean(want) {
		t.Errorf("Root() = %q, want %q", got, want)
	}
}
