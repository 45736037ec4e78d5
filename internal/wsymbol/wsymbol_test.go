package wsymbol

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// The index through the server (workspace/symbol): internal/lsp's TestWorkspaceSymbols.

func TestWorkspaceRoots(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	os.MkdirAll(filepath.Join(projects, "p"), 0o755)
	for _, c := range []struct{ params, want string }{
		{`{"rootUri":"` + fileuri.FromPath(home) + `"}`, projects},
		{`{"rootPath":"` + filepath.Join(home, ".claude") + `"}`, projects},
		{`{"workspaceFolders":[{"uri":"` + fileuri.FromPath(filepath.Join(projects, "p")) + `"}]}`, filepath.Join(projects, "p")},
		{`{"workspaceFolders":[{"uri":"` + fileuri.FromPath(t.TempDir()) + `"}]}`, ""},
		{`{"rootUri":null}`, ""},
	} {
		if got := strings.Join(Roots([]byte(c.params)), ","); got != c.want {
			t.Errorf("%s: %q, want %q", c.params, got, c.want)
		}
	}
}

// symbolLines only leaves out lines that make no symbol: indexing every log of the corpus, the
// repository's test logs and a generated session with it gives the symbols indexing every line gives.
func TestSymbolLinesDropNoSymbol(t *testing.T) {
	var paths []string
	paths = append(paths, testcorpus.Files(t, "symbolLines against indexing every line")...)
	filepath.WalkDir("../../testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			paths = append(paths, p)
		}
		return nil
	})
	texts := map[string][]byte{"generated": gen.Session(4<<20, 7)}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			texts[p] = b
		}
	}
	total := 0
	for name, data := range texts {
		var filtered, all File
		filtered.add(data)
		all.addLines(data, func(b []byte) []byte { return b })
		if !slices.Equal(filtered.syms, all.syms) || string(filtered.names) != string(all.names) {
			t.Errorf("%s: %d symbols with symbolLines, %d from every line", name, len(filtered.syms), len(all.syms))
		}
		total += len(all.syms)
	}
	if total < 1000 {
		t.Fatalf("only %d symbols in %d logs: the test compares too little", total, len(texts))
	}
	t.Logf("%d logs, %d symbols", len(texts), total)
}
