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
	Mod   time.Time // the newest modification time of its logs
	infos map[string]fs.FileInfo
}

// Info is what the walk that found the session saw of the log at path (os.Lstat's answer), for any
// log that walk found (the sessions of one Sessions call share it): a caller stamping the logs
// (internal/cache) needs no second lstat of each. false: not seen by the walk (look yourself).
func (s Session) Info(path string) (fs.FileInfo, bool) {
	fi, ok := s.infos[path]
	return fi, ok
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
	files, infos, errs := walk(roots)
	mods = make(map[string]time.Time, len(files))
	for _, f := range files {
		mods[f] = infos[f].ModTime()
	}
	return files, mods, errs
}

// walk is Files with the walk's lstat of each log (a named log's is os.Stat's: it may be a link).
func walk(roots []string) (files []string, infos map[string]fs.FileInfo, errs []error) {
	infos = map[string]fs.FileInfo{}
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
		err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
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
	}
	return files, infos, errs
}

// Sessions groups the logs under roots into sessions, newest first (by the newest log of each;
// ties by path).
//
// A log named as a root brings in its whole session (its sub-agent logs, found by layout.Discover),
// as the folder holding it does: `export FILE` sends what `export DIR` sends of it.
func Sessions(roots []string) ([]Session, []error) {
	files, infos, errs := walk(roots)
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
	// Main logs first, so their sub-agent logs are claimed by them rather than discovered again.
	slices.SortStableFunc(files, func(a, b string) int {
		_, aa := layout.AgentIDFromName(a)
		_, ba := layout.AgentIDFromName(b)
		switch {
		case aa == ba:
			return strings.Compare(a, b)
		case !aa:
			return -1
		}
		return 1
	})
	// Folders holding a file named agent-*.jsonl (flat sub-agent logs) or a file below
	// <dir>/<id>/: only a main log with one of these needs layout.Discover, which lists its folder
	// (1 000 sessions in 20 folders: 1 000 listings of 50 names, most of the time to the first hit).
	flat, below := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		dir := filepath.Dir(f)
		if _, ok := layout.AgentIDFromName(f); ok {
			flat[dir] = true
		}
		for d := dir; !below[d] && filepath.Dir(d) != d; d = filepath.Dir(d) {
			below[d] = true // its ancestors too, once
		}
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
		if dir := filepath.Dir(f); !isAgent && !named[f] && !flat[dir] && !below[strings.TrimSuffix(f, ".jsonl")] {
			found = layout.Found{ID: strings.TrimSuffix(filepath.Base(f), ".jsonl"), Dir: dir, Main: f, Named: f}
		} else if found, err = layout.Discover(f); err != nil {
			errs = append(errs, err)
			continue
		}
		if found.Main == "" && len(found.Agents) == 0 {
			found.Agents = []layout.Agent{{Path: f}}
		}
		s := Session{Found: found, Mod: mods[f], infos: infos}
		for _, p := range found.Paths() {
			seen[p] = true
			if m, ok := mods[p]; ok && m.After(s.Mod) {
				s.Mod = m
			}
		}
		seen[f] = true
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Session) int {
		if c := b.Mod.Compare(a.Mod); c != 0 {
			return c
		}
		return cmp.Compare(a.Paths()[0], b.Paths()[0])
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
