package lsp

import (
	"time"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
)

// A session's files appear and grow on disk while Claude Code runs, and clients report only what
// they watch: code-server sends nothing for a folder created after it started watching (the first
// sub-agent creates <sessionId>/subagents/), Neovim 0.7 watches nothing. So the server looks
// again itself: after any change to a file of the session (an edit, a reload, a watch event), at
// most once per lookEvery, it lists the session's own folders with layout.Discover (docs/spec.md
// §5's places, nothing else) and looks at each file that is not open with layout.StampOf (no
// open): a new log joins, a grown one is read again (only what changed is parsed), one gone leaves,
// a meta file that appeared is read. A look put off by the interval is made when it ends, so the
// last change is never left unseen. Reading stays read-only and inside the session's folder.

// diskState (worker-owned) is what the session read from disk and when it last looked.
type diskState struct {
	stamps   map[string]layout.Stamp // files read from disk, as they were just before the read
	wanted   bool                    // a file of the session changed since the last look
	queued   bool                    // a look is due when the interval ends
	lastLook time.Time
	cost     time.Duration // how long the last look took
}

// lookEvery bounds how often a session's folders are looked at; a look that took long (a listing
// and one Lstat per file: 5 to 10 ms for 200 sub-agent logs here, docs/PERFORMANCE.md) waits
// lookShare times its cost, so looking takes at most 1/lookShare of a core.
const (
	lookEvery = 500 * time.Millisecond
	lookShare = 20
)

// lookSoon (worker) looks at the session's files on disk, when one of them changed since the last
// look, now or when lookEvery has passed since the last look. A change found now is taken into the
// publication under way.
func (ss *sess) lookSoon() {
	if !ss.onDisk || ss.session == nil || !ss.disk.wanted {
		return
	}
	wait := max(lookEvery, lookShare*ss.disk.cost) - time.Since(ss.disk.lastLook)
	if wait <= 0 {
		ss.disk.wanted = false
		if ss.look() {
			ss.graph.invalidate()
		}
		return
	}
	if ss.disk.queued {
		return
	}
	ss.disk.queued = true
	time.AfterFunc(wait, func() {
		ss.do(nil, func() {
			ss.disk.queued, ss.disk.wanted = false, false
			if ss.session != nil && ss.look() {
				ss.changed()
			}
		})
	})
}

// look (worker) brings the session's files on disk into it, open documents aside (their text
// wins). It reports whether the session changed.
func (ss *sess) look() bool {
	start := time.Now()
	defer func() { ss.disk.lastLook, ss.disk.cost = time.Now(), time.Since(start) }()
	named := ss.found.Main
	if named == "" {
		named = ss.found.Named
	}
	if named == "" || ss.session == nil {
		return false
	}
	found, err := layout.Discover(named)
	if err != nil {
		return false
	}
	ss.srv.mu.Lock()
	open := make(map[string]bool, len(ss.docs))
	for p := range ss.docs {
		open[p] = true
	}
	ss.srv.mu.Unlock()
	have := make(map[string]*session.File, len(ss.session.Files))
	for _, f := range ss.session.Files {
		have[f.Path] = f
	}
	metas := map[string]bool{}
	agentOf := make(map[string]string, len(found.Agents))
	for _, a := range found.Agents {
		if a.Meta != "" {
			metas[a.Path] = true
		}
		agentOf[a.Path] = a.AgentID
	}
	// The sub-agent logs there but not read (not a regular file, past the size limit), as this
	// look finds them: their calls say so rather than that the log is missing.
	unread := map[string]session.Unread{}
	for _, u := range found.Unread {
		unread[u.AgentID] = session.Unread{Path: u.Path, Why: u.Why}
	}
	changed := false
	seen := make(map[string]bool, len(have))
	for _, p := range found.Paths() {
		seen[p] = true
		if open[p] {
			continue
		}
		f := have[p]
		if st, ok := layout.StampOf(p, ss.root(p)); ok && f != nil && ss.disk.stamps[p] == st {
			if f.Meta == nil && metas[p] { // the agent's meta file came after its log
				if f.Meta = layout.ReadMeta(p, ss.root(p)); f.Meta != nil {
					changed = true
				}
			}
			continue
		}
		text, err := ss.readStamped(p)
		if err != nil {
			if why := layout.WhyUnread(err); f == nil && why != "" && agentOf[p] != "" {
				unread[agentOf[p]] = session.Unread{Path: p, Why: why}
			}
			continue
		}
		if f == nil {
			ss.session.AddFile(ss.newFile(p, text))
		} else {
			ss.session.SetText(f, text)
			if f.Meta == nil && metas[p] {
				f.Meta = layout.ReadMeta(p, ss.root(p))
			}
		}
		changed = true
	}
	for p, f := range have {
		if !seen[p] && !open[p] {
			ss.session.RemoveFile(f)
			delete(ss.disk.stamps, p)
			changed = true
		}
	}
	for _, id := range ss.session.UnreadAgents() {
		if _, still := unread[id]; !still {
			ss.session.SetUnread(id, session.Unread{})
			changed = true
		}
	}
	for id, u := range unread {
		if had, _ := ss.session.UnreadAgent(id); had != u {
			ss.session.SetUnread(id, u)
			changed = true
		}
	}
	return changed
}

// readStamped (worker) reads a file of the session from disk and keeps its stamp, taken before
// the read: a file that grows during the read looks changed at the next look.
func (ss *sess) readStamped(path string) ([]byte, error) {
	st, ok := layout.StampOf(path, ss.root(path))
	text, err := ss.read(path)
	if ss.disk.stamps == nil {
		ss.disk.stamps = map[string]layout.Stamp{}
	}
	if err != nil || !ok {
		delete(ss.disk.stamps, path)
	} else {
		ss.disk.stamps[path] = st
	}
	return text, err
}
