package pathlabel

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShort(t *testing.T) {
	cwd := "/Users/schrockn/.erk/repos/erk/worktrees/erk-slot-03"
	for _, c := range []struct {
		p, cwd string
		max    int
		want   string
	}{
		{cwd + "/src/erk/core/metadata/roadmap.py", cwd, 80, "src/erk/core/metadata/roadmap.py"},
		{cwd + "/src/erk/core/metadata/roadmap.py", cwd, 26, "src/…/metadata/roadmap.py"},
		{cwd + "/src/erk/core/metadata/roadmap.py", cwd, 20, "src/…/roadmap.py"},
		{cwd, cwd, 40, "."},
		{cwd + "-other/a.py", cwd, 80, "~/.erk/repos/erk/worktrees/erk-slot-03-other/a.py"}, // a sibling, not under it
		{"/Users/schrockn/notes/todo.md", cwd, 80, "~/notes/todo.md"},
		{"/etc/hosts", cwd, 80, "/etc/hosts"},
		{"/opt/very/long/path/to/some/deeply/nested/file.txt", "", 30, "/opt/…/deeply/nested/file.txt"},
		{`C:\Users\me\proj\src\app\main.ts`, `C:\Users\me\proj`, 80, `src\app\main.ts`},
		{`C:\Users\me\other\x.ts`, `C:\Users\me\proj`, 80, `~\other\x.ts`},
		{"src/a_really_long_file_name_that_never_ends.py", "", 24, "…/a_really_long_…ends.py"},
		{"a_really_long_file_name_that_never_ends.py", "", 20, "a_really_long…nds.py"},
		{"relative/path.go", "/home/x", 80, "relative/path.go"},
	} {
		got := Short(c.p, c.cwd, "", c.max)
		if got != c.want {
			t.Errorf("Short(%q, %q, %d) = %q, want %q", c.p, c.cwd, c.max, got, c.want)
		}
		if utf8.RuneCountInString(got) > c.max {
			t.Errorf("%q is longer than %d", got, c.max)
		}
	}
}

// TestCutKeepsTheName: whatever the width, a cut path fits and ends with the file name (or its
// extension when the name alone is too long).
func TestCutKeepsTheName(t *testing.T) {
	p := "/home/dev/projects/monorepo/packages/frontend/src/components/checkout/CouponField.tsx"
	for w := 8; w <= len(p)+1; w++ {
		got := Cut(p, w)
		if utf8.RuneCountInString(got) > w {
			t.Errorf("width %d: %q", w, got)
		}
		if !strings.HasSuffix(got, ".tsx") {
			t.Errorf("width %d: %q lost the extension", w, got)
		}
		if w >= 20 && !strings.HasSuffix(got, "/CouponField.tsx") {
			t.Errorf("width %d: %q lost the file name", w, got)
		}
	}
}

func TestHomeOf(t *testing.T) {
	for cwd, want := range map[string]string{"/Users/a/x": "/Users/a", "/home/b": "/home/b", "/root/y": "/root", `C:\Users\c\p`: `C:\Users\c`, "/srv/x": "", "": ""} {
		if got := HomeOf(cwd); got != want {
			t.Errorf("HomeOf(%q) = %q, want %q", cwd, got, want)
		}
	}
}
