// Package layout finds the files of a session on disk, in every layout Claude Code has written
// (docs/spec.md §5), and loads them into a session. It reads only those places: it never follows a path
// found inside a log, never follows a symbolic link out of the session's folder, and writes nothing.
package layout

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/session"
)

// Found lists a session's files.
type Found struct {
	ID     string
	Dir    string // the folder holding the main log (or the agent logs when there is no main log)
	Main   string // "" when the main log is absent
	Agents []Agent
	// Unread are the sub-agent logs that are where Claude Code writes them but cannot be read: not
	// a regular file (a FIFO, a device), or a link out of the session's folder. LoadFound tells the
	// session (session.SetUnread), so their calls are not said to have no log.
	Unread []Unreadable
	// Named is the path discovery started from: a person (a CLI argument) or an editor named it,
	// so a link there is followed (to a regular file only). Every other file is found by listing
	// folders and is opened only when it stays inside Dir.
	Named string
}

// Root is the folder a link at p must stay inside to be followed (Open's root): "" for the path
// that was named, else the session's folder.
func (f Found) Root(p string) string {
	if p == f.Named {
		return ""
	}
	return f.Dir
}

// Agent is one sub-agent log.
type Agent struct {
	Path    string
	AgentID string
	Meta    string // path of agent-<id>.meta.json, "" when absent
}

// Unreadable is a sub-agent log found that is not read, and why.
type Unreadable struct {
	Agent
	Why string
}

// Paths returns every file of the session, main log first.
func (f Found) Paths() []string {
	var ps []string
	if f.Main != "" {
		ps = append(ps, f.Main)
	}
	for _, a := range f.Agents {
		ps = append(ps, a.Path)
	}
	return ps
}

// First is Paths()[0] without the slice: the main log, else the first sub-agent log ("" for none).
func (f Found) First() string {
	if f.Main != "" || len(f.Agents) == 0 {
		return f.Main
	}
	return f.Agents[0].Path
}

// AgentIDFromName returns <id> for a file named agent-<id>.jsonl.
func AgentIDFromName(path string) (string, bool) {
	base := filepath.Base(path)
	if strings.HasPrefix(base, "agent-") && strings.HasSuffix(base, ".jsonl") {
		return strings.TrimSuffix(strings.TrimPrefix(base, "agent-"), ".jsonl"), true
	}
	return "", false
}

// Discover finds the session that path (any of its files) belongs to.
func Discover(path string) (Found, error) { return DiscoverListed(path, nil) }

// Listed is what a walk of folders saw: the entries of dir, sorted by name as os.ReadDir sorts
// them, when the walk listed dir whole; false: not listed (look on disk).
type Listed func(dir string) ([]fs.DirEntry, bool)

// DiscoverListed is Discover taking the folders' entries from ls where it has them (nil: none), so
// a caller that walked the folders already (internal/history) does not list them a second time.
// It finds what Discover finds of folders as ls saw them.
func DiscoverListed(path string, ls Listed) (Found, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Found{}, err
	}
	dir := filepath.Dir(abs)
	f, err := lister{ls}.discover(abs, dir)
	f.Named = abs
	f.takeNamed()
	return f, err
}

// takeNamed makes the sub-agent log named one of the session's logs when it is a regular file
// through its link: listed with its folder it is a link out of the session's folder, left unread,
// as its siblings are, but the person or the editor named it, and a link named is followed
// (Root). Without it, a named sub-agent log linked from elsewhere was not read, and nothing said so.
func (f *Found) takeNamed() {
	id, isAgent := AgentIDFromName(f.Named)
	if !isAgent || f.Named == f.Main || slices.ContainsFunc(f.Agents, func(a Agent) bool { return a.Path == f.Named }) {
		return
	}
	if fi, err := os.Stat(f.Named); err != nil || !fi.Mode().IsRegular() {
		return // a FIFO or a device through the link stays unread (Open refuses it too)
	}
	f.Unread = slices.DeleteFunc(f.Unread, func(u Unreadable) bool { return u.Path == f.Named })
	at, _ := slices.BinarySearchFunc(f.Agents, f.Named, func(a Agent, p string) int { return strings.Compare(a.Path, p) })
	f.Agents = slices.Insert(f.Agents, at, lister{}.agent(f.Named, id))
}

// lister looks at folders and files through a walk's listing where it has them, else on disk.
type lister struct{ ls Listed }

// readDir is os.ReadDir's entries of dir (what it could read).
func (l lister) readDir(dir string) []fs.DirEntry {
	if l.ls != nil {
		if es, ok := l.ls(dir); ok {
			return es
		}
	}
	es, _ := os.ReadDir(dir)
	return es
}

// mode is the type bits of os.Lstat(path); false when there is nothing there.
func (l lister) mode(path string) (fs.FileMode, bool) {
	if l.ls != nil {
		if es, ok := l.ls(filepath.Dir(path)); ok {
			name := filepath.Base(path)
			i, found := slices.BinarySearchFunc(es, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
			if !found {
				return 0, false
			}
			return es[i].Type(), true
		}
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, false
	}
	return fi.Mode().Type(), true
}

func (l lister) discover(abs, dir string) (Found, error) {
	if _, isAgent := AgentIDFromName(abs); isAgent {
		// 2.1.2+: <dir>/<sessionId>/subagents[/workflows/<runId>]/agent-<id>.jsonl
		if sessDir, ok := subagentsRoot(dir); ok {
			f := Found{ID: filepath.Base(sessDir), Dir: filepath.Dir(sessDir)}
			if main := sessDir + ".jsonl"; l.isRegular(main, f.Dir) {
				f.Main = main
			}
			f.Agents = l.nestedAgents(sessDir, &f.Unread)
			return f, nil
		}
		// 2.0.x: agent-<id>.jsonl beside the main log, tied by sessionId. The id comes from the
		// log's content: it names a file only when it is a plain name ("../x" is not followed).
		id := headSessionIDIn(abs, "") // named: read through its link (Root)
		if !plainName(id) {
			id = ""
		}
		f := Found{ID: id, Dir: dir}
		if id != "" {
			if main := filepath.Join(dir, id+".jsonl"); l.isRegular(main, dir) {
				f.Main = main
			}
		}
		f.Agents = l.flatAgents(dir, id, abs, &f.Unread)
		return f, nil
	}
	f := Found{ID: strings.TrimSuffix(filepath.Base(abs), ".jsonl"), Dir: dir, Main: abs}
	f.Agents = append(l.nestedAgents(filepath.Join(dir, f.ID), &f.Unread), l.flatAgents(dir, f.ID, "", &f.Unread)...)
	return f, nil
}

// subagentsRoot returns <sessionDir> when dir is <sessionDir>/subagents or below it.
func subagentsRoot(dir string) (string, bool) {
	for d := dir; ; {
		if filepath.Base(d) == "subagents" {
			return filepath.Dir(d), true
		}
		parent := filepath.Dir(d)
		if parent == d || filepath.Base(d) != "workflows" && filepath.Base(parent) != "workflows" {
			return "", false
		}
		d = parent
	}
}

// within reports whether path, with symbolic links resolved, stays inside root.
func within(path, root string) bool {
	_, ok := resolveWithin(path, root)
	return ok
}

// resolveWithin resolves path's links and reports whether the result stays inside root.
func resolveWithin(path, root string) (string, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(realRoot, real)
	return real, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// isRegular reports whether path is a regular file (through links only when they stay in root).
func (l lister) isRegular(path, root string) bool {
	ok, _ := l.regular(path, root)
	return ok
}

// regular is isRegular, and when path is there but no regular file to read, why ("" when there is
// nothing there, or a link to nothing).
func (l lister) regular(path, root string) (ok bool, why string) {
	m, ok := l.mode(path)
	if !ok {
		return false, ""
	}
	if m&fs.ModeSymlink != 0 {
		if !within(path, root) {
			if _, err := os.Stat(path); err != nil {
				return false, ""
			}
			return false, "a link out of the session's folder"
		}
		fi, err := os.Stat(path)
		if err != nil {
			return false, ""
		}
		m = fi.Mode()
	}
	if m.IsDir() {
		return false, ""
	}
	if !m.IsRegular() {
		return false, errNotRegular.Error()
	}
	return true, ""
}

// plainName reports whether a session id taken from a log can name a file in the session's folder:
// no separators, no "." or "..", no control characters.
func plainName(id string) bool {
	if id == "" || id == "." || id == ".." || len(id) > 255 {
		return false
	}
	for _, c := range id {
		if c == '/' || c == '\\' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// nestedAgents lists <sessDir>/subagents/**/agent-*.jsonl without following links out of the
// session's folder (the folder holding sessDir): neither sessDir nor subagents/ may be a link that
// leaves it. Those there that cannot be read are added to unread.
func (l lister) nestedAgents(sessDir string, unread *[]Unreadable) []Agent {
	root := filepath.Join(sessDir, "subagents")
	if m, ok := l.mode(root); !ok || !m.IsDir() {
		return nil
	}
	// Two folders, neither a link, stay inside the folder holding them: resolved only otherwise.
	if m, _ := l.mode(sessDir); !m.IsDir() && !within(root, filepath.Dir(sessDir)) {
		return nil
	}
	var out []Agent
	// filepath.WalkDir's order (by name, depth first), folders entered but no link.
	var walk func(dir string)
	walk = func(dir string) {
		for _, e := range l.readDir(dir) {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				walk(p)
			} else if id, ok := AgentIDFromName(p); ok {
				if reg, why := l.regular(p, sessDir); reg {
					out = append(out, l.agent(p, id))
				} else if why != "" {
					*unread = append(*unread, Unreadable{Agent{Path: p, AgentID: id}, why})
				}
			}
		}
	}
	walk(root)
	return out
}

// flatAgents lists dir/agent-*.jsonl whose records carry sessionID (all of them, and self, when
// sessionID is unknown). Those that cannot be read, whose session cannot be told, are added to
// unread (an agent's id names one log: only its own session's calls name it).
func (l lister) flatAgents(dir, sessionID, self string, unread *[]Unreadable) []Agent {
	// The folder is listed and names matched: a folder's own name may hold glob characters
	// ("a[b]", "*"), so no path is ever handed to filepath.Glob.
	var out []Agent
	for _, e := range l.readDir(dir) { // sorted by name
		id, ok := AgentIDFromName(e.Name())
		if !ok {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if reg, why := l.regular(p, dir); !reg {
			if why != "" {
				*unread = append(*unread, Unreadable{Agent{Path: p, AgentID: id}, why})
			}
			continue
		}
		if p == self || sessionID != "" && HeadSessionID(p) == sessionID {
			out = append(out, l.agent(p, id))
		}
	}
	return out
}

func (l lister) agent(p, id string) Agent {
	a := Agent{Path: p, AgentID: id}
	if m := strings.TrimSuffix(p, ".jsonl") + ".meta.json"; l.fileExists(m) {
		a.Meta = m
	}
	return a
}

func (l lister) fileExists(p string) bool {
	m, ok := l.mode(p)
	return ok && m.IsRegular()
}

// headMemo remembers HeadSessionID per file version, so walking a folder of many flat agent logs
// reads each head once, not once per main log.
var headMemo sync.Map // path -> headEntry

type headEntry struct {
	size int64
	mod  time.Time
	id   string
}

// HeadSessionID returns the sessionId of the first records of a log, reading at most a few MB. The
// log is opened by Open within its own folder: a FIFO, a device or a link out of the folder gives "".
func HeadSessionID(path string) string { return headSessionIDIn(path, filepath.Dir(path)) }

// headSessionIDIn is HeadSessionID with the log opened by Open within root ("": the path named).
func headSessionIDIn(path, root string) string {
	fh, err := Open(path, root)
	if err != nil {
		return ""
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return ""
	}
	if e, ok := headMemo.Load(path); ok {
		if e := e.(headEntry); e.size == fi.Size() && e.mod.Equal(fi.ModTime()) {
			return e.id
		}
	}
	id := headSessionID(fh)
	headMemo.Store(path, headEntry{fi.Size(), fi.ModTime(), id})
	return id
}

func headSessionID(fh *os.File) string {
	br := bufio.NewReaderSize(fh, 64<<10)
	var budget = 8 << 20
	for i := 0; i < 20 && budget > 0; i++ {
		line, err := readLine(br, budget)
		budget -= len(line) + 1
		if r := jsonl.Parse(line); r != nil && r.LineErr() == nil && r.SessionID != "" {
			return r.SessionID
		}
		if err != nil {
			return ""
		}
	}
	return ""
}

func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, errors.New("line too long")
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			if len(line) > 0 && line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			if err == io.EOF && len(line) > 0 {
				return line, nil
			}
			return line, err
		}
	}
}

// Reader returns a file's bytes: the editor's text for open documents, else the disk's.
type Reader func(path string) ([]byte, error)

// Load discovers the session of path and reads all its files with read (ReadFile when nil).
func Load(path string, read Reader) (*session.Session, error) {
	found, err := Discover(path)
	if err != nil {
		return nil, err
	}
	return LoadFound(found, read)
}

// errNotRegular is what Open says of a FIFO, a device, a socket or a folder.
var errNotRegular = errors.New("not a regular file")

// Open is the one way ccdag turns a path into an open file. It looks at the path first (Lstat):
// only a regular file is opened, and a symbolic link only when root is "" (a path the person or
// the editor named) or when, resolved, it stays inside root (the session's folder). What is opened
// is what was looked at: the open cannot block on a FIFO put in its place (O_NONBLOCK), does not
// follow a link put in its place (O_NOFOLLOW when it was not a link), and the open file must be
// the file looked at (same device and inode), so a link re-pointed or a folder on the way swapped
// for a link between the look and the open is refused too.
func Open(path, root string) (*os.File, error) {
	looked, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	follow := looked.Mode()&fs.ModeSymlink != 0
	if follow {
		target := path
		if root != "" {
			real, ok := resolveWithin(path, root)
			if !ok {
				return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("a link out of the session's folder")}
			}
			target = real // the file that was found inside root, not whatever the link names by now
		}
		if looked, err = os.Stat(target); err != nil {
			return nil, err
		}
	}
	if !looked.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	if afterLook != nil {
		afterLook(path)
	}
	fh, err := openNonblocking(path, follow)
	if err != nil {
		return nil, err
	}
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() || !os.SameFile(looked, fi) {
		fh.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("replaced while it was opened")}
	}
	return fh, nil
}

// afterLook, when set (tests only), runs between Open's look at a path and its open.
var afterLook func(path string)

// ReadFile reads a session file through Open (root as there).
func ReadFile(path, root string) ([]byte, error) { return ReadFileMax(path, root, 0) }

// TooLargeError is ReadFileMax's refusal of a file past its limit.
type TooLargeError struct {
	Path      string
	Size, Max int64 // Size: what the file had when refused (at least Max+1 when it grew while read)
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %d bytes, larger than the limit of %d MB", e.Path, e.Size, e.Max>>20)
}

// ReadFileMax is ReadFile refusing a file of more than max bytes (max <= 0: no limit) before it
// reads anything (the open file's size: a sparse file of 512 MB costs no disk and would cost 512 MB
// of memory), and stopping when one grows past max while it is read.
func ReadFileMax(path, root string, max int64) ([]byte, error) {
	fh, size, err := openSized(path, root)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if max > 0 && size > max {
		return nil, &TooLargeError{path, size, max}
	}
	b, err := readOpen(fh, size, max)
	if err == errGrew {
		return nil, &TooLargeError{path, int64(len(b)), max}
	}
	return b, err
}

// ReaderMax reads the found session's files as LoadFound does with a nil Reader, refusing any of
// more than max bytes (ReadFileMax).
func (f Found) ReaderMax(max int64) Reader {
	return func(p string) ([]byte, error) { return ReadFileMax(p, f.Root(p), max) }
}

// openSized opens a session file through Open and returns its size as the open file has it.
func openSized(path, root string) (*os.File, int64, error) {
	fh, err := Open(path, root)
	if err != nil {
		return nil, 0, err
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, err
	}
	return fh, fi.Size(), nil
}

// errGrew: the file grew past readOpen's max while it was read.
var errGrew = errors.New("grew past the limit")

// readOpen reads an opened file of about size bytes to its end, or until it passes max bytes
// (max > 0; then it returns what it read and errGrew).
func readOpen(fh *os.File, size, max int64) ([]byte, error) {
	buf := make([]byte, 0, size+512)
	for {
		n, err := fh.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if max > 0 && int64(len(buf)) > max {
			return buf, errGrew
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew while it was read
		}
	}
}

// maxMeta is the size beyond which a file is not an agent's meta file.
const maxMeta = 1 << 20

// ReadMeta reads agent-<id>.meta.json beside the agent log at agentPath, through Open within root
// (the session's folder): nil when it is absent, not a regular file of the folder, too big or not
// a meta object.
func ReadMeta(agentPath, root string) *session.AgentMeta {
	fh, err := Open(strings.TrimSuffix(agentPath, ".jsonl")+".meta.json", root)
	if err != nil {
		return nil
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxMeta))
	if err != nil || len(b) >= maxMeta {
		return nil
	}
	var m session.AgentMeta
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return &m
}

// LoadFound reads the files of a discovered session (with ReadFile when read is nil: within the
// session's folder, the named path as named).
func LoadFound(found Found, read Reader) (*session.Session, error) {
	if read == nil {
		read = func(p string) ([]byte, error) { return ReadFile(p, found.Root(p)) }
	}
	s := session.New(found.ID, found.Dir)
	if found.Main != "" {
		text, err := read(found.Main)
		if err != nil {
			return nil, err
		}
		s.AddFile(session.NewFile(found.Main, text))
	}
	for _, u := range found.Unread {
		s.SetUnread(u.AgentID, session.Unread{Path: u.Path, Why: u.Why})
	}
	for _, a := range found.Agents {
		text, err := read(a.Path)
		if err != nil {
			// An agent log that vanished or is unreadable: the session still loads, and one that is
			// there is said to be (its calls' finding says why it was not read).
			if why := WhyUnread(err); why != "" {
				s.SetUnread(a.AgentID, session.Unread{Path: a.Path, Why: why})
			}
			continue
		}
		f := session.NewFile(a.Path, text)
		f.Lane, f.AgentID = "agent-"+a.AgentID, a.AgentID
		if a.Meta != "" {
			f.Meta = ReadMeta(a.Path, found.Dir)
		}
		s.AddFile(f)
	}
	if len(s.Files) == 0 {
		return nil, &os.PathError{Op: "open", Path: found.Main, Err: os.ErrNotExist}
	}
	return s, nil
}

// WhyUnread says why a log that is there was not read, from the error reading it: "" when it is
// not there (gone since it was found: missing, not unread).
func WhyUnread(err error) string {
	var tl *TooLargeError
	var pe *os.PathError
	switch {
	case err == nil || errors.Is(err, fs.ErrNotExist):
		return ""
	case errors.As(err, &tl):
		return fmt.Sprintf("%d bytes, larger than the file-size limit of %d MB", tl.Size, tl.Max>>20)
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}

// SessionOf makes a session of one log file alone (no sibling lookup), named by the file: the
// server's when a log's session cannot be read from disk, and the tests'.
func SessionOf(f *session.File) *session.Session {
	s := session.New(strings.TrimSuffix(filepath.Base(f.Path), ".jsonl"), filepath.Dir(f.Path))
	s.AddFile(f)
	return s
}
