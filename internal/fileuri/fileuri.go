// Package fileuri converts between paths and file: URIs, for every package that names a log to
// a client (graph nodes, transcript links, the server's locations). It sits under everything. The
// forms per system (Windows' file:///c%3A/...) are internal/fspath's, tested there with Windows
// inputs; this is the running system's.
package fileuri

import (
	"path/filepath"

	"github.com/ccdag/ccdag/internal/fspath"
)

// FromPath returns the file:// URI of a path, as go.lsp.dev/uri.File writes it (on Windows: as VS
// Code writes it, file:///c%3A/Users/...).
func FromPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return fspath.Host.URI(path)
}

// ToPath returns the path of a file: URI (no host, or localhost; on Windows also \\host\share);
// ok is false for anything else.
func ToPath(u string) (string, bool) { return fspath.Host.Path(u) }
