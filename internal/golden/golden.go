// Package golden compares test output with golden files (tests only): `go test ./internal/x -update`
// rewrites them.
package golden

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Update is the -update flag of every test binary that imports the package.
var Update = flag.Bool("update", false, "rewrite golden files")

// Check compares got with the file at path, or writes it there under -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the output (-update rewrites it):\n%s", path, FirstDiff(string(want), string(got)))
	}
}

// FirstDiff names the first line where two texts differ ("" when they are equal).
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n want " + w + "\n got  " + g
		}
	}
	return ""
}
