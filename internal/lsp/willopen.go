package lsp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/history"
)

// ccdag/willOpen (docs/spec.md §10, docs/lsp.md): a client about to open a log says so before its
// editor has the text. VS Code hands a 4 MB document to its extension host seconds after the tab
// appears (the text goes from the server to the page and back); the server needs no editor's
// copy to find the log's problems, so it reads the file from disk at once and publishes its
// diagnostics, which the editor shows when the document appears. The document is provisional
// until didOpen: with the same bytes that didOpen costs a comparison (no parse, no second
// publication); with other bytes the session takes them as an edit, as a reopen does.

const notifyWillOpen = "ccdag/willOpen"

type willOpenParams struct {
	URI string `json:"uri"`
}

// willOpenGrace is how long a provisional document waits for its didOpen (a loaded machine took
// 11 s); then it is closed as if the client had closed it.
const willOpenGrace = 60 * time.Second

// willOpenRoots are the folders ccdag/willOpen reads under: the workspace's folders (what the user
// opened) and Claude Code's projects folder (what the session browser lists without one).
func willOpenRoots(raw rawParams) []string {
	var p struct {
		RootURI          string `json:"rootUri"`
		WorkspaceFolders []struct {
			URI string `json:"uri"`
		} `json:"workspaceFolders"`
	}
	if raw != nil && unmarshal(raw, &p) != nil {
		p.RootURI, p.WorkspaceFolders = "", nil
	}
	uris := []string{p.RootURI}
	for _, f := range p.WorkspaceFolders {
		uris = append(uris, f.URI)
	}
	var dirs []string
	for _, u := range uris {
		if d, ok := fileuri.ToPath(u); ok {
			dirs = append(dirs, d)
		}
	}
	if d, err := history.DefaultDir(); err == nil {
		dirs = append(dirs, d)
	}
	var roots []string
	for _, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			roots = append(roots, real)
		}
	}
	return roots
}

// within reports whether path is root or inside it (both cleaned, links resolved).
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// willOpenPath checks a willOpen's URI (read loop; a few stats): a .jsonl regular file, links
// resolved, under one of roots, of at most limit bytes. It returns the file's path or why not.
func willOpenPath(uri string, roots []string, limit int64) (string, string) {
	path, ok := uriToPath(uri)
	if !ok || !strings.HasSuffix(path, ".jsonl") {
		return "", "not a file: URI of a session log (.jsonl)"
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err.Error()
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", "not a regular file"
	}
	if fi.Size() > limit {
		return "", fmt.Sprintf("%d bytes, larger than the server's file-size limit of %d MB (the editor's didOpen still brings the text)", fi.Size(), limit>>20)
	}
	for _, r := range roots {
		if within(real, r) {
			return path, ""
		}
	}
	return "", "not under the workspace's folders or Claude Code's projects folder"
}

// willOpen registers the log as a provisional document and queues its reading on its session's
// worker; the didOpen that follows claims it (claimProvisional). A URI already open, a bad or
// unreadable path: nothing is published (a warning is logged).
func (srv *server) willOpen(p willOpenParams) {
	srv.mu.Lock()
	roots := srv.openRoots
	srv.mu.Unlock()
	path, why := willOpenPath(p.URI, roots, srv.hooks.maxFileBytes)
	if why != "" {
		srv.log.Warn(notifyWillOpen+": not read", zap.String("uri", p.URI), zap.String("why", why))
		return
	}
	d := srv.openDocument(p.URI)
	if d == nil {
		return // open already (or announced twice): the editor's text rules
	}
	srv.mu.Lock()
	d.pending = true
	srv.mu.Unlock()
	srv.hooks.mark("willOpen registered")
	ss := d.sess
	ss.do(nil, func() {
		srv.mu.Lock()
		pending := d.pending
		srv.mu.Unlock()
		if !pending {
			return // claimed before it was read: the didOpen's text is the one
		}
		text, err := ss.read(path)
		if err != nil {
			srv.log.Warn(notifyWillOpen+": cannot read the log", zap.String("uri", p.URI), zap.Error(err))
			srv.forgetProvisional(d)
			return
		}
		srv.memoryBudget(int64(len(text)))
		ss.open(d, text, 0)
		srv.hooks.mark("willOpen read and parsed")
	})
	time.AfterFunc(srv.hooks.willOpenGrace, func() { ss.do(nil, func() { srv.forgetProvisional(d) }) })
}

// claimProvisional (read loop) returns the provisional document of uri, now the client's, or nil.
// It and forgetProvisional decide under srv.mu, so exactly one of them takes a document.
func (srv *server) claimProvisional(uri string) *document {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	d := srv.docs[uri]
	if d == nil || !d.pending {
		return nil
	}
	d.pending = false
	return d
}

// forgetProvisional (worker) closes a provisional document that no didOpen claimed.
func (srv *server) forgetProvisional(d *document) {
	srv.mu.Lock()
	if !d.pending {
		srv.mu.Unlock()
		return
	}
	d.pending = false
	if srv.docs[d.uri] == d {
		delete(srv.docs, d.uri)
	}
	if d.sess.docs[d.path] == d {
		delete(d.sess.docs, d.path)
	}
	srv.mu.Unlock()
	if d.opened {
		srv.log.Info(notifyWillOpen+": no didOpen followed; closing", zap.String("uri", d.uri))
		d.sess.close(d)
	}
}

// claim (worker) brings the client's text into a claimed provisional document: text equal to
// what was read from disk costs a comparison (no parse, no second publication); other text is
// taken as an edit (Session.SetText parses only what differs).
func (ss *sess) claim(d *document, text []byte, version int32) {
	if !d.opened || ss.session == nil {
		ss.open(d, text, version)
		return
	}
	f := ss.session.File(d.path)
	if f == nil {
		ss.open(d, text, version)
		return
	}
	d.version = version
	if bytes.Equal(f.Text(), text) {
		ss.srv.hooks.mark("didOpen reused")
		return
	}
	ss.session.SetText(f, text)
	ss.srv.hooks.mark("didOpen re-checked")
	ss.changed()
}
