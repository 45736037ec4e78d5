package lsp

import (
	"fmt"
	"os"
	"time"

	"github.com/ccdag/ccdag/internal/describe"
	"github.com/ccdag/ccdag/internal/retention"
	"github.com/ccdag/ccdag/internal/session"
)

// When Claude Code deletes a session (docs/spec.md §11): the hover of a main log's first line, and
// a lens on line 1 within warnDays of it. Only for logs its sweep reaches (under the config folder's
// projects/); settings.json is read when asked (a few hundred bytes), so an edit to it shows at once.

const warnDays = 7

// deletion returns the day Claude Code deletes the log at path and the policy it follows; ok false
// when its sweep does not reach the log.
func deletion(path string) (day time.Time, pol retention.Policy, ok bool) {
	cfg, err := retention.ConfigDir()
	if err != nil || !retention.Covers(cfg, path) {
		return day, pol, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return day, pol, false
	}
	pol = retention.Load(cfg)
	return pol.Deletes(fi.ModTime()), pol, true
}

// deletionText says when; a day that has come is "at its next start (due since …)", as the session
// rows' overdue (a past day alone reads like any date).
func deletionText(day, now time.Time, pol retention.Policy) string {
	s := fmt.Sprintf("Claude Code deletes this session at its first start on or after %s (cleanupPeriodDays %d", retention.Day(day), pol.Days)
	if !day.After(now) {
		s = fmt.Sprintf("Claude Code deletes this session at its next start (due since %s; cleanupPeriodDays %d", retention.Day(day), pol.Days)
	}
	if !pol.Set {
		s += ", its default"
	}
	s += "); `ccdag archive DEST` keeps a copy"
	if pol.Problem != "" {
		s += ". " + pol.Problem
	}
	return s
}

// retentionHover is the deletion note for the hover of a main log's first record.
func (ss *sess) retentionHover(rec *session.Rec) string {
	if rec.File != ss.session.Main() || rec != describe.FirstRec(rec.File) {
		return ""
	}
	day, pol, ok := deletion(rec.File.Path)
	if !ok {
		return ""
	}
	return "\n\n" + deletionText(day, time.Now(), pol) + "."
}

// retentionLens is the warning lens of a main log deleted within warnDays ("" otherwise).
func retentionLens(f *session.File, now time.Time) string {
	day, pol, ok := deletion(f.Path)
	if !ok || !pol.Within(day.AddDate(0, 0, -pol.Days), now, warnDays) {
		return ""
	}
	return "⚠ " + deletionText(day, now, pol)
}
