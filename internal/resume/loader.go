package resume

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/layout"
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
	m map[string]newestEntry
}

type newestEntry struct {
	at time.Time
	v  string
}

// newestTTL: a long-running server sees a new Claude Code version within this long.
const newestTTL = 30 * time.Second

// NewestVersion returns the newest `version` in the ends of the main logs under config's
// projects folder ("" when none), read once per newestTTL. Sub-agent logs are not read: they
// carry their main log's version.
func NewestVersion(config string) string { return NewestVersionWith(config, tailVersion) }

// NewestVersionWith is NewestVersion reading each log's version with tail (TailVersion, or what a
// cache of it says: internal/catalog), and remembering the answer as NewestVersion does.
func NewestVersionWith(config string, tail func(path, root string) string) string {
	if config == "" {
		return ""
	}
	newest.Lock()
	if e, ok := newest.m[config]; ok && time.Since(e.at) < newestTTL {
		newest.Unlock()
		return e.v
	}
	newest.Unlock()
	best := ""
	projects := filepath.Join(config, "projects")
	dirs, _ := os.ReadDir(projects)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(projects, d.Name()))
		for _, f := range files {
			if !f.Type().IsRegular() || !strings.HasSuffix(f.Name(), ".jsonl") {
				continue
			}
			if v := tail(filepath.Join(projects, d.Name(), f.Name()), filepath.Join(projects, d.Name())); newer(v, best) {
				best = v
			}
		}
	}
	newest.Lock()
	if newest.m == nil {
		newest.m = map[string]newestEntry{}
	}
	newest.m[config] = newestEntry{at: time.Now(), v: best}
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

// TailVersion is the newest version named in the last 64 KB of a log: what NewestVersion reads of
// each.
func TailVersion(path, root string) string { return tailVersion(path, root) }

// tailVersion returns the newest version named in the last tailBytes of a log. It opens through
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
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return ""
	}
	return versionIn(b)
}

var versionKey = []byte(`"version":"`)

// versionIn returns the newest version value in b (`"version":"x.y.z"`, as Claude Code writes it).
func versionIn(b []byte) string {
	best := ""
	for {
		k := bytes.Index(b, versionKey)
		if k < 0 {
			return best
		}
		start := k + len(versionKey) - 1
		end, err := jsonscan.StringEnd(b, start)
		if err != nil {
			return best
		}
		if v := string(b[start+1 : end-1]); len(v) < 32 && newer(v, best) {
			best = v
		}
		b = b[end:]
	}
}

// LoaderOf decides the loader for a main log whose own version is own: the setting when given,
// else the newest version under the log's config folder when newer than its own, else its own.
func LoaderOf(logPath, own, setting string) Loader {
	if setting != "" {
		return Loader{Version: setting, From: FromSetting}
	}
	if v := NewestVersion(ConfigDir(logPath)); v != "" && newer(v, own) {
		return Loader{Version: v, From: FromNewest}
	}
	return Loader{Version: own, From: FromLog}
}
