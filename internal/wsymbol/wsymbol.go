// Package wsymbol is the workspace symbol index (docs/spec.md §8): the prompts, sub-agent spawns
// and tool calls of every log under the workspace's .claude/projects folders, by name. Protocol
// free: the server turns what Query returns into workspace/symbol's answer.
package wsymbol

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/describe"
	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// Workspace symbols: the prompts, sub-agent spawns and tool calls of every log under the
// workspace's `.claude/projects` folders, named as in the outline (describe.SymbolName), so that
// Ctrl+T jumps to a prompt in any session. The index is built in the background after
// `initialized` (reporting $/progress), then kept current by looking at the folders every
// wsPoll: a log that grew has only its new bytes read, one that shrank or was replaced is read
// again, one that went is dropped. It holds the symbols' names and lines only, never log text:
// one arena of names per log and 12 bytes per symbol.
//
// Which folders: for each workspace folder (or the root URI) W, W/.claude/projects; W/projects
// when W is a `.claude` folder; W itself when it is, or lies under, a `.claude/projects` folder.

const (
	Poll     = 2 * time.Second // how often the index looks at the folders
	Limit    = 500             // symbols per answer
	poolSize = 2               // files indexed at once
)

// Kind is a symbol's kind.
type Kind uint8

// The kinds of symbols.
const (
	Turn     Kind = iota + 1 // a person's prompt
	Spawn                    // a sub-agent spawn (a Task/Agent call)
	ToolCall                 // another tool call
)

// A Symbol is one answer of Query.
type Symbol struct {
	Name      string
	Kind      Kind
	Path      string // the log
	Container string // its project folder
	Line      uint32
}

// Progress reports the first build's progress.
type Progress interface {
	Report(done int64)
	End(msg string)
}

// Index is the workspace symbol index.
type Index struct {
	log   *zap.Logger
	roots []string
	poll  time.Duration
	begin func(ctx context.Context, title string, total int64) Progress

	mu    sync.RWMutex
	files map[string]*File

	// OnChange, when set before Run, is called after a look at the folders found a log new,
	// changed (its modification time) or gone: the session browser's ccdag/sessionsChanged.
	OnChange func()
	// Cache, when set before Run, is the history cache the first build reads unchanged logs'
	// symbols from and stores the others' in (cached.go).
	Cache *cache.Cache
	// MaxBytes, when set before Run, is the size past which a log is not read (the server's
	// file-size limit, docs/spec.md §15): it has no symbols, and one that grows past it loses its own.
	MaxBytes int64
}

// Dirs are the folders the index covers.
func (x *Index) Dirs() []string { return slices.Clone(x.roots) }

// File is what the index keeps of one log.
type File struct {
	path      string
	container string // the project folder, shown beside each name
	mod       time.Time
	ino       uint64
	size      int64 // bytes indexed: up to the end of the last complete line
	lines     int   // lines indexed
	names     []byte
	syms      []sym
	title     string              // the log's first prompt (SymbolName's cut)
	first     time.Time           // the instant of the log's first prompt with a timestamp (zero: none)
	date      string              // its local day, "2026-02-01": made from first, never stored
	seen      map[string]struct{} // kind and name of each symbol: one per distinct pair, the first
	over      bool                // past MaxBytes: not read, no symbols (size is the file's; never cached)
}

// sym is one symbol: its name is names[off:off+n].
type sym struct {
	off  uint32
	n    uint8
	kind uint8
	line uint32
}

// Roots reads the folders the index covers from initialize's params: for each workspace folder
// W, W/.claude/projects; W/projects when W is a `.claude` folder or the config folder
// ($CLAUDE_CONFIG_DIR); W itself when it is, or lies under, a projects folder of either. A window
// with none of these (an ordinary repository, or no folder) covers the history the session
// browser lists: the config folder's projects ($CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects), so that Ctrl+T finds what the browser shows.
func Roots(params []byte) []string {
	var p struct {
		RootURI          string `json:"rootUri"`
		RootPath         string `json:"rootPath"`
		WorkspaceFolders []struct {
			URI string `json:"uri"`
		} `json:"workspaceFolders"`
	}
	var dirs []string
	if unmarshal(params, &p) == nil {
		for _, f := range p.WorkspaceFolders {
			if d, ok := fileuri.ToPath(f.URI); ok {
				dirs = append(dirs, d)
			}
		}
		if len(dirs) == 0 {
			if d, ok := fileuri.ToPath(p.RootURI); ok {
				dirs = append(dirs, d)
			} else if p.RootPath != "" {
				dirs = append(dirs, p.RootPath)
			}
		}
	}
	var roots []string
	add := func(d string) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && !slices.Contains(roots, d) {
			roots = append(roots, d)
		}
	}
	hist, _ := history.DefaultDir() // the config folder's projects
	for _, d := range dirs {
		d = filepath.Clean(d)
		switch {
		case underProjects(d) || hist != "" && within(d, hist):
			add(d)
		case filepath.Base(d) == ".claude" || hist != "" && d == filepath.Dir(hist):
			add(filepath.Join(d, "projects"))
		default:
			add(filepath.Join(d, ".claude", "projects"))
		}
	}
	if len(roots) == 0 && hist != "" {
		add(hist)
	}
	return roots
}

// underProjects reports whether d is a .claude/projects folder or inside one.
func underProjects(d string) bool {
	for ; ; d = filepath.Dir(d) {
		if filepath.Base(d) == "projects" && filepath.Base(filepath.Dir(d)) == ".claude" {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// within reports whether d is dir or inside it.
func within(d, dir string) bool {
	rel, err := filepath.Rel(dir, d)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// New returns an index of the logs under roots (Roots), looking at them every poll once built;
// begin starts the report of the first build's progress.
func New(roots []string, poll time.Duration, log *zap.Logger, begin func(ctx context.Context, title string, total int64) Progress) *Index {
	return &Index{log: log, roots: roots, poll: poll, begin: begin, files: map[string]*File{}}
}

// Run builds the index, then keeps it current until ctx ends. Called once, on its own goroutine.
func (x *Index) Run(ctx context.Context) {
	if len(x.roots) == 0 {
		return
	}
	x.build(ctx)
	t := time.NewTicker(x.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			x.refresh()
		}
	}
}

// build indexes every log under the roots, reporting progress, on up to two cores.
func (x *Index) build(ctx context.Context) {
	files, _, errs := history.Files(x.roots)
	for _, e := range errs {
		x.log.Info("workspace symbols: a folder or log is skipped", zap.Error(e))
	}
	var total int64
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	cached, stamps, all := x.fromCache(files)
	read := make([]*File, len(files))
	var fromCache int64
	for _, f := range cached {
		if f != nil {
			x.put(f)
			fromCache += f.size
		}
	}
	progress := x.begin(ctx, "Indexing sessions", total)
	start := time.Now()
	var done atomic.Int64
	done.Store(fromCache)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(poolSize, runtime.GOMAXPROCS(0)); w++ {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				if cached[i] != nil {
					continue
				}
				if f := x.indexFile(files[i], nil); f != nil {
					x.put(f)
					read[i] = f
					progress.Report(done.Add(f.size))
				}
			}
		})
	}
	wg.Wait()
	if ctx.Err() == nil {
		x.toCache(files, read, stamps, all)
	}
	x.log.Info("workspace symbols indexed", zap.Int("files", len(files)), zap.Int64("bytes", total), zap.Duration("took", time.Since(start)))
	progress.End(fmt.Sprintf("%d logs", len(files)))
}

// File returns what the index holds of a log (nil: nothing).
func (x *Index) File(path string) *File {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.files[path]
}

func (x *Index) put(f *File) {
	x.mu.Lock()
	x.files[f.path] = f
	x.mu.Unlock()
}

// refresh looks at the folders again: new logs are indexed, grown ones get their new lines, shrunk
// or replaced ones are indexed again, vanished ones dropped.
func (x *Index) refresh() {
	files, _, _ := history.Files(x.roots)
	seen := make(map[string]bool, len(files))
	changed := false
	defer func() {
		if changed && x.OnChange != nil {
			x.OnChange()
		}
	}()
	for _, p := range files {
		seen[p] = true
		x.mu.RLock()
		old := x.files[p]
		x.mu.RUnlock()
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if old != nil && fi.ModTime().Equal(old.mod) && fi.Size() == old.size {
			continue
		}
		changed = changed || old == nil || !fi.ModTime().Equal(old.mod)
		if old != nil && old.size > 0 && old.ino != 0 && fileIno(fi) == old.ino && fi.Size() >= old.size {
			if f := x.indexFile(p, old); f != nil {
				x.put(f)
			}
			continue
		}
		if f := x.indexFile(p, nil); f != nil {
			x.put(f)
		}
	}
	x.mu.Lock()
	for p := range x.files {
		if !seen[p] {
			delete(x.files, p)
			changed = true
		}
	}
	x.mu.Unlock()
}

// indexFile reads a log's symbols: all of it (old nil), or only the bytes after old's end (an
// append), returning a new wsFile (old is never changed: queries may be reading it). A log that
// cannot be read, or shrinks while it is read, is skipped; one past MaxBytes is not read: its File
// holds no symbol (over), so that the next look sees it unchanged.
func (x *Index) indexFile(path string, old *File) *File {
	fh, err := layout.Open(path, filepath.Dir(path))
	if err != nil {
		return nil
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil
	}
	f := &File{path: path, container: textsafe.Printable(projectOf(path)), mod: fi.ModTime(), ino: fileIno(fi)}
	if x.overLimit(fi.Size()) {
		f.size, f.over = fi.Size(), true
		return f
	}
	if old != nil && old.over { // back under the limit: read whole
		old = nil
	}
	var data []byte
	if old != nil {
		// Only the appended bytes are read. The new symbols go after old's, in the room its slices
		// have: queries reading old see only its length, and one goroutine writes (run, then refresh).
		f.size, f.lines = old.size, old.lines
		f.names, f.syms = old.names, old.syms
		f.title, f.seen, f.first, f.date = old.title, old.seen, old.first, old.date // one writer: the map goes on with the new file
		data = make([]byte, fi.Size()-old.size+1)
		if _, err := fh.ReadAt(data, old.size-1); err != nil && err != io.EOF {
			return nil
		}
		if data[0] != '\n' { // not where a line ended: rewritten, not appended to
			return x.indexFile(path, nil)
		}
		data = data[1:]
	} else {
		m, err := layout.MapFile(path, filepath.Dir(path))
		if err != nil {
			return nil
		}
		defer m.Close()
		if x.overLimit(int64(len(m.Data))) { // grew past the limit since the look above
			f.size, f.over = int64(len(m.Data)), true
			return f
		}
		data = m.Data
	}
	if layout.Guard(func() { f.add(data) }) != nil {
		return nil
	}
	return f
}

// overLimit reports whether a log of size bytes is past MaxBytes.
func (x *Index) overLimit(size int64) bool { return x.MaxBytes > 0 && size > x.MaxBytes }

// add indexes the complete lines of data, which follow what f holds.
func (f *File) add(data []byte) { f.addLines(data, symbolLines) }

// addLines is add with the filter that blanks the lines that cannot make a symbol (a test passes
// none, to hold symbolLines to it).
func (f *File) addLines(data []byte, filter func([]byte) []byte) {
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	if len(data) == 0 {
		return
	}
	f.size += int64(len(data))
	sf := session.NewFile(f.path, filter(data))
	base := f.lines
	f.lines += sf.LineCount()
	sf.Recs(func(rec *session.Rec) bool {
		if rec.LineErr() != nil {
			return true
		}
		switch rec.Type {
		case "user":
			if classify.User(rec).Typed() {
				// Redacted, then cut (docs/spec.md §15): the index, and any cache of it, holds no
				// secret, whatever ccdag.redact says.
				p, raw := classify.PromptRaw(rec, 600)
				name := describe.SymbolName(secrets.RedactCut(raw, p))
				if f.title == "" {
					f.title = name // the session's title in every symbol's container
				}
				if f.first.IsZero() {
					f.first, f.date = instant(rec.Timestamp(rec.LineBytes()))
				}
				f.sym(name, Turn, base+rec.Line)
			}
		case "assistant":
			for i := range rec.D().Blocks {
				bl := &rec.D().Blocks[i]
				if bl.Kind != jsonl.BlockToolUse {
					continue
				}
				name := bl.Name
				if name == "" {
					name = "tool"
				}
				if session.IsAgentTool(bl.Name) {
					f.sym(spawnName(rec, bl), Spawn, base+rec.Line)
				} else {
					f.sym(describe.ToolSymbolNameRedacted(rec, bl, secrets.RedactCut), ToolCall, base+rec.Line)
				}
			}
		}
		return true
	})
}

// symbolLines returns data with the lines that cannot make a symbol left empty (line numbers
// kept). A symbol comes from a tool call (a line holding the value "tool_use") or a person's prompt
// (a user record: a line holding "user", the type's value, and not "tool_result", the type of the
// results that hold most of a log's bytes). Assistant text and thinking, system, progress and
// snapshot lines are left out too. Quotes inside a string are escaped, so log text cannot make a
// line look like a call or a prompt that is not one, and the test never drops one that is
// (TestSymbolLinesDropNoSymbol); one pass over a line finds every `"tool_` in it.
func symbolLines(data []byte) []byte {
	out := make([]byte, 0, len(data)/8)
	for off := 0; off < len(data); {
		end := off + bytes.IndexByte(data[off:], '\n') + 1
		line := data[off:end]
		off = end
		use, result := false, false
		for rest := line; !use; {
			k := bytes.Index(rest, toolKey)
			if k < 0 {
				break
			}
			rest = rest[k+len(toolKey):]
			use = bytes.HasPrefix(rest, []byte(`use"`))
			result = result || bytes.HasPrefix(rest, []byte(`result"`))
		}
		if use || !result && bytes.Contains(line, []byte(`"user"`)) {
			out = append(out, line...)
		} else {
			out = append(out, '\n')
		}
	}
	return out
}

var toolKey = []byte(`"tool_`)

// spawnName names a sub-agent spawn by the agent's type and the description it was given.
func spawnName(rec *session.Rec, bl *jsonl.Block) string {
	var in struct {
		SubagentType string `json:"subagent_type"`
		Description  string `json:"description"`
	}
	if bl.InputSpan.Valid() {
		_ = unmarshal(rec.Bytes(bl.InputSpan), &in)
	}
	who := secrets.RedactString(in.SubagentType)
	if who == "" {
		who = bl.Name
	}
	in.Description = secrets.RedactString(in.Description)
	if in.Description == "" {
		return describe.SymbolName("⇒ " + who)
	}
	return describe.SymbolName("⇒ " + who + ": " + in.Description)
}

func (f *File) sym(name string, kind Kind, line int) {
	if len(name) > 255 { // SymbolName cuts at 80 characters; a name of wide characters can pass 255 bytes
		cut := 255
		for !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	// One symbol per distinct (kind, name) of a log: the first; the rest fold into it (a screen of
	// identical TodoWrite rows buried the call people looked for).
	if f.seen == nil {
		f.seen = map[string]struct{}{}
	}
	key := string(rune('0'+kind)) + name
	if _, dup := f.seen[key]; dup {
		return
	}
	f.seen[key] = struct{}{}
	f.syms = append(f.syms, sym{off: uint32(len(f.names)), n: uint8(len(name)), kind: uint8(kind), line: uint32(line)})
	f.names = append(f.names, name...)
}

// containerAt is a symbol's container: "project · session title · date · L<line>" (1-based),
// so that every editor's symbol list says where a name is, and when (of two sessions with the
// same first prompt, which one).
func (f *File) containerAt(line uint32) string {
	c := f.container
	if f.title != "" {
		c += " · " + f.title
	}
	if f.date != "" {
		c += " · " + f.date
	}
	return c + " · L" + strconv.Itoa(int(line)+1)
}

// instant reads an ISO 8601 timestamp: the instant and its local day (zero and "" when it is not one).
func instant(ts string) (time.Time, string) {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}, ""
	}
	return t, t.Local().Format("2006-01-02")
}

// fileNamed reports whether a tool call's name (tool and argument: "Read src/…/roadmap.py") is
// on a file named exactly as one of the query's words names one (its last path element; case
// aside): "roadmap.py" is, "objective_render_roadmap.py" merely holds it.
func fileNamed(name []byte, words []string) bool {
	i := bytes.LastIndexAny(name, " /\\")
	base := string(bytes.ToLower(name[i+1:]))
	for _, w := range words {
		if j := strings.LastIndexAny(w, "/\\"); j >= 0 {
			w = w[j+1:]
		}
		if w != "" && w == base {
			return true
		}
	}
	return false
}

// namesPath reports whether a query names a file path (a slash, or a file name with an
// extension): its tool calls then come first.
func namesPath(q string) bool {
	if strings.ContainsAny(q, `/\`) {
		return true
	}
	for _, w := range strings.Fields(q) {
		if i := strings.LastIndexByte(w, '.'); i > 0 && i < len(w)-1 {
			return true
		}
	}
	return false
}

// projectOf names the project folder of a log: the folder under projects/ holding it.
func projectOf(path string) string {
	for d := filepath.Dir(path); filepath.Dir(d) != d; d = filepath.Dir(d) {
		if filepath.Base(filepath.Dir(d)) == "projects" {
			return filepath.Base(d)
		}
	}
	return filepath.Base(filepath.Dir(path))
}

// Query returns the symbols whose names hold every word of q (case-insensitive), newest logs first,
// at most limit.
func (x *Index) Query(q string, limit int) []Symbol {
	words := strings.Fields(strings.ToLower(q))
	ascii := true
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			ascii = ascii && w[i] < utf8.RuneSelf
		}
	}
	x.mu.RLock()
	files := make([]*File, 0, len(x.files))
	for _, f := range x.files {
		if len(f.syms) > 0 {
			files = append(files, f)
		}
	}
	x.mu.RUnlock()
	slices.SortFunc(files, func(a, b *File) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return cmp.Compare(a.path, b.path)
	})
	// A query naming a path ranks the tool calls on a file named as it first, then the other tool
	// calls on it (Read, Edit, ...), then the rest, newest first within each: each rank keeps up to
	// limit, and the search goes on past limit symbols until the first rank is full, so a call on
	// the very file in an older log is not lost behind newer ones merely holding its name.
	byPath := namesPath(q)
	var ranks [3][]Symbol
	out := []Symbol{}
	full := func() bool {
		if byPath {
			return len(ranks[0]) >= limit
		}
		return len(out) >= limit
	}
	var low []byte
	for _, f := range files {
		if full() {
			break
		}
		emit := func(s sym) {
			name := f.names[s.off : s.off+uint32(s.n)]
			sy := Symbol{Name: string(name), Kind: Kind(s.kind), Path: f.path, Container: f.containerAt(s.line), Line: s.line}
			if !byPath {
				out = append(out, sy)
				return
			}
			r := 2
			if sy.Kind == ToolCall {
				r = 1
				if fileNamed(name, words) {
					r = 0
				}
			}
			if len(ranks[r]) < limit {
				ranks[r] = append(ranks[r], sy)
			}
		}
		switch {
		case len(words) == 0: // no path named
			for _, s := range f.syms[:min(len(f.syms), limit-len(out))] {
				emit(s)
			}
		case ascii:
			// The names lower-cased at once; the longest word found with bytes.Index, its symbol
			// located by binary search, the other words checked in that name.
			low = asciiLower(low[:0], f.names)
			anchor := slices.MaxFunc(words, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
			for pos := 0; !full(); {
				k := bytes.Index(low[pos:], []byte(anchor))
				if k < 0 {
					break
				}
				i, _ := slices.BinarySearchFunc(f.syms, uint32(pos+k), func(s sym, off uint32) int {
					if off < s.off {
						return 1
					}
					if off >= s.off+uint32(s.n) {
						return -1
					}
					return 0
				})
				s := f.syms[i]
				name := low[s.off : s.off+uint32(s.n)]
				if holdsAll(name, words) && uint32(pos+k)+uint32(len(anchor)) <= s.off+uint32(s.n) {
					emit(s)
				}
				pos = int(s.off + uint32(s.n))
			}
		default:
			// The names lower-cased at once; where that changed byte lengths (rare letters), one by one.
			low = append(low[:0], bytes.ToLower(f.names)...)
			same := len(low) == len(f.names)
			for _, s := range f.syms {
				if full() {
					break
				}
				var name []byte
				if same {
					name = low[s.off : s.off+uint32(s.n)]
				} else {
					name = bytes.ToLower(f.names[s.off : s.off+uint32(s.n)])
				}
				if holdsAll(name, words) {
					emit(s)
				}
			}
		}
	}
	if byPath {
		out = slices.Concat(ranks[0], ranks[1], ranks[2])
		out = out[:min(len(out), limit)]
	}
	return out
}

func holdsAll(name []byte, words []string) bool {
	for _, w := range words {
		if !bytes.Contains(name, []byte(w)) {
			return false
		}
	}
	return true
}

func asciiLower(dst, src []byte) []byte {
	dst = append(dst, src...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// Lines is how many lines of the log the index has read; Len how many symbols it holds of it.
func (f *File) Lines() int { return f.lines }

// Len is how many symbols the index holds of the log.
func (f *File) Len() int { return len(f.syms) }

// unmarshal decodes JSON; a decoder panic on hostile input becomes an error.
func unmarshal(b []byte, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("cannot decode: %v", p)
		}
	}()
	return json.Unmarshal(b, v)
}
