package lsp

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/resume"
)

// Files of a session that are not open are read from disk; when the client can watch files
// (dynamic registration of workspace/didChangeWatchedFiles), the server asks it to report changes
// to logs and agent meta files and re-reads them: a sub-agent log that appears joins its session,
// one that changes is re-read (only what changed is parsed again), one that goes leaves it. Open
// documents are never touched: their text wins.

func (srv *server) registerWatchers() {
	ctx, cancel := context.WithTimeout(srv.ctx, 10*time.Second)
	defer cancel()
	params := protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:     "ccdag-watch-logs",
		Method: "workspace/didChangeWatchedFiles",
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []protocol.FileSystemWatcher{
			{GlobPattern: "**/*.jsonl"},
			{GlobPattern: "**/*.meta.json"},
		}},
	}}}
	if err := srv.conn.Call(ctx, "client/registerCapability", params, nil); err != nil {
		srv.log.Info("the client did not accept file watching; sessions' other files are read once", zap.Error(err))
	}
}

type watchedFilesParams struct {
	Changes []struct {
		URI  string                  `json:"uri"`
		Type protocol.FileChangeType `json:"type"`
	} `json:"changes"`
}

func (srv *server) didChangeWatchedFiles(p watchedFilesParams) {
	srv.mu.Lock()
	sessions := make([]*sess, 0, len(srv.sessions))
	for _, ss := range srv.sessions {
		if ss.onDisk {
			sessions = append(sessions, ss)
		}
	}
	srv.mu.Unlock()
	for _, c := range p.Changes {
		path, ok := uriToPath(c.URI)
		if !ok || !strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, ".meta.json") {
			continue
		}
		typ := c.Type
		key := ""
		if typ == protocol.FileChangeTypeCreated && strings.HasSuffix(path, ".jsonl") {
			// A new log joins the session it belongs to. Only a path where one of the open
			// sessions keeps its logs is looked at on disk: nothing else is read (docs/spec.md §5).
			if !slices.ContainsFunc(sessions, func(ss *sess) bool { return ss.couldHold(path) }) {
				continue
			}
			found, err := layout.Discover(path)
			if err != nil || !belongs(found, path) {
				continue
			}
			key = sessionKey(found, path)
		}
		for _, ss := range sessions {
			if key == "" || ss.key == key {
				ss.do(nil, func() { ss.diskChanged(path, typ) })
			}
		}
	}
}

// diskChanged (worker) brings a change on disk into the session when it concerns one of its files
// that is not open.
func (ss *sess) diskChanged(path string, typ protocol.FileChangeType) {
	if ss.session == nil {
		return
	}
	ss.srv.mu.Lock()
	open := ss.docs[path] != nil
	ss.srv.mu.Unlock()
	if open {
		return
	}
	ss.disk.wanted = true // a file of the session changed: its folders may hold new ones too
	if strings.HasSuffix(path, ".meta.json") {
		if f := ss.session.File(strings.TrimSuffix(path, ".meta.json") + ".jsonl"); f != nil {
			nf := ss.newFile(f.Path, nil)
			f.Meta = nf.Meta
			ss.changed()
		}
		return
	}
	f := ss.session.File(path)
	switch {
	case typ == protocol.FileChangeTypeDeleted:
		if f != nil {
			ss.session.RemoveFile(f)
			ss.changed()
		}
	case f != nil:
		text, err := ss.readStamped(path)
		if err != nil {
			ss.session.RemoveFile(f)
		} else {
			ss.session.SetText(f, text)
		}
		ss.changed()
	case typ == protocol.FileChangeTypeCreated: // a new log of this session (didChangeWatchedFiles checked)
		text, err := ss.readStamped(path)
		if err != nil {
			return
		}
		ss.session.AddFile(ss.newFile(path, text))
		ss.changed()
	}
}

// couldHold reports, from the path alone, whether a log at path would be one of the session's
// files (docs/spec.md §5): beside its main log, or under <sessionId>/subagents/.
func (ss *sess) couldHold(path string) bool {
	dir := ss.found.Dir
	if dir == "" {
		return false
	}
	if filepath.Dir(path) == dir {
		return true
	}
	sub := filepath.Join(dir, ss.found.ID, "subagents") + string(filepath.Separator)
	return ss.found.ID != "" && strings.HasPrefix(path, sub)
}

func belongs(found layout.Found, path string) bool {
	for _, p := range found.Paths() {
		if p == path {
			return true
		}
	}
	return false
}

// summaryOpen (worker) answers ccdag/sessionSummary, the counts the VS Code status bar shows, for
// an open session.
func summaryOpen(_ context.Context, ss *sess, _ *document, _ docRequest) (summary, error) {
	ss.chk.Update()
	return summarize(ss.session, ss.chk, ss.srv.severities(), ss.resumed()), nil
}

// summaryClosed answers ccdag/sessionSummary for a log that is not open, read from disk.
func summaryClosed(ctx context.Context, srv *server, p docRequest) (summary, error) {
	s, err := loadClosed(ctx, p.TextDocument.URI, srv.hooks.maxFileBytes)
	if err != nil {
		return summary{}, err
	}
	return summarize(s, newChecker(s), srv.severities(), resume.ComputeWith(s, srv.claudeVersion())), nil
}
