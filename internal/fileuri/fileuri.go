// Package fileuri converts between paths and file: URIs, for every package that names a log to
// a client (graph nodes, transcript links, the server's locations). It sits under everything.
package fileuri

import (
	"net/url"
	"path/filepath"
	"strings"
)

// FromPath returns the file:// URI of a path, as go.lsp.dev/uri.File writes it.
func FromPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// ToPath returns the path of a file: URI (no host, or localhost); ok is false for anything else.
func ToPath(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil || !strings.EqualFold(p.Scheme, "file") || p.Path == "" || p.Host != "" && p.Host != "localhost" {
		return "", false
	}
	return filepath.Clean(filepath.FromSlash(p.Path)), true
}
