// Package retention says when Claude Code will delete a session log (docs/spec.md §11): at its
// first start after the log's modification time is older than cleanupPeriodDays (settings.json in
// the config folder; 30 when unset).
package retention

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/ccdag/ccdag/internal/layout"
)

// DefaultDays is Claude Code's period when settings.json does not set one.
const DefaultDays = 30

// MaxDays is the longest period taken as meant; past it (a typo, an overflow) the default is
// assumed and said.
const MaxDays = 100 * 365

// Policy is the retention period in force.
type Policy struct {
	Days     int
	Settings string // the settings.json read ("" when there is none)
	Set      bool   // settings.json sets cleanupPeriodDays (and it is valid)
	// Problem says why the period read could not be used (the default is then in Days); "" when
	// none.
	Problem string
}

// ConfigDir is Claude Code's config folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func ConfigDir() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".claude"), nil
}

// maxSettings bounds the settings file read: it is a few KB; a huge one is not read whole.
const maxSettings = 4 << 20

// Load reads cleanupPeriodDays from dir/settings.json.
func Load(dir string) Policy {
	p := Policy{Days: DefaultDays, Settings: filepath.Join(dir, "settings.json")}
	b, err := readSmall(p.Settings)
	if errors.Is(err, fs.ErrNotExist) {
		p.Settings = ""
		return p
	}
	if err != nil {
		p.Problem = fmt.Sprintf("cannot read %s (%v): Claude Code's default of %d days assumed", p.Settings, err, DefaultDays)
		return p
	}
	var s struct {
		Cleanup json.RawMessage `json:"cleanupPeriodDays"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		p.Problem = fmt.Sprintf("%s is not valid JSON (%v): Claude Code's default of %d days assumed", p.Settings, err, DefaultDays)
		return p
	}
	if s.Cleanup == nil || string(s.Cleanup) == "null" {
		return p
	}
	var days float64
	if err := json.Unmarshal(s.Cleanup, &days); err != nil || days != math.Trunc(days) {
		p.Problem = fmt.Sprintf("%s: cleanupPeriodDays is %s, not a whole number of days: Claude Code's default of %d days assumed", p.Settings, clip(string(s.Cleanup)), DefaultDays)
		return p
	}
	switch {
	case days < 0:
		p.Problem = fmt.Sprintf("%s: cleanupPeriodDays is negative (%g): Claude Code's default of %d days assumed", p.Settings, days, DefaultDays)
	case days > MaxDays:
		p.Problem = fmt.Sprintf("%s: cleanupPeriodDays is %g, more than %d years: Claude Code's default of %d days assumed", p.Settings, days, MaxDays/365, DefaultDays)
	default:
		p.Days, p.Set = int(days), true
	}
	return p
}

// readSmall reads a settings file through layout.Open (docs/spec.md §15): a regular file only, a
// link followed (dotfile managers link settings.json) but to a regular file, opened without
// blocking, so a FIFO put there is refused rather than waited on for ever (os.Open blocked
// `ccdag sessions` until something wrote to it).
func readSmall(path string) ([]byte, error) {
	f, err := layout.Open(path, "")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxSettings {
		return nil, fmt.Errorf("larger than %d MB", maxSettings>>20)
	}
	b := make([]byte, fi.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && n != len(b) {
		return nil, err
	}
	return b[:n], nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Deletes is the first day (local time) on which Claude Code, started, deletes a log last
// modified at mod.
func (p Policy) Deletes(mod time.Time) time.Time {
	return mod.AddDate(0, 0, p.Days)
}

// Day formats a date as docs/spec.md §11 writes it: "2026-12-20".
func Day(t time.Time) string { return t.Local().Format("2006-01-02") }

// Within reports whether a log modified at mod is deleted within days of now (or already due).
func (p Policy) Within(mod, now time.Time, days int) bool {
	return p.Deletes(mod).Before(now.AddDate(0, 0, days))
}

// plain reports whether rel is a path of names, none empty, "." or "..", that cleaning leaves as it is.
func plain(rel string) bool {
	start := 0
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && !os.IsPathSeparator(rel[i]) {
			continue
		}
		if e := rel[start:i]; e == "" || e == "." || e == ".." {
			return false
		}
		start = i + 1
	}
	return true
}

// Covers reports whether Claude Code's sweep reaches path: logs under dir/projects only (an
// archive elsewhere is never deleted by it).
func Covers(dir, path string) bool { return Coverer(dir)(path) }

// Coverer is Covers(dir, ·), its folder made absolute once (a list asks of every session).
func Coverer(dir string) func(path string) bool {
	root, err := filepath.Abs(filepath.Join(dir, "projects"))
	return func(path string) bool {
		if err == nil && len(path) > len(root)+1 && os.IsPathSeparator(path[len(root)]) && path[:len(root)] == root && plain(path[len(root)+1:]) {
			return true // below root as it is: what Abs and Rel say, without cleaning it (a listing asks of every row)
		}
		abs, err2 := filepath.Abs(path)
		if err != nil || err2 != nil {
			return false
		}
		rel, err := filepath.Rel(root, abs)
		return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != ".."+string(filepath.Separator))
	}
}
