package resume

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ccdag/ccdag/internal/fspath"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/parallel"
)

// Loader is the Claude Code assumed to resume a session (docs/spec.md §13): people resume old
// sessions with the Claude Code installed today, so the rules are those of the newest version
// found in any log under the same config folder, unless a setting or flag names one.
type Loader struct {
	Version string `json:"version"`
	From    string `json:"from"` // FromNewest, FromSetting or FromLog
}

// Where a loader's version comes from.
const (
	FromNewest  = "newest log"
	FromSetting = "setting"
	FromLog     = "this log"
	// A log outside any config folder (docs/spec.md §15): the Claude Code on PATH, else the newest
	// version under the default config folder.
	FromInstalled     = "installed"
	FromDefaultConfig = "newest log in the default config folder"
)

// Words names the loader in plain words, for hovers and tooltips.
func (l Loader) Words() string {
	if l.Version == "" {
		return "as today's Claude Code will load it"
	}
	return "as Claude Code " + l.Version + " will load it"
}

// Why says where the version comes from, in plain words.
func (l Loader) Why() string {
	switch l.From {
	case FromSetting:
		return "set by ccdag.claudeVersion / --claude-version"
	case FromNewest:
		return "the newest version in the logs under this config folder"
	case FromInstalled:
		return "the installed Claude Code (claude --version)"
	case FromDefaultConfig:
		return "the newest version in the logs under the default config folder"
	}
	if l.Version == "" {
		return "no log names a version"
	}
	return "this log's own version"
}

// ConfigDir returns the config folder of a main log written as Claude Code writes them
// (CONFIG/projects/<project>/<sessionId>.jsonl), or "" for a log kept anywhere else.
func ConfigDir(logPath string) string {
	projects := filepath.Dir(filepath.Dir(logPath))
	if filepath.Base(projects) != "projects" {
		return ""
	}
	return filepath.Dir(projects)
}

// tailBytes is how much of a log's end is read for its newest version: a record carries one in
// its first few hundred bytes, and a line of megabytes at the end only hides that log's version.
const tailBytes = 64 << 10

var newest struct {
	sync.Mutex
	m map[string]*newestEntry
}

// newestEntry is one config folder's newest version; while one caller reads the logs for it,
// the others wait for its answer instead of reading them too (check's workers all ask at once).
type newestEntry struct {
	at   time.Time
	v    string
	done chan struct{} // closed once v is set
}

// waitingHook is called, in tests, when a caller waits for another's reading.
var waitingHook func()

// newestTTL: a long-running server sees a new Claude Code version within this long.
const newestTTL = 30 * time.Second

// NewestVersion returns the newest `version` in the ends of the main logs under config's
// projects folder ("" when none), read once per newestTTL. Sub-agent logs are not read: they
// carry their main log's version.
func NewestVersion(config string) string { return NewestVersionWith(config, nil, ReadTails) }

// Log is a main log under a config folder's projects folder, and that project folder.
type Log struct{ Path, Dir string }

// ReadTails returns the logs' versions (the newest version named in the last 64 KB of each, as
// NewestVersion reads them), read on every core: on a history not cached yet, every log's tail is
// read before any session's row can be computed.
func ReadTails(logs []Log) []string {
	vs := make([]string, len(logs))
	parallel.Each(len(logs), func(i int) { vs[i] = tailVersion(logs[i].Path, logs[i].Dir) })
	return vs
}

// NewestVersionWith is NewestVersion reading the logs' versions with versions (ReadTails, or what
// a cache of them says and ReadTails for the rest: internal/catalog), one answer a log in order,
// and the folders' entries from ls where it has them (a walk that listed them already:
// internal/history; nil: listed here), and remembering the answer as NewestVersion does.
func NewestVersionWith(config string, ls layout.Listed, versions func([]Log) []string) string {
	if config == "" {
		return ""
	}
	newest.Lock()
	if e := newest.m[config]; e != nil {
		select {
		case <-e.done:
			if time.Since(e.at) >= newestTTL {
				break
			}
			newest.Unlock()
			return e.v
		default: // being read
			newest.Unlock()
			if waitingHook != nil {
				waitingHook()
			}
			<-e.done
			return e.v
		}
	}
	e := &newestEntry{done: make(chan struct{})}
	if newest.m == nil {
		newest.m = map[string]*newestEntry{}
	}
	newest.m[config] = e
	newest.Unlock()
	defer close(e.done) // also if versions panics: no caller waits forever
	best := ""
	readDir := func(dir string) []fs.DirEntry {
		if ls != nil {
			if es, ok := ls(dir); ok {
				return es
			}
		}
		es, _ := os.ReadDir(dir)
		return es
	}
	projects := filepath.Join(config, "projects")
	sep := string(filepath.Separator) // names listed are plain: filepath.Join's paths, not cleaned again
	var logs []Log
	for _, d := range readDir(projects) {
		if !d.IsDir() {
			continue
		}
		dir := projects + sep + d.Name()
		for _, f := range readDir(dir) {
			if f.Type().IsRegular() && strings.HasSuffix(f.Name(), ".jsonl") {
				logs = append(logs, Log{dir + sep + f.Name(), dir})
			}
		}
	}
	vs := versions(logs) // weighed in the order listed, as one reader would
	for _, v := range vs {
		if newer(v, best) {
			best = v
		}
	}
	newest.Lock()
	e.at, e.v = time.Now(), best
	newest.Unlock()
	return best
}

func newer(v, than string) bool {
	p, ok := ParseVersion(v)
	if !ok {
		return false
	}
	q, ok := ParseVersion(than)
	return !ok || less(q, p)
}

// tails holds the buffers tailVersion reads into: a cold history reads the tail of every log, and
// a fresh 64 KB each (zeroed, its pages faulted in, collected) cost half the read's CPU
// (BenchmarkTailVersionCorpus, 2 000 rounds: 0.6 s of CPU with the pool, 1.2 s without).
var tails = sync.Pool{New: func() any { return new([tailBytes]byte) }}

// tailVersion returns the newest version of the records in the last tailBytes of a log (each
// record's own "version" field). It opens through
// layout.Open, as every read of a log does (docs/SECURITY.md): a regular file only, no FIFO or link
// out of its project folder swapped in.
func tailVersion(path, root string) string {
	f, err := layout.Open(path, root)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	off := max(st.Size()-tailBytes, 0)
	buf := tails.Get().(*[tailBytes]byte)
	defer tails.Put(buf)
	b := buf[:st.Size()-off]
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return ""
	}
	if off > 0 { // the first line is cut: not a record
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		} else {
			b = nil
		}
	}
	return versionIn(b)
}

var versionTail = []byte(`version"`)

// hasVersionKey reports whether b holds the bytes `"version"`, looked for as `version"` with a
// quote before it: a quote is common in a log, v is not, so bytes.Index stays on its IndexByte path
// (a quote first sent it to its byte-by-byte compare, most of the tail read's time).
func hasVersionKey(b []byte) bool {
	for i := 1; i < len(b); {
		k := bytes.Index(b[i:], versionTail)
		if k < 0 {
			return false
		}
		if b[i+k-1] == '"' {
			return true
		}
		i += k + 1
	}
	return false
}

// versionIn returns the newest version of the records on the lines of b: each line's own
// top-level "version" field, a valid version (ValidVersion). The same bytes anywhere else — a tool's
// input, a file's text, a nested object — are not a version (an MCP tool's input once switched a
// 2.1.19 session to "as Claude Code 999.0.1 will load it").
func versionIn(b []byte) string {
	best := ""
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if !hasVersionKey(line) {
			continue
		}
		if v := RecordVersion(line); v != best && newer(v, best) { // most lines repeat the last
			best = v
		}
	}
	return best
}

// RecordVersion returns the record's own top-level "version" when it is a valid version
// (ValidVersion), else "". Of duplicate keys the last wins, as in encoding/json: a later
// "version" key holding a string replaces the value (one with escapes by "": no version), one
// holding anything else leaves it; a syntax error ends the walk, the value read so far kept.
// Records put "version" before their message, so the walk stops at it unless the bytes
// `"version"` come again after it: only they could be a later key (docs/spec.md §15).
func RecordVersion(line []byte) string {
	v := ""
	jsonscan.ObjectFields(line, 0, func(key []byte, at int) (int, error) {
		if string(key) != "version" || at >= len(line) || line[at] != '"' {
			return -1, nil
		}
		end, escaped, err := jsonscan.String(line, at)
		if err != nil {
			return 0, jsonscan.ErrSyntax
		}
		v = "" // of duplicate keys the last wins
		if !escaped {
			v = string(line[at+1 : end-1])
		}
		if !hasVersionKey(line[end-1:]) { // from the value's closing quote on
			return 0, errLastVersion // no later key can be "version": nothing after changes v
		}
		return end, nil
	})
	if !ValidVersion(v) {
		return ""
	}
	return v
}

// errLastVersion ends RecordVersion's walk at the last "version" key.
var errLastVersion = errors.New("the last version key")

// ValidVersion reports whether v is a version as Claude Code writes one ("2.1.19", "1.0.3-beta.1"):
// three dot-separated numbers, then at most a suffix of letters, digits, '.', '-' and '+', 32 bytes
// at most. Nothing else read from a log or a program is taken as a version (nor printed as one).
func ValidVersion(v string) bool {
	if len(v) == 0 || len(v) > 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' || c == '-' || c == '+') {
			return false
		}
	}
	_, ok := ParseVersion(v)
	return ok && v[0] >= '0' && v[0] <= '9'
}

// LoaderOf decides the loader for a main log whose own version is own: the setting when given;
// for a log under a config folder, the newest version under it when newer than its own, else its
// own; for a log outside any config folder (docs/spec.md §15), the installed Claude Code
// (InstalledVersion), else the newest version under the default config folder, else its own.
func LoaderOf(logPath, own, setting string) Loader {
	if setting != "" {
		return Loader{Version: setting, From: FromSetting}
	}
	if cfg := ConfigDir(logPath); cfg != "" {
		if v := NewestVersion(cfg); v != "" && newer(v, own) {
			return Loader{Version: v, From: FromNewest}
		}
		return Loader{Version: own, From: FromLog}
	}
	if v := InstalledVersion(); v != "" {
		return Loader{Version: v, From: FromInstalled}
	}
	if v := NewestVersion(fspath.Host.ConfigDir(os.Getenv)); v != "" {
		return Loader{Version: v, From: FromDefaultConfig}
	}
	return Loader{Version: own, From: FromLog}
}
