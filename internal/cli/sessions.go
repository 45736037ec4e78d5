package cli

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/retention"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/tokens"
)

// sessionRow is one row of `ccdag sessions` (docs/spec.md §8).
type sessionRow struct {
	ID        string       `json:"id"`
	Path      string       `json:"path"`
	Project   string       `json:"project"`
	Title     string       `json:"title"`
	Start     string       `json:"start"`
	End       string       `json:"end"`
	Records   int          `json:"records"`
	Subagents int          `json:"subagents"`
	Tokens    tokens.Count `json:"tokens"` // sub-agents' logs included
	Cost      costFigures  `json:"cost"`   // sub-agents' logs included
	Findings  findings     `json:"findings"`
	Secrets   int          `json:"secrets"` // secret findings (docs/spec.md §11), in every log of the session
	// Deletes is the day Claude Code deletes the session at its first start (cleanupPeriodDays
	// after the newest log's modification); "" for a log its sweep does not reach (an archive).
	Deletes string         `json:"deletes"`
	Resume  *resume.Result `json:"resume"` // null: nothing in the main log to resume

	mod int64 // the newest log's modification time, for sessions without timestamps
}

// costFigures is a session's cost: what its priced messages cost in US dollars, and how many
// messages were priced and how many were of a model missing from the price table.
type costFigures struct {
	USD      float64 `json:"usd"`
	Priced   int64   `json:"priced"`
	Unpriced int64   `json:"unpriced"`
}

type findings struct {
	Error       int `json:"error"`
	Warning     int `json:"warning"`
	Information int `json:"information"`
	Hint        int `json:"hint"`
}

const titleMax = 80 // bytes of the first prompt shown as a session's title

func runSessions(args []string, env Env) int {
	fset := newFlagSet("sessions", env)
	format := fset.String("format", "text", "output format: text or json")
	priceFile := fset.String("prices", "", "price `FILE` in LiteLLM's format instead of the built-in table")
	dirs, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	if !usePrices(*priceFile, env) {
		return ExitUsage
	}
	if *format != "text" && *format != "json" {
		return usageError(env, fmt.Errorf("unknown --format %q (want text or json)", *format))
	}
	found, code := findSessions(dirs, env)
	if found == nil {
		return code
	}
	rows, errs := sessionRows(found)
	if cfg, err := retention.ConfigDir(); err == nil {
		pol := retention.Load(cfg)
		if pol.Problem != "" {
			fmt.Fprintf(env.Stderr, "ccdag: %s\n", check.Printable(pol.Problem))
		}
		byPath := map[string]history.Session{}
		for _, h := range found {
			byPath[displayPath(h.Paths()[0])] = h
		}
		for i := range rows {
			if h, ok := byPath[rows[i].Path]; ok && retention.Covers(cfg, h.Paths()[0]) {
				rows[i].Deletes = retention.Day(pol.Deletes(h.Mod))
			}
		}
	}
	for _, e := range errs {
		errorf(env.Stderr, "ccdag: %v\n", e)
	}
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	if *format == "json" {
		if rows == nil {
			rows = []sessionRow{}
		}
		b, _ := json.MarshalIndent(struct {
			Sessions []sessionRow `json:"sessions"`
		}{rows}, "", " ")
		out.Write(b)
		out.WriteByte('\n')
	} else {
		tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "START\tEND\tRECORDS\tAGENTS\tTOKENS OUT/IN\tCOST\tFINDINGS\tSECRETS\tRESUME\tDELETES\tPROJECT\tTITLE\tPATH")
		for _, r := range rows {
			cost := r.Tokens.Cost.String()
			if cost == "" {
				cost = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s/%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", shortTime(r.Start), shortTime(r.End), r.Records, r.Subagents,
				strings.ReplaceAll(r.Tokens.OutText(), " ", ""), tokens.Short(r.Tokens.In()), cost, r.Findings, r.Secrets, resumeFigure(r.Resume), cmp.Or(r.Deletes, "-"),
				check.Printable(r.Project), r.Title, check.Printable(r.Path))
		}
		tw.Flush()
	}
	if err := out.Flush(); err != nil {
		errorf(env.Stderr, "ccdag: writing output: %v\n", err)
		return ExitUsage
	}
	if code != ExitOK {
		return code
	}
	if len(errs) > 0 {
		return ExitRead
	}
	return ExitOK
}

func (f findings) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{f.Error, "E"}, {f.Warning, "W"}, {f.Information, "I"}, {f.Hint, "H"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d%s", p.n, p.name))
		}
	}
	if parts == nil {
		return "-"
	}
	return strings.Join(parts, " ")
}

// usePrices makes the table in FILE the one that prices tokens (none named: the built-in one).
func usePrices(file string, env Env) bool {
	if file == "" {
		prices.Use(nil)
		return true
	}
	t, err := prices.Load(file)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ccdag: --prices: %v\n", unwrapPathErr(err))
		return false
	}
	prices.Use(t)
	return true
}

// resumeFigure is the resumed-chain figure in a few characters: "ok 120" (complete, 120 records),
// "broken:432 -57" (the chain breaks at line 432, a resume loses 57 records), "-" (nothing to resume).
func resumeFigure(r *resume.Result) string {
	switch {
	case r == nil:
		return "-"
	case r.Complete || r.BrokenAt == nil:
		return fmt.Sprintf("ok %d", r.Records)
	}
	return fmt.Sprintf("broken:%d -%d", r.BrokenAt.Line, r.Lost)
}

// shortTime shows an ISO timestamp to the minute.
func shortTime(ts string) string {
	if len(ts) >= 16 && ts[10] == 'T' {
		return ts[:10] + " " + ts[11:16]
	}
	if ts == "" {
		return "-"
	}
	return check.Printable(ts)
}

// sessionRows loads and checks every session on every core and returns its rows, newest first.
func sessionRows(found []history.Session) ([]sessionRow, []error) {
	rows := make([]sessionRow, len(found))
	errs := make([]error, len(found))
	onEveryCore(len(found), func(i int) {
		errs[i] = withSession(found[i].Found, func(s *session.Session) {
			rows[i] = sessionRowOf(s, found[i])
		})
	})
	var out []sessionRow
	var bad []error
	for i := range rows {
		if errs[i] != nil {
			bad = append(bad, errs[i])
			continue
		}
		out = append(out, rows[i])
	}
	slices.SortStableFunc(out, func(a, b sessionRow) int {
		if c := strings.Compare(b.End, a.End); c != 0 {
			return c
		}
		return cmp.Compare(b.mod, a.mod)
	})
	return out, bad
}

// withSession loads a session's logs mapped into memory, runs f on it and unmaps them; a log that
// shrinks meanwhile is an error, not a crash. f must not keep the session's bytes.
func withSession(found layout.Found, f func(*session.Session)) error {
	_, err := openSession(found, func(s *session.Session) bool { f(s); return false })
	return err
}

// mapFile maps a log (a variable: a test shrinks the file once it is mapped).
var mapFile = layout.MapFile

// openSession is withSession where f may keep the session (it returns true): the logs then stay
// mapped until release is called, and whoever reads them must do so under layout.Guard.
func openSession(found layout.Found, f func(*session.Session) (keep bool)) (release func(), err error) {
	var maps []*layout.Mapped
	var paths []string
	release = func() {
		for _, m := range maps {
			m.Close()
		}
	}
	read := func(p string) ([]byte, error) {
		m, err := mapFile(p, found.Root(p))
		if err != nil {
			return nil, err
		}
		maps = append(maps, m)
		paths = append(paths, p)
		return m.Data, nil
	}
	var loadErr error
	keep := false
	err = layout.Guard(func() {
		var s *session.Session
		if s, loadErr = layout.LoadFound(found, read); loadErr == nil {
			keep = f(s)
		}
	})
	for i, m := range maps {
		if m.Holds(err) { // name the log that shrank: a session may have many
			err = fmt.Errorf("%s: %w", check.Printable(displayPath(paths[i])), err)
			break
		}
	}
	if err == nil {
		err = loadErr
	}
	if err != nil || !keep {
		release()
		release = nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read session %s: %w", check.Printable(found.ID), unwrapPathErr(err))
	}
	return release, nil
}

func sessionRowOf(s *session.Session, h history.Session) sessionRow {
	paths := h.Paths()
	row := sessionRow{
		ID:        h.ID,
		Path:      displayPath(paths[0]),
		Project:   filepath.Base(h.Dir),
		Records:   s.RecordCount(),
		Subagents: len(h.Agents),
		mod:       h.Mod.UnixNano(),
	}
	for _, f := range s.Files {
		f.Recs(func(r *session.Rec) bool {
			if r.LineErr() != nil {
				return true
			}
			if ts := r.Timestamp(r.LineBytes()); ts != "" {
				if row.Start == "" || ts < row.Start {
					row.Start = ts
				}
				if ts > row.End {
					row.End = ts
				}
			}
			if row.Title == "" && f == s.Main() && r.Type == "user" && !r.Has(jsonl.FlagSidechain) {
				row.Title = classify.Prompt(r, 4*titleMax)
			}
			return true
		})
	}
	row.Title = shorten(row.Title, titleMax)
	row.Tokens = tokens.Session(s, nil).Total
	c := row.Tokens.Cost
	row.Cost = costFigures{USD: c.Nano.USD(), Priced: c.Priced, Unpriced: c.Unpriced}
	// Only the figures: the chain's maps point into the session, which must not outlive its row.
	if row.Resume = resume.Compute(s).Figures(); row.Resume != nil {
		if b := row.Resume.BrokenAt; b != nil {
			b.Path = displayPath(b.Path)
		}
		for i := range row.Resume.Bridged {
			row.Resume.Bridged[i].Path = displayPath(row.Resume.Bridged[i].Path)
		}
	}
	for _, fd := range check.New(s).All(nil) {
		if fd.Code == check.Secret {
			row.Secrets++
		}
		switch fd.Severity {
		case check.Error:
			row.Findings.Error++
		case check.Warning:
			row.Findings.Warning++
		case check.Information:
			row.Findings.Information++
		case check.Hint:
			row.Findings.Hint++
		}
	}
	return row
}

// shorten puts s on one line, at most max bytes (cut at a character, "…" where cut), escaped.
func shorten(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return check.Printable(s)
}
