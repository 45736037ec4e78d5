// Package history finds every session under folders of session logs (`~/.claude/projects`), newest
// first, for `ccdag sessions`, `ccdag search` and the workspace symbol index (docs/spec.md §8).
// Symbolic links are not followed out of the folders named: a link inside them is skipped, not read.
// An unreadable folder or file is reported and skipped.
package history

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccdag/ccdag/internal/fspath"
	"github.com/ccdag/ccdag/internal/layout"
)

// Session is one session found on disk.
type Session struct {
	layout.Found
	Mod time.Time // the newest modification time of its logs
	*walked
}

// walked is what the walk that found the sessions saw, shared by them: each log's lstat and each
// folder's entries.
type walked struct {
	infos map[string]fs.FileInfo
	dirs  map[string]*listing
}

// listing is a folder's entries as the walk saw them, in os.ReadDir's order; whole is false when
// the folder could not be read to its end.
type listing struct {
	entries []fs.DirEntry
	whole   bool
}

// Info is what the walk that found the session saw of the log at path (os.Lstat's answer), for any
// log that walk found (the sessions of one Sessions call share it): a caller stamping the logs
// (internal/cache) needs no second lstat of each. false: not seen by the walk (look yourself).
func (s Session) Info(path string) (fs.FileInfo, bool) {
	if s.walked == nil {
		return nil, false
	}
	fi, ok := s.infos[path]
	return fi, ok
}

// Listed is the entries of the folder dir as the walk that found the session listed it (every
// folder under the folders walked; a link inside them is an entry, not followed), sorted by name;
// false: not listed whole by that walk (list it yourself). A layout.Listed.
func (s Session) Listed(dir string) ([]fs.DirEntry, bool) {
	if s.walked == nil {
		return nil, false
	}
	l, ok := s.dirs[dir]
	if !ok || !l.whole {
		return nil, false
	}
	return l.entries, true
}

// DefaultDir is where Claude Code keeps its logs: $CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects (%USERPROFILE%\.claude\projects on Windows).
func DefaultDir() (string, error) {
	d := fspath.Host.ConfigDir(os.Getenv)
	if d == "" {
		return "", errors.New("no folder named and no home folder ($HOME, or %USERPROFILE% on Windows, is not set)")
	}
	return filepath.Join(d, "projects"), nil
}

// Files returns the .jsonl files under roots (a root may also be one log). Folders are walked
// without following links; what cannot be read is returned in errs and skipped.
func Files(roots []string) (files []string, mods map[string]time.Time, errs []error) {
	files, w, errs := walk(roots)
	mods = make(map[string]time.Time, len(files))
	for _, f := range files {
		mods[f] = w.infos[f].ModTime()
	}
	return files, mods, errs
}

// walk is Files with the walk's lstat of each log (a named log's is os.Stat's: it may be a link)
// and the entries of each folder it listed.
func walk(roots []string) (files []string, w *walked, errs []error) {
	w = &walked{infos: map[string]fs.FileInfo{}, dirs: map[string]*listing{}}
	infos := w.infos
	for _, root := range roots {
		abs, err := filepath.Abs(root)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fi, err := os.Stat(abs) // the folder named may itself be a link: the person named it
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot read %s: %w", root, unwrap(err)))
			continue
		}
		if !fi.IsDir() {
			if !fi.Mode().IsRegular() {
				errs = append(errs, fmt.Errorf("cannot read %s: not a regular file", root))
				continue
			}
			files = append(files, abs)
			infos[abs] = fi
			continue
		}
		files, errs = walkDir(root, abs, w, files, errs)
	}
	return files, w, errs
}

// walkNamed walks the folder abs (root made absolute; layout.WalkNamed: through it when it is a
// link) into w, adding its logs to files and what it could not read to errs: the portable walk
// (walkDir, but on Linux).
func walkNamed(root, abs string, w *walked, files []string, errs []error) ([]string, []error) {
	infos := w.infos
	err := layout.WalkNamed(abs, func(p string, d fs.DirEntry, err error) error { // the folder named may be a link
		// WalkDir calls for a folder, then (when it cannot be read whole) again with the
		// error, then for each of its entries in os.ReadDir's order.
		if p != abs && err == nil {
			if l := w.dirs[parent(p, d.Name())]; l != nil {
				l.entries = append(l.entries, d)
			}
		}
		if d != nil && d.IsDir() {
			if err == nil { // anew: roots inside each other walk a folder twice
				w.dirs[p] = &listing{whole: true}
			} else if l := w.dirs[p]; l != nil {
				l.whole = false
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot read %s: %w", p, unwrap(err)))
			if d != nil && d.IsDir() && p != abs {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(p, ".jsonl") {
			return nil // links (to files or folders), devices and other files are not read
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished since the folder was listed
		}
		files = append(files, p)
		infos[p] = info
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("cannot read %s: %w", root, unwrap(err)))
	}
	return files, errs
}

// parent is filepath.Dir(p) for p = filepath.Join(dir, name) as a walk makes it, without
// cleaning the path again.
func parent(p, name string) string {
	if d := p[:len(p)-len(name)]; len(d) > 1 && os.IsPathSeparator(d[len(d)-1]) {
		if t := d[:len(d)-1]; t != filepath.VolumeName(t) {
			return t
		}
	}
	return filepath.Dir(p) // a root: "/", `C:\`
}

// Sessions groups the logs under roots into sessions, newest first (by the newest log of each;
// ties by path).
//
// A log named as a root brings in its whole session (its sub-agent logs, found by layout.Discover),
// as the folder holding it does: `export FILE` sends what `export DIR` sends of it.
func Sessions(roots []string) ([]Session, []error) {
	files, w, errs := walk(roots)
	infos := w.infos
	mods := make(map[string]time.Time, len(files))
	for _, f := range files {
		mods[f] = infos[f].ModTime()
	}
	named := map[string]bool{}
	for _, root := range roots {
		if abs, err := filepath.Abs(root); err == nil {
			if _, ok := infos[abs]; ok {
				named[abs] = true
				delete(infos, abs) // os.Stat's (through a link): not the log's own lstat
			}
		}
	}
	// Main logs first, so their sub-agent logs are claimed by them rather than discovered again;
	// each kind by path.
	var agents []string
	mains := make([]string, 0, len(files))
	for _, f := range files {
		if _, isAgent := layout.AgentIDFromName(f); isAgent {
			agents = append(agents, f)
		} else {
			mains = append(mains, f)
		}
	}
	slices.Sort(mains)
	slices.Sort(agents)
	files = append(mains, agents...)
	// Only a main log with an entry named agent-*.jsonl beside it (flat sub-agent logs) or one
	// named <id> (2.1.2+: <id>/subagents/) needs layout.Discover; of any type, as Discover follows
	// a link that stays in the folder. The walk's listings say (1 000 sessions in 20 folders: no
	// look at all for most).
	ls := Session{walked: w}.Listed
	flat := map[string]bool{}
	mayHaveAgents := func(f string) bool {
		dir := filepath.Dir(f)
		es, ok := ls(dir)
		if !ok {
			return true
		}
		has, known := flat[dir]
		if !known {
			has = slices.ContainsFunc(es, func(e fs.DirEntry) bool { _, ok := layout.AgentIDFromName(e.Name()); return ok })
			flat[dir] = has
		}
		id := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		_, below := slices.BinarySearchFunc(es, id, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		return has || below
	}
	seen := make(map[string]bool, len(files))
	var out []Session
	for _, f := range files {
		if seen[f] {
			continue
		}
		var found layout.Found
		var err error
		_, isAgent := layout.AgentIDFromName(f)
		if !isAgent && !named[f] && !mayHaveAgents(f) {
			found = layout.Found{ID: strings.TrimSuffix(filepath.Base(f), ".jsonl"), Dir: filepath.Dir(f), Main: f, Named: f}
		} else if found, err = layout.DiscoverListed(f, ls); err != nil {
			errs = append(errs, err)
			continue
		}
		if found.Main == "" && len(found.Agents) == 0 {
			found.Agents = []layout.Agent{{Path: f}}
		}
		s := Session{Found: found, Mod: mods[f], walked: w}
		for _, p := range found.Paths() {
			seen[p] = true
			if m, ok := mods[p]; ok && m.After(s.Mod) {
				s.Mod = m
			}
		}
		seen[f] = true
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Session) int { // no two sessions share a log: a total order
		if c := b.Mod.Compare(a.Mod); c != 0 {
			return c
		}
		return cmp.Compare(a.First(), b.First())
	})
	return out, errs
}

func unwrap(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// Under reports whether path lies inside one of roots (or is one of them).
func Under(path string, roots []string) bool {
	for _, r := range roots {
		r, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
