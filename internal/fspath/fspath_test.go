package fspath

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-json"
	"go.lsp.dev/uri"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

// Windows paths and the URIs VS Code sends for them (vscode-uri's URI.file(p).toString()), and
// back: the server answers in the form the client wrote.
func TestWindowsURIs(t *testing.T) {
	for _, c := range []struct{ path, uri string }{
		{`C:\Users\eduar\.claude\projects\C--Users-eduar--claude\3f1c.jsonl`,
			"file:///c%3A/Users/eduar/.claude/projects/C--Users-eduar--claude/3f1c.jsonl"},
		{`X:\03_ACG\Custom_Addons`, "file:///x%3A/03_ACG/Custom_Addons"},
		{`C:\Users\Ana María\my notes#1.jsonl`, "file:///c%3A/Users/Ana%20Mar%C3%ADa/my%20notes%231.jsonl"},
		{`C:\`, "file:///c%3A/"},
		{`\\fileserver\share\logs\a.jsonl`, "file://fileserver/share/logs/a.jsonl"},
	} {
		if got := Windows.URI(c.path); got != c.uri {
			t.Errorf("URI(%s) = %s, want %s", c.path, got, c.uri)
		}
		if got, ok := Windows.Path(c.uri); !ok || got != c.path {
			t.Errorf("Path(%s) = %q %v, want %s", c.uri, got, ok, c.path)
		}
		if got, _ := Windows.Path(c.uri); Windows.URI(got) != c.uri {
			t.Errorf("round trip of %s gave %s", c.uri, Windows.URI(got))
		}
	}
	// Other clients' spellings of one file: one path, the drive upper-case as Windows names it.
	want := `C:\Users\x\a.jsonl`
	for _, u := range []string{
		"file:///c%3A/Users/x/a.jsonl", "file:///C:/Users/x/a.jsonl", "file:///c:/Users/x/a.jsonl",
		"FILE:///C%3a/Users/x/a.jsonl", "file://localhost/C:/Users/x/a.jsonl", "file://C:/Users/x/a.jsonl",
		"file:///C:/Users/x/./sub/../a.jsonl", "file:///C:/Users//x/a.jsonl",
	} {
		if got, ok := Windows.Path(u); !ok || got != want {
			t.Errorf("Path(%s) = %q %v, want %s", u, got, ok, want)
		}
	}
	for _, u := range []string{"", "untitled:Untitled-1", "https://x/c:/a", "file:///Users/x/a.jsonl", "file:", "file:c:/x", "%zz"} {
		if got, ok := Windows.Path(u); ok {
			t.Errorf("Path(%q) = %q, want no path", u, got)
		}
	}
}

// On Unix the URI is what go.lsp.dev/uri.File writes (clients on linux and macOS agree with it).
func TestUnixURIs(t *testing.T) {
	for _, p := range []string{"/home/a/.claude/projects/-home-a/x.jsonl", "/Users/a b/ü#1?.jsonl", "/", "/a:b/c@d+e"} {
		got := Unix.URI(p)
		if want := string(uri.File(p)); got != want {
			t.Errorf("URI(%s) = %s, want %s", p, got, want)
		}
		if back, ok := Unix.Path(got); !ok || back != p {
			t.Errorf("Path(%s) = %q %v, want %s", got, back, ok, p)
		}
	}
	for _, u := range []string{"file://host/x", "file:///c%3A/x/../../y"} {
		got, ok := Unix.Path(u)
		if u == "file://host/x" && ok {
			t.Errorf("Path(%s) = %s: a remote host is not a local path", u, got)
		}
		if u != "file://host/x" && got != "/y" {
			t.Errorf("Path(%s) = %s, want /y", u, got)
		}
	}
}

func TestEqualAndKey(t *testing.T) {
	a, b := `C:\Users\Eduar\.Claude\projects\X.JSONL`, `c:/users/eduar/.claude/projects/x.jsonl`
	if !Windows.Equal(a, b) || Windows.Key(a) != Windows.Key(b) {
		t.Error("Windows names differing in case and separator are one file")
	}
	if Unix.Equal(a, b) || Unix.Key("/a/X") == Unix.Key("/a/x") {
		t.Error("Unix names differing in case are two files")
	}
	if Windows.Equal(`C:\a\b`, `C:\a\c`) {
		t.Error("two names are one")
	}
}

func TestConfigDir(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		s    Style
		env  func(string) string
		want string
	}{
		{Windows, env("USERPROFILE", `C:\Users\eduar`, "HOME", "/ignored"), `C:\Users\eduar\.claude`},
		{Windows, env("USERPROFILE", `C:\Users\eduar\`), `C:\Users\eduar\.claude`},
		{Windows, env("USERPROFILE", `C:\Users\eduar`, "CLAUDE_CONFIG_DIR", `D:\cc`), `D:\cc`},
		{Windows, env("HOME", "/home/a"), ""},
		{Unix, env("HOME", "/home/a", "USERPROFILE", `C:\x`), "/home/a/.claude"},
		{Unix, env("HOME", "/"), "/.claude"},
		{Unix, env("HOME", "/home/a", "CLAUDE_CONFIG_DIR", "/cfg"), "/cfg"},
	} {
		if got := c.s.ConfigDir(c.env); got != c.want {
			t.Errorf("ConfigDir = %q, want %q", got, c.want)
		}
	}
}

func TestProjectFolder(t *testing.T) {
	for cwd, want := range map[string]string{
		`C:\Users\eduar\.claude`:                 "C--Users-eduar--claude",
		`X:\03_ACG\Custom_Addons`:                "X--03-ACG-Custom-Addons",
		"/Users/liuhanwen/Desktop/project/web-x": "-Users-liuhanwen-Desktop-project-web-x",
		"/home/a/café 😀":                         "-home-a-caf----",
	} {
		if got := ProjectFolder(cwd); got != want {
			t.Errorf("ProjectFolder(%q) = %q, want %q", cwd, got, want)
		}
	}
}

// The real logs: each one kept under projects/<folder>/ was written in a cwd whose ProjectFolder is
// that folder (one of them on Windows), except where the owner redacted the paths (/path/to/...).
func TestProjectFolderOfRealLogs(t *testing.T) {
	var checked, windows int
	for _, f := range testcorpus.Files(t, "the folder names of real logs, on Windows and macOS") {
		parts := strings.Split(filepath.ToSlash(f), "/")
		folder := ""
		for i := len(parts) - 2; i > 0; i-- {
			if parts[i-1] == "projects" {
				folder = parts[i]
				break
			}
		}
		cwd := firstCwd(t, f)
		if folder == "" || cwd == "" || strings.HasPrefix(cwd, "/path/to/") {
			continue
		}
		checked++
		if strings.Contains(cwd, `:\`) {
			windows++
		}
		if got := ProjectFolder(cwd); got != folder {
			t.Errorf("%s: cwd %q gives %q, the log is under %q", f, cwd, got, folder)
		}
	}
	if checked < 2 || windows == 0 {
		t.Errorf("%d logs checked, %d written on Windows: the corpus has more", checked, windows)
	}
}

func firstCwd(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct{ Cwd string }
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Cwd != "" {
			return r.Cwd
		}
	}
	return ""
}
