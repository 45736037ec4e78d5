// Package pathlabel writes a file path the way a label should keep it (docs/spec.md §10): relative
// to the session's working directory when under it, else with ~ for the home folder, and a long one
// cut in the middle so the file name stays (src/…/metadata/roadmap.py). Inlay hints, graph labels,
// symbols, outline and lenses all use it. Paths are text from a log: nothing here touches the disk.
package pathlabel

import (
	"strings"
	"unicode/utf8"
)

// Short is p as a label of at most width characters (width < 8: no cut). cwd is the session's working
// directory ("" unknown); home the home folder ("" to guess it from cwd, see HomeOf).
func Short(p, cwd, home string, width int) string {
	if p == "" {
		return ""
	}
	if home == "" {
		home = HomeOf(cwd)
	}
	sep := separator(p)
	switch {
	case cwd != "" && p == cwd:
		p = "."
	case cwd != "" && under(p, cwd, sep):
		p = strings.TrimLeft(p[len(cwd):], "/\\")
	case home != "" && (p == home || under(p, home, sep)):
		p = "~" + p[len(home):]
	}
	return Cut(p, width)
}

// under reports whether p lies inside folder dir (a prefix ending at a separator).
func under(p, dir, sep string) bool {
	dir = strings.TrimRight(dir, "/\\")
	if dir == "" || len(p) <= len(dir) || !strings.HasPrefix(p, dir) {
		return false
	}
	c := p[len(dir)]
	return c == '/' || sep == `\` && c == '\\'
}

// separator is a path's separator: \ for a Windows path (a drive letter, or backslashes and no
// slash), / otherwise.
func separator(p string) string {
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.Contains(p, `\`) && !strings.Contains(p, "/") {
		return `\`
	}
	return "/"
}

// HomeOf guesses the home folder from a working directory: /Users/NAME, /home/NAME, /root or
// C:\Users\NAME at its start; "" when it is none of these.
func HomeOf(cwd string) string {
	sep := separator(cwd)
	parts := strings.Split(cwd, sep)
	switch {
	case len(parts) >= 3 && parts[0] == "" && (parts[1] == "Users" || parts[1] == "home") && parts[2] != "":
		return strings.Join(parts[:3], sep)
	case len(parts) >= 2 && parts[0] == "" && parts[1] == "root":
		return "/root"
	case len(parts) >= 3 && len(parts[0]) == 2 && parts[0][1] == ':' && strings.EqualFold(parts[1], "Users") && parts[2] != "":
		return strings.Join(parts[:3], sep)
	}
	return ""
}

// Cut shortens p to at most width characters by taking whole folders out of its middle
// ("src/…/metadata/roadmap.py"): the first folder and as many of the last ones as fit stay, the
// file name always; a file name longer than width is itself cut in its middle, its extension kept.
func Cut(p string, width int) string {
	if width < 8 || utf8.RuneCountInString(p) <= width {
		return p
	}
	sep := separator(p)
	parts := strings.Split(p, sep)
	name := parts[len(parts)-1]
	if len(parts) == 1 || utf8.RuneCountInString(name)+2 > width {
		return cutName(name, width, len(parts) > 1, sep)
	}
	head := parts[0] // "" for an absolute path
	if head == "" && len(parts) > 2 {
		head = sep + parts[1]
		parts = parts[1:]
	}
	// Keep the tail's folders from the end while head/…/tail fits; then without the head.
	tail := name
	n := utf8.RuneCountInString
	for i := len(parts) - 2; i >= 1; i-- {
		t := parts[i] + sep + tail
		if n(head)+n(sep+"…"+sep)+n(t) > width {
			break
		}
		tail = t
	}
	if s := head + sep + "…" + sep + tail; n(s) <= width && head != "" {
		return s
	}
	return "…" + sep + tail
}

// cutName cuts a file name in its middle to fit width (with "…/" before it when it had folders),
// keeping its start and its extension.
func cutName(name string, width int, folders bool, sep string) string {
	prefix := ""
	if folders {
		prefix = "…" + sep
		width -= 2
	}
	r := []rune(name)
	if len(r) <= width {
		return prefix + name
	}
	ext := 0
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= 8 {
		ext = utf8.RuneCountInString(name[i:])
	}
	keepEnd := max(ext, (width-1)/3)
	keepStart := width - 1 - keepEnd
	if keepStart < 1 {
		keepStart, keepEnd = width-1, 0
	}
	return prefix + string(r[:keepStart]) + "…" + string(r[len(r)-keepEnd:])
}
