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

// Every test finds the corpus through this package (Go) or scripts/testcorpus.sh and $CCDAG_CORPUS
// (editor scripts and node tests), so that none of them skips silently or passes under CI without
// it. A path written out by hand is reported here.
func TestNoTestNamesTheCorpusByHand(t *testing.T) {
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..")
	handMade := []string{"shared/corpus", `"shared", "corpus"`, `'shared', 'corpus'`}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git", "dist", "out", "test-artifacts":
				return filepath.SkipDir
			}
			if rel == filepath.Join("internal", "testcorpus") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(p)
		if !slices.Contains([]string{".go", ".sh", ".js", ".mjs", ".ts", ".lua", ".el"}, ext) || rel == filepath.Join("scripts", "testcorpus.sh") {
			return nil
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		viaEnv := ext != ".go" && strings.Contains(string(text), Env)
		for i, line := range strings.Split(string(text), "\n") {
			code := strings.TrimSpace(line)
			if strings.HasPrefix(code, "//") || strings.HasPrefix(code, "#") || strings.HasPrefix(code, "--") || strings.HasPrefix(code, ";") || strings.HasPrefix(code, "*") {
				continue
			}
			for _, h := range handMade {
				if strings.Contains(code, h) && !viaEnv {
					t.Errorf("%s:%d names the corpus by hand (%s): use internal/testcorpus (Go) or scripts/testcorpus.sh / $%s", rel, i+1, h, Env)
				}
			}
		}
		return nil
	})
}
