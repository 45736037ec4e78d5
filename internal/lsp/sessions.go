package lsp

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
)

// document is one text document the client has open.
type document struct {
	uri  string // as the client sent it: replies name the document by it
	path string // file path; the URI itself for documents not backed by a file
	sess *sess
	// announced by ccdag/willOpen and read from disk, no didOpen yet (willopen.go); guarded by srv.mu
	pending bool

	// owned by the session's worker
	opened  bool  // the open job has run: the session holds this document's text
	version int32 // the client's version of the text the session holds
}

// sess is one session (docs/spec.md §5) with at least one open document. Its worker owns session, chk and the
// caches; everything else is guarded by srv.mu.
type sess struct {
	srv    *server
	key    string
	found  layout.Found
	onDisk bool                 // its files live on disk (file: URIs)
	docs   map[string]*document // open documents by path (guarded by srv.mu)
	w      worker

	bytes atomic.Int64 // the session's logs' size, for the memory budget

	// owned by the worker
	session       *session.Session
	chk           *check.Checker
	publishQueued bool
	scanLater     bool // secretscan.go: checked without the secret scan so far
	graph         graphCache
	reading       *reading // transcript, lenses, folding (transcript.go)
	resume        resumeCache
	repair        repairCache
	masks         maskCache // the secrets results hide (redactview.go)
	disk          diskState // what was read from disk, when the folders were last looked at (rescan.go)
	closes        uint64    // how many times its last document was closed (closeGrace)
}

// closeGrace is how long a session outlives its last document. Neovim before 0.10 reloads a log
// that changed on disk as a close and an open; kept this long, the session takes the reopened
// text as an edit (only the appended bytes are parsed) instead of reading every file again.
const closeGrace = 3 * time.Second

// worker runs jobs one after another on its own goroutine, started when work arrives and ended
// when the queue is empty. submit never blocks.
type worker struct {
	mu      sync.Mutex
	q       []func()
	running bool
}

func (w *worker) submit(job func()) {
	w.mu.Lock()
	w.q = append(w.q, job)
	if !w.running {
		w.running = true
		go w.run()
	}
	w.mu.Unlock()
}

func (w *worker) run() {
	for {
		w.mu.Lock()
		if len(w.q) == 0 {
			w.q, w.running = nil, false
			w.mu.Unlock()
			return
		}
		job := w.q[0]
		w.q[0] = nil
		w.q = w.q[1:]
		w.mu.Unlock()
		job()
	}
}

// do queues a job on the session. A request's job runs settled (handler.go: answered once, also
// when it was cancelled before it ran or panics); a panic in an edit rebuilds the session from
// the texts it holds.
func (ss *sess) do(r *request, job func()) {
	if r != nil {
		r.replyLater()
		ss.w.submit(func() { settle(r, job, zap.String("session", ss.key)) })
		return
	}
	ss.w.submit(func() {
		defer func() {
			if p := recover(); p != nil {
				ss.srv.log.Error("panic in session job", zap.String("method", "edit"), zap.String("session", ss.key),
					zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
				ss.rebuildSafely()
			}
		}()
		job()
	})
}

// uriToPath returns the path of a file: URI; pathToURI the file: URI of a path.
var (
	uriToPath = fileuri.ToPath
	pathToURI = fileuri.FromPath
)

// uriOf names a file of a session for the client (clientURI).
func (ss *sess) uriOf(f *session.File) string { return ss.clientURI(f.Path) }

// clientURI names a file of a session for the client, in locations and graphs: the URI of its
// open document when there is one, else its file: URI. Callers hold no lock.
func (ss *sess) clientURI(path string) string {
	ss.srv.mu.Lock()
	d := ss.docs[path]
	ss.srv.mu.Unlock()
	if d != nil {
		return d.uri
	}
	if !ss.onDisk {
		return path
	}
	return pathToURI(path)
}

// sessionKey names the session a path belongs to.
func sessionKey(found layout.Found, path string) string {
	switch {
	case found.Main != "":
		return "main:" + found.Main
	case found.ID != "":
		return "id:" + filepath.Join(found.Dir, found.ID)
	}
	return "file:" + path
}

// openDocument registers a document and its session (read loop). It returns nil when the URI is
// already open.
func (srv *server) openDocument(uri string) *document {
	path, isFile := uriToPath(uri)
	var found layout.Found
	key := "uri:" + uri
	if isFile {
		if f, err := layout.Discover(path); err == nil {
			found = f
			key = sessionKey(found, path)
		} else {
			key = "file:" + path
		}
	} else {
		path = uri
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.docs[uri] != nil {
		return nil
	}
	ss := srv.sessions[key]
	if ss == nil {
		ss = &sess{srv: srv, key: key, found: found, onDisk: isFile, docs: map[string]*document{}}
		srv.sessions[key] = ss
	}
	d := &document{uri: uri, path: path, sess: ss}
	srv.docs[uri] = d
	ss.docs[path] = d
	return d
}

// doc returns the open document of a URI, or nil.
func (srv *server) doc(uri string) *document {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.docs[uri]
}

// open (worker) brings a document's text into its session.
func (ss *sess) open(d *document, text []byte, version int32) {
	d.version = version
	d.opened = true
	if ss.session == nil {
		ss.load(d, text)
	} else {
		if f := ss.session.File(d.path); f != nil {
			ss.session.SetText(f, text)
		} else {
			ss.session.AddFile(ss.newFile(d.path, text))
		}
		// A reopen (Neovim 0.7 reloads a grown log as a close and an open) may follow sub-agent
		// logs that appeared meanwhile: look at the folders as after an edit.
		ss.disk.wanted = true
	}
	ss.changed()
	ss.warmGraph()
	if len(text) >= settleBytes {
		// The collector's last cycle ran while the log was being parsed, so the heap is now
		// about twice what it measured and the next cycle is due: paid here, in the background
		// while the server is idle, rather than by whichever request comes first (the first
		// graph of a 185 MB log spent 1.8 s of its 2 s marking the new index).
		go runtime.GC()
	}
}

// settleBytes is the size of an opened text from which the server collects after the open.
const settleBytes = 32 << 20

// load (worker) reads the session's files: the opened document's text, the others from disk.
func (ss *sess) load(d *document, text []byte) {
	var s *session.Session
	if ss.onDisk {
		p := ss.srv.beginProgress(nil, "Loading session", ss.sizeOnDisk()+int64(len(text)))
		read := func(p string) ([]byte, error) {
			if p == d.path {
				return text, nil
			}
			return ss.readStamped(p)
		}
		var err error
		if s, err = layout.LoadFound(ss.found, read); err != nil {
			ss.srv.log.Info("session not loaded from disk; serving the document alone", zap.String("path", d.path), zap.Error(err))
			s = nil
		}
		if s != nil && s.File(d.path) == nil {
			s.AddFile(ss.newFile(d.path, text))
		}
		defer p.End("")
	}
	if s == nil {
		s = layout.SessionOf(ss.newFile(d.path, text))
	}
	ss.srv.hooks.mark("parsed and indexed")
	ss.session = s
	ss.disk.lastLook = time.Now()
	ss.chk = ss.openChecker(s, len(text))
	ss.graph = graphCache{}
	ss.srv.hooks.mark("checked")
}

func (ss *sess) sizeOnDisk() int64 {
	var n int64
	for _, p := range ss.found.Paths() {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// newFile makes a session file, with its lane taken from its name (agent-<id>.jsonl) and the
// agent's meta.json beside it when there is one.
func (ss *sess) newFile(path string, text []byte) *session.File {
	f := session.NewFile(path, text)
	if !ss.onDisk {
		return f
	}
	if id, ok := layout.AgentIDFromName(path); ok && path != ss.found.Main {
		f.Lane, f.AgentID = "agent-"+id, id
		f.Meta = layout.ReadMeta(path, ss.root(path))
	}
	return f
}

// root is the folder a session's files must stay in (layout.Open): a link out of it is not followed.
func (ss *sess) root(path string) string {
	if ss.found.Dir != "" {
		return ss.found.Dir
	}
	return filepath.Dir(path)
}

// read reads a file of the session from disk (layout.ReadFile within the session's folder), none
// of more than the server's file-size limit.
func (ss *sess) read(path string) ([]byte, error) {
	return layout.ReadFileMax(path, ss.root(path), ss.srv.hooks.maxFileBytes)
}

// maxFileBytes is the server's file-size limit (docs/spec.md §15): the largest file it reads from
// disk on its own — a log ccdag/willOpen names, a closed document a request names, a session's
// other logs, the session browser's rows. A larger log is read only as the editor's text (didOpen,
// itself bounded by the 1 GiB message limit). Tests set another (hooks.maxFileBytes).
const maxFileBytes int64 = 256 << 20

// changed (worker) queues one publication of the session's diagnostics after the jobs already
// queued: a burst of edits is checked and published once.
func (ss *sess) changed() {
	ss.graph.invalidate()
	ss.queuePublish()
	if ss.session != nil {
		ss.bytes.Store(sessionBytes(ss.session))
		ss.srv.memoryBudget(0)
	}
}

// memoryBudget keeps Go's soft memory limit at what the open sessions' logs, and extra bytes
// about to join them, may cost (layout.SetMemoryBudget: 10 × their size + 100 MB).
func (srv *server) memoryBudget(extra int64) {
	srv.mu.Lock()
	n := extra
	for _, ss := range srv.sessions {
		n += ss.bytes.Load()
	}
	srv.mu.Unlock()
	layout.SetMemoryBudget(n, 0) // documents and logs read for the server live in its heap
}

// queuePublish (worker) queues the publication of the session's diagnostics unless one is queued.
func (ss *sess) queuePublish() {
	if ss.publishQueued {
		return
	}
	ss.publishQueued = true
	ss.do(nil, func() {
		ss.publishQueued = false
		if ss.session == nil {
			return
		}
		ss.lookSoon()
		ss.chk.Update()
		ss.publishAll()
		ss.scanNow()
	})
}

// close (worker) takes a closed document's text out of the session: the file goes back to its
// disk content, or leaves the session. The last document closed drops the session, closeGrace later.
func (ss *sess) close(d *document) {
	ss.srv.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: d.uri, Diagnostics: []protocol.Diagnostic{}})
	srv := ss.srv
	srv.mu.Lock()
	last := len(ss.docs) == 0
	reopened := ss.docs[d.path] != nil
	srv.mu.Unlock()
	if last {
		ss.closes++
		n := ss.closes
		time.AfterFunc(srv.hooks.closeGrace, func() { ss.do(nil, func() { ss.drop(n) }) })
		return
	}
	if ss.session == nil || reopened {
		return
	}
	f := ss.session.File(d.path)
	if f == nil {
		return
	}
	if text, err := ss.readStamped(d.path); ss.onDisk && err == nil {
		ss.session.SetText(f, text)
	} else {
		ss.session.RemoveFile(f)
	}
	ss.changed()
}

// drop (worker) forgets the session when no document was opened in it since its n-th last close.
func (ss *sess) drop(n uint64) {
	srv := ss.srv
	srv.mu.Lock()
	if ss.closes != n || len(ss.docs) > 0 {
		srv.mu.Unlock()
		return
	}
	if srv.sessions[ss.key] == ss {
		delete(srv.sessions, ss.key)
	}
	srv.mu.Unlock()
	ss.session, ss.chk, ss.graph = nil, nil, graphCache{}
	ss.reading, ss.resume, ss.repair, ss.disk = nil, resumeCache{}, repairCache{}, diskState{}
	ss.bytes.Store(0)
	srv.memoryBudget(0)
}

// rebuildSafely (worker) re-indexes the session from the texts of its files, after a panic in an
// edit; when even that fails, the session is dropped and its documents get no more diagnostics
// until they are opened again.
func (ss *sess) rebuildSafely() {
	defer func() {
		if p := recover(); p != nil {
			ss.srv.log.Error("session rebuild failed; dropping it", zap.String("session", ss.key), zap.Any("panic", p))
			ss.session, ss.chk, ss.graph = nil, nil, graphCache{}
		}
	}()
	ss.rebuild()
}

func (ss *sess) rebuild() {
	if ss.session == nil {
		return
	}
	old := ss.session
	s := session.New(old.ID, old.Dir)
	for _, f := range old.Files {
		nf := session.NewFile(f.Path, append([]byte(nil), f.Text()...))
		nf.Lane, nf.AgentID, nf.Meta = f.Lane, f.AgentID, f.Meta
		s.AddFile(nf)
	}
	ss.session, ss.chk, ss.graph = s, ss.srv.checker(s), graphCache{}
	ss.changed()
}

// file (worker) finds the session's file of an open document; an error when the document is
// unknown or its session is gone.
func (ss *sess) file(d *document) (*session.File, error) {
	if ss.session == nil || !d.opened {
		return nil, notOpen(d.uri)
	}
	f := ss.session.File(d.path)
	if f == nil {
		return nil, notOpen(d.uri)
	}
	return f, nil
}
