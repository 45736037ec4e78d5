// Package catalog makes the rows of the session list (docs/spec.md §8, §10): what `ccdag
// sessions` prints and the language server's ccdag/sessions answers: title, time span, records,
// sub-agents, tokens, cost, findings and the resumed-chain figure of each session.
package catalog

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/pathlabel"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/retention"
	"github.com/ccdag/ccdag/internal/search"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
	"github.com/ccdag/ccdag/internal/tokens"
)

// Row is one session of the list. The JSON is `ccdag sessions --format json`'s; the language
// server adds the main log's uri. RowOf makes what the logs say; Deletes and Overdue depend on
// the day and are set when the row is shown (SetDeletes).
type Row struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	URI  string `json:"uri,omitempty"`
	// Project is the folder the session ran in: its first record's cwd, with ~ for the home
	// folder ("~/Desktop/webtech"); ProjectFolder when no record names a cwd.
	Project string `json:"project"`
	// ProjectFolder is the name of the folder holding the main log (under projects/, Claude
	// Code's encoding of the cwd: "-Users-x-Desktop-webtech").
	ProjectFolder string `json:"projectFolder"`
	Title         string `json:"title"` // see Title
	Start         string `json:"start"` // the first timestamp as logged (ISO 8601, UTC): clients show local time
	End           string `json:"end"`
	Records       int    `json:"records"`
	Subagents     int    `json:"subagents"`
	// Empty: no user or assistant message in any log (snapshots, summaries, a local command's
	// output only); browsers dim or hide such rows.
	Empty    bool         `json:"empty"`
	Tokens   tokens.Count `json:"tokens"` // sub-agents' logs included
	Cost     Cost         `json:"cost"`   // sub-agents' logs included
	Findings Findings     `json:"findings"`
	Secrets  int          `json:"secrets"` // secret findings (docs/spec.md §11), in every log of the session
	// Deletes is the day Claude Code deletes the session at its first start (cleanupPeriodDays
	// after the newest log's modification); "" for a log its sweep does not reach (an archive).
	Deletes string `json:"deletes"`
	// Overdue: that day has come, Claude Code deletes the session at its next start.
	Overdue bool           `json:"overdue"`
	Resume  *resume.Result `json:"resume"` // null: nothing in the main log to resume

	Mod int64 `json:"-"` // the newest log's modification time, for sessions without timestamps
}

// Cost is a session's cost: what its priced messages cost in US dollars, and how many messages
// were priced and how many were of a model missing from the price table. LowerBound: the
// figure is a lower bound, some messages being unpriced or priced on placeholder output counts
// (tokens.Count.LowerBound); shown "≥ $6.77".
type Cost struct {
	USD        float64 `json:"usd"`
	Priced     int64   `json:"priced"`
	Unpriced   int64   `json:"unpriced"`
	LowerBound bool    `json:"lowerBound"`
}

// Findings counts a session's findings per severity.
type Findings struct {
	Error       int `json:"error"`
	Warning     int `json:"warning"`
	Information int `json:"information"`
	Hint        int `json:"hint"`
}

// TitleMax is how many bytes of the first prompt make a session's title.
const TitleMax = 80

func (f Findings) String() string {
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

// RowOf makes the row of session s found as h; display writes a path as the row shows it. Its
// title's secrets are replaced by their placeholders (RowWith, docs/spec.md §15).
func RowOf(s *session.Session, h history.Session, display func(string) string) Row {
	return RowWith(s, h, display, Options{})
}

// Options are how a row is made.
type Options struct {
	// NoRedact keeps the secrets of the title (--no-redact, ccdag.redact: false). A row made so
	// must not be kept where rows outlive the request (a cache holds no secret).
	NoRedact bool
	// Scans, when set (Lookup.Scans), runs the secret scan: lines it kept the scan of are not
	// scanned again.
	Scans *Scans
}

// RowWith is RowOf with options.
func RowWith(s *session.Session, h history.Session, display func(string) string, opt Options) Row {
	paths := h.Paths()
	row := Row{
		ID:            h.ID,
		Path:          display(paths[0]),
		ProjectFolder: filepath.Base(h.Dir),
		Records:       s.RecordCount(),
		Subagents:     len(h.Agents),
		Empty:         true,
		Mod:           h.Mod.UnixNano(),
	}
	cwd, looks := "", 0 // the first cwd of the main log's first 64 records: not a scan of every line's fields
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
			if r.Type == "user" || r.Type == "assistant" {
				row.Empty = false
			}
			if cwd == "" && f == s.Main() && looks < 64 {
				looks++
				cwd = graph.RecordCwd(r)
			}
			return true
		})
	}
	row.Project = ProjectOf(cwd, row.ProjectFolder)
	row.Title = Title(s, opt)
	row.Tokens = tokens.Session(s, nil).Total
	c := row.Tokens.Cost
	row.Cost = Cost{USD: c.Nano.USD(), Priced: c.Priced, Unpriced: c.Unpriced, LowerBound: row.Tokens.CostLowerBound()}
	// Only the figures: the chain's maps point into the session, which must not outlive its row.
	if row.Resume = resume.Compute(s).Figures(); row.Resume != nil {
		if b := row.Resume.BrokenAt; b != nil {
			b.Path = display(b.Path)
		}
		for i := range row.Resume.Bridged {
			row.Resume.Bridged[i].Path = display(row.Resume.Bridged[i].Path)
		}
	}
	var copts check.Options
	if opt.Scans != nil {
		copts.Scan = opt.Scans.hits
	}
	fds := check.NewOptions(s, copts).All(nil)
	if opt.Scans != nil {
		opt.Scans.finish() // while the logs are there to read
	}
	for _, fd := range fds {
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

// ProjectOf is a session's project as a row shows it: the folder it ran in (cwd), with ~ for
// the home folder (guessed from the cwd: logs may come from another machine), escaped; folder
// (the name of the folder holding the log) when the log names no cwd.
func ProjectOf(cwd, folder string) string {
	if cwd == "" {
		return textsafe.Printable(folder)
	}
	return textsafe.Printable(pathlabel.Short(cwd, "", pathlabel.HomeOf(cwd), 0))
}

// Title is a session's title: its first prompt (escaped, on one line, at most TitleMax bytes).
// A slash command without arguments says little (thirty sessions read `/erk:plan-implement`), so
// the first prompt typed after it is added ("/clear · fix the login test"), else the session's
// git branch. "" when no one typed anything. The one place a row's title is made. Each part's
// secrets are replaced by their placeholders before the parts are joined and cut, and the pieces
// of a secret its first 320 bytes cut (which no longer match its rule) are hidden
// (secrets.RedactCut), unless opt.NoRedact.
func Title(s *session.Session, opt Options) string {
	main := s.Main()
	if main == nil {
		return ""
	}
	first, next, branch := "", "", ""
	var firstRaw, nextRaw, branchRaw []byte // the JSON strings they come from (secrets.RedactCut)
	bare := false
	looks := 0 // records after a bare command read for the branch: a few, not a whole log's fields
	main.Recs(func(r *session.Rec) bool {
		if r.LineErr() != nil || r.Has(jsonl.FlagSidechain) {
			return true
		}
		if bare && branch == "" && looks < 16 {
			looks++
			branch, branchRaw = topString(r.LineBytes(), "gitBranch", 4*TitleMax)
		}
		if r.Type != "user" {
			return true
		}
		who := classify.User(r)
		p, raw := classify.PromptRaw(r, 4*TitleMax)
		switch {
		case p == "":
		case first == "":
			first, firstRaw = p, raw
			bare = who == classify.Command && !strings.ContainsAny(strings.TrimSpace(p), " \t\n")
			if bare {
				branch, branchRaw = topString(r.LineBytes(), "gitBranch", 4*TitleMax)
			}
			return bare
		case who != classify.Command:
			next, nextRaw = p, raw
			return false
		}
		return true
	})
	if !opt.NoRedact {
		first, next, branch = secrets.RedactCut(firstRaw, first), secrets.RedactCut(nextRaw, next), secrets.RedactCut(branchRaw, branch)
	}
	switch {
	case next != "":
		first += " · " + next
	case bare && branch != "" && branch != "HEAD":
		first += " · " + branch
	}
	return Shorten(first, TitleMax)
}

// topString is a line's top-level string field key, decoded, at most max bytes, and the field's
// JSON string; "" and nil when absent.
func topString(line []byte, key string, max int) (string, []byte) {
	out, raw := "", []byte(nil)
	_, _ = jsonscan.ObjectFields(line, 0, func(k []byte, vs int) (int, error) {
		if string(k) != key {
			return -1, nil
		}
		end, err := jsonscan.ValueEnd(line, vs)
		if err == nil && end-vs >= 2 && line[vs] == '"' {
			raw = line[vs:end]
			body := line[vs+1 : end-1]
			body = body[:min(len(body), 6*max)] // an escape is at most 6 bytes a character; one cut ends the text
			out = classify.Cut(jsonscan.Unescape(body), max)
		}
		return 0, errFound
	})
	return out, raw
}

var errFound = errors.New("found")

// SetDeletes sets when Claude Code deletes the session (retention.Policy.Deletes): Deletes the
// day, Overdue when now is past it (then its next start deletes the session). Computed when the
// row is shown, never stored: it depends on today.
func (r *Row) SetDeletes(when, now time.Time) {
	r.Deletes = retention.Day(when)
	r.Overdue = !when.After(now)
}

// Holds reports whether a record of the logs given holds every word of sc's query (as `ccdag
// search` finds records): a browser's query keeps the sessions that do. It stops at the first
// such record: counting them all cost 2.7× the listing on a history every session of which
// matched (docs/PERFORMANCE.md).
func Holds(sc *search.Scanner, logs ...[]byte) bool {
	for _, data := range logs {
		if sc.File(data, func(search.Hit) bool { return false }) {
			return true
		}
	}
	return false
}

// FoundHolds is Holds over every log of a session found on disk, each mapped (layout.MapFile,
// within the session's folder) and searched before anything is parsed: a session no record of
// which holds the query costs a read at memory speed, not a load and a check. A log that cannot
// be read (or shrinks while read) counts as holding it: the load that follows says why.
func FoundHolds(sc *search.Scanner, found layout.Found) bool {
	for _, p := range found.Paths() {
		m, err := layout.MapFile(p, found.Root(p))
		if err != nil {
			return true
		}
		hit := false
		err = layout.Guard(func() { hit = Holds(sc, m.Data) })
		m.Close()
		if hit || err != nil {
			return true
		}
	}
	return false
}

// String is the cost as a row shows it: "$4.21", "≥ $4.21" when a lower bound, "unpriced" when
// no message was priced, "-" when there was nothing to price.
func (c Cost) String() string {
	switch {
	case c.Priced == 0 && c.Unpriced == 0:
		return "-"
	case c.Priced == 0:
		return "unpriced"
	}
	s := prices.FromUSD(c.USD).String()
	if c.LowerBound {
		return "≥ " + s
	}
	return s
}

// DeletesText is the DELETES column: the day; "at next start (due 2026-03-31)" when overdue (a
// past day alone reads like any date); "-" when never.
func (r *Row) DeletesText() string {
	switch {
	case r.Deletes == "":
		return "-"
	case r.Overdue:
		return "at next start (due " + r.Deletes + ")"
	}
	return r.Deletes
}

// TitleText is the TITLE column: the title, "(no messages)" for an empty session.
func (r *Row) TitleText() string {
	if r.Empty && r.Title == "" {
		return "(no messages)"
	}
	return r.Title
}

// Shorten puts s on one line, at most max bytes (cut at a character, "…" where cut), escaped.
func Shorten(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return textsafe.Printable(s)
}
