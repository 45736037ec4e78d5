// Package fspath holds what differs between the systems Claude Code runs on, about paths: file:
// URIs (as VS Code writes them on Windows: file:///c%3A/Users/...), names compared without case,
// the project folder a cwd is logged under, and the config folder. Everything here is a pure
// function of a Style and its inputs, so tests on linux drive it with Windows paths (SPEC §9: the Go
// tests cannot run on Windows); Host is the style of the running system.
package fspath

import (
	"net/url"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// Style is the path syntax of one kind of system.
type Style uint8

const (
	Unix    Style = iota // / separates, names compare byte for byte
	Windows              // \ (or /) separates, drive letters and \\host\share, names compare without case
)

// Host is the style of the system ccdag runs on.
var Host = func() Style {
	if runtime.GOOS == "windows" {
		return Windows
	}
	return Unix
}()

// URI returns the file: URI of an absolute path. On Windows it is the form VS Code writes and
// expects back: drive letter lower-case, its colon escaped (C:\Users\x → file:///c%3A/Users/x), a
// UNC path's host as the authority (\\srv\share\x → file://srv/share/x). Elsewhere it is what
// go.lsp.dev/uri.File writes.
func (s Style) URI(abs string) string {
	if s != Windows {
		return (&url.URL{Scheme: "file", Path: abs}).String()
	}
	p := strings.ReplaceAll(abs, `\`, "/")
	if rest, ok := strings.CutPrefix(p, "//"); ok { // UNC: \\host\share\...
		host, tail, _ := strings.Cut(rest, "/")
		return (&url.URL{Scheme: "file", Host: host, Path: "/" + tail}).String()
	}
	if drive(p) {
		// url.URL would keep the colon: it is escaped by hand, as VS Code does.
		return "file:///" + strings.ToLower(p[:1]) + "%3A" + (&url.URL{Path: p[2:]}).EscapedPath()
	}
	return (&url.URL{Scheme: "file", Path: "/" + strings.TrimPrefix(p, "/")}).String()
}

// Path returns the path a file: URI names, cleaned, and whether it is one. On Windows it accepts
// the forms editors send (file:///c%3A/x, file:///C:/x, file://srv/share/x) and returns the drive
// letter upper-case, as Windows itself names it (C:\x), so a path from a client and the same path
// from the disk are one key.
func (s Style) Path(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Opaque != "" {
		return "", false
	}
	local := u.Host == "" || strings.EqualFold(u.Host, "localhost")
	if s != Windows {
		if !local || u.Path == "" {
			return "", false
		}
		return filepath.Clean(u.Path), true
	}
	p := u.Path
	if !local {
		if drive(u.Host) && u.Port() == "" { // file://C:/x, a malformed but common spelling
			p = u.Host + p
		} else {
			p = path.Clean("/" + p)
			return `\\` + u.Host + strings.ReplaceAll(p, "/", `\`), true
		}
	}
	p = strings.TrimPrefix(p, "/")
	if !drive(p) {
		return "", false // no drive: not a Windows path
	}
	rest := path.Clean("/" + p[2:])
	return strings.ToUpper(p[:1]) + ":" + strings.ReplaceAll(rest, "/", `\`), true
}

// drive reports whether p starts with a drive letter and its colon (C:, or C:/...).
func drive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z') &&
		(len(p) == 2 || p[2] == '/' || p[2] == '\\')
}

// Equal reports whether two cleaned paths name the same file: byte for byte on Unix, without case
// on Windows (NTFS names compare ignoring case; \ and / are one separator).
func (s Style) Equal(a, b string) bool {
	if s != Windows {
		return a == b
	}
	return strings.EqualFold(strings.ReplaceAll(a, "/", `\`), strings.ReplaceAll(b, "/", `\`))
}

// Key returns a map key for a path under which Equal paths meet.
func (s Style) Key(p string) string {
	if s != Windows {
		return p
	}
	return strings.ToLower(strings.ReplaceAll(p, "/", `\`))
}

// ProjectFolder returns the name of the folder under projects/ where Claude Code keeps the logs of
// sessions run in cwd: every character that is not an ASCII letter or digit becomes '-'
// (C:\Users\eduar\.claude → C--Users-eduar--claude, /Users/a/my_app → -Users-a-my-app). Claude
// Code replaces UTF-16 code units, so a character beyond U+FFFF becomes two.
func ProjectFolder(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// ConfigDir returns Claude Code's config folder: $CLAUDE_CONFIG_DIR when set, else .claude in the
// home folder ($USERPROFILE on Windows, $HOME elsewhere). getenv is os.Getenv in use; "" when
// there is no home folder either.
func (s Style) ConfigDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home := getenv("HOME")
	sep := "/"
	if s == Windows {
		home, sep = getenv("USERPROFILE"), `\`
	}
	if home == "" {
		return ""
	}
	return strings.TrimRight(home, sep) + sep + ".claude"
}
