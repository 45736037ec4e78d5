package retention

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	for _, c := range []struct {
		settings string // "" : no file
		days     int
		set      bool
		problem  string
	}{
		{"", 30, false, ""},
		{`{}`, 30, false, ""},
		{`{"cleanupPeriodDays": 7}`, 7, true, ""},
		{`{"cleanupPeriodDays": 0}`, 0, true, ""},
		{`{"cleanupPeriodDays": 36500}`, 36500, true, ""},
		{`{"cleanupPeriodDays": 99999}`, 30, false, "years"},
		{`{"cleanupPeriodDays": -3}`, 30, false, "negative"},
		{`{"cleanupPeriodDays": 1e300}`, 30, false, "years"},
		{`{"cleanupPeriodDays": 2.5}`, 30, false, "whole number"},
		{`{"cleanupPeriodDays": "7"}`, 30, false, "whole number"},
		{`{"cleanupPeriodDays": 7`, 30, false, "not valid JSON"},
		{"\x00garbage", 30, false, "not valid JSON"},
	} {
		dir := t.TempDir()
		if c.settings != "" {
			os.WriteFile(filepath.Join(dir, "settings.json"), []byte(c.settings), 0o644)
		}
		p := Load(dir)
		if p.Days != c.days || p.Set != c.set || (c.problem == "") != (p.Problem == "") || !strings.Contains(p.Problem, c.problem) {
			t.Errorf("%q: %+v", c.settings, p)
		}
	}
}

func TestDeletesAndCovers(t *testing.T) {
	p := Policy{Days: 30}
	mod := time.Date(2026, 11, 20, 12, 0, 0, 0, time.Local)
	if got := Day(p.Deletes(mod)); got != "2026-12-20" {
		t.Errorf("deletes %s", got)
	}
	if !p.Within(mod, mod.AddDate(0, 0, 24), 7) || p.Within(mod, mod.AddDate(0, 0, 22), 7) {
		t.Error("within 7 days")
	}
	dir := t.TempDir()
	if !Covers(dir, filepath.Join(dir, "projects", "p", "s.jsonl")) || Covers(dir, filepath.Join(dir, "archive", "s.jsonl")) || Covers(dir, filepath.Join(dir, "projects-old", "s.jsonl")) {
		t.Error("covers")
	}
	// A path below the folder as it is takes a way of its own (no Abs, no Rel): the same answers.
	root := filepath.Join(dir, "projects")
	sep := string(filepath.Separator)
	for _, rest := range []string{"p/s.jsonl", "s.jsonl", "../archive/s.jsonl", "p/../../x.jsonl", "./p/s.jsonl", "p/./s.jsonl", "p//s.jsonl",
		"p/", "..", ".", "", "p/..", "p/...", "...", "..x/s.jsonl", "p/s..jsonl"} {
		p := root + sep + filepath.FromSlash(rest)
		abs, _ := filepath.Abs(p)
		rel, err := filepath.Rel(root, abs)
		want := err == nil && rel != ".." && !filepath.IsAbs(rel) && !strings.HasPrefix(rel, ".."+sep)
		if got := Covers(dir, p); got != want {
			t.Errorf("Covers(%q) = %v, want %v", p, got, want)
		}
	}
}
