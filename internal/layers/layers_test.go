package layers

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ccdag/ccdag/internal/"

// floors are ARCHITECTURE.md's rows, lowest first. A new package gets a floor here.
var floors = [][]string{
	{"jsonscan", "position", "fspath", "fileuri", "version", "parallel", "pathlabel", "textsafe", "folds"},
	{"jsonl", "secrets", "cache"},
	{"session", "prices"},
	{"layout"},
	{"classify", "tokens", "check"},
	{"graph", "resume", "repair", "mdsafe", "otelmap"},
	{"transcript", "describe", "graphhtml", "report", "history", "search", "wsymbol", "catalog", "archive", "retention", "otelexport"},
	{"cli", "lsp", "jsonrpc"},
}

// within are the imports ARCHITECTURE.md allows inside a floor.
var within = map[string]bool{
	"wsymbol→history":   true,
	"wsymbol→describe":  true,
	"catalog→history":   true,
	"catalog→search":    true,
	"catalog→retention": true,
	"fileuri→fspath":    true,
	"cli→lsp":           true,
	"lsp→jsonrpc":       true,
}

// testOnly are packages for tests and benchmarks: no package of a floor imports them.
var testOnly = map[string]bool{"gen": true, "hostile": true, "testcorpus": true, "golden": true, "testutil": true, "layers": true,
	"graphhtml/cmd/render-sample": true, "secrets/secretstest": true, "catalog/catalogtest": true, "resume/oracle": true}

func TestNoBackArrow(t *testing.T) {
	imports := internalImports(t)
	if len(imports) < 20 {
		t.Fatalf("only %d packages found: the test reads the wrong folder", len(imports))
	}
	for _, v := range violations(imports) {
		t.Error(v)
	}
}

// A back arrow, an import within a floor that is not allowed, a package on no floor and a floor
// package importing a test helper are each found.
func TestViolationsFound(t *testing.T) {
	got := violations(map[string][]string{
		"session":  {"jsonl", "graph"},
		"graph":    {"check", "mdsafe"},
		"mystery":  nil,
		"describe": {"gen"},
	})
	want := []string{
		"describe imports gen, a test helper",
		"graph imports mdsafe, on its own floor (5) and not allowed within it (ARCHITECTURE.md)",
		"mystery is on no floor: add it to ARCHITECTURE.md and to floors in internal/layers",
		"session (floor 2) imports graph (floor 5): a back arrow",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func violations(imports map[string][]string) []string {
	floor := map[string]int{}
	for i, f := range floors {
		for _, p := range f {
			floor[p] = i
		}
	}
	var out []string
	for pkg, deps := range imports {
		if testOnly[pkg] {
			continue
		}
		fp, ok := floor[pkg]
		if !ok {
			out = append(out, pkg+" is on no floor: add it to ARCHITECTURE.md and to floors in internal/layers")
			continue
		}
		for _, d := range deps {
			fd, known := floor[d]
			switch {
			case testOnly[d]:
				out = append(out, pkg+" imports "+d+", a test helper")
			case !known:
				// reported as a package on no floor
			case fd > fp:
				out = append(out, pkg+" (floor "+strconv.Itoa(fp)+") imports "+d+" (floor "+strconv.Itoa(fd)+"): a back arrow")
			case fd == fp && !within[pkg+"→"+d]:
				out = append(out, pkg+" imports "+d+", on its own floor ("+strconv.Itoa(fp)+") and not allowed within it (ARCHITECTURE.md)")
			}
		}
	}
	sort.Strings(out)
	return out
}

// internalImports reads, for every package under internal/, the internal packages its non-test
// files import (every file, whatever its build tags).
func internalImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok && dep != pkg {
				out[pkg] = append(out[pkg], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoGRPC: every ccdag command, a warm `sessions` included, runs the package inits of all it
// links; gRPC's (through OTLP's collector package, which holds the gRPC service) cost 0.5–0.7 ms
// of a 3.6 ms start (docs/PERFORMANCE.md). otelexport posts OTLP itself (ARCHITECTURE.md).
func TestNoGRPC(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/ccdag/ccdag/cmd/ccdag").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("only %d packages listed", len(deps))
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "google.golang.org/grpc") || strings.HasPrefix(p, "go.opentelemetry.io/proto/otlp/collector/") {
			t.Errorf("ccdag links %s", p)
		}
	}
}
