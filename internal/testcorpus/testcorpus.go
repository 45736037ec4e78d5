// Package testcorpus finds the real Claude Code logs the tests check ccdag against. They are not in
// the repository: they live in ../shared/corpus beside the clone (or where $CCDAG_CORPUS says). A
// test that needs them and does not find them skips, naming the missing path and what it would
// have checked; under CI (CI set, and not "false" or "0") it fails instead, because CI always has
// ../shared beside the clone and a silent skip there would hide the corpus checks for good.
package testcorpus

import (
	"bytes"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Env names the variable that points the tests at another copy of the corpus.
const Env = "CCDAG_CORPUS"

// Root returns the corpus folder, absolute: $CCDAG_CORPUS, else ../shared/corpus beside the module
// root (found from the working directory, which `go test` sets to the package's folder). It does
// not check that the folder exists: fuzz targets seed from it only when it is there.
func Root() string {
	if p := os.Getenv(Env); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return abs
	}
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "corpus")
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "corpus")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, "..", "shared", "corpus")
		}
	}
}

// Files returns every .jsonl log under the corpus (absolute paths, sorted), or ends t as missing does
// when there is none. checks says, for the message, what the test would have checked.
func Files(t testing.TB, checks string) []string {
	t.Helper()
	root := Root()
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		what := root
		if _, err := os.Stat(root); err == nil {
			what += " (the folder holds no .jsonl log)"
		}
		missing(t, what, checks)
	}
	slices.Sort(files)
	return files
}

// Lines yields each line of every corpus log (Files) with the log's path; a log that cannot be
// read ends t.
func Lines(t testing.TB, checks string) iter.Seq2[string, []byte] {
	t.Helper()
	files := Files(t, checks)
	return func(yield func(string, []byte) bool) {
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range bytes.Split(data, []byte("\n")) {
				if !yield(p, l) {
					return
				}
			}
		}
	}
}

// Path returns the corpus entry rel (slash-separated, relative to the corpus folder) as an
// absolute path, or ends t as missing does when it does not exist.
func Path(t testing.TB, rel, checks string) string {
	t.Helper()
	p := filepath.Join(Root(), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(t, p, checks)
	}
	return p
}

// missing ends t because path is absent: a skip that names it and what the test checks, or, under
// CI, a failure.
func missing(t testing.TB, path, checks string) {
	t.Helper()
	const where = "the corpus of real logs is not part of the repository: put ../shared beside the clone or set " + Env
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatalf("FAIL (CI=%s, and CI always has ../shared): missing %s; this test checks %s (%s)", ci, path, checks, where)
	}
	t.Skipf("SKIP: missing %s; this test would have checked %s (%s)", path, checks, where)
}
