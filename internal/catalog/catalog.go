// Package catalog makes the rows of the session list (docs/spec.md §8, §10): what `ccdag
// sessions` prints and the language server's ccdag/sessions answers: title, time span, records,
// sub-agents, tokens, cost, findings and the resumed-chain figure of each session.
package catalog

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
	"github.com/ccdag/ccdag/internal/tokens"
)

// Row is one session of the list. The JSON is `ccdag sessions --format json`'s; the language
// server adds the main log's uri.
type Row struct {
	ID        string       `json:"id"`
	Path      string       `json:"path"`
	URI       string       `json:"uri,omitempty"`
	Project   string       `json:"project"`
	Title     string       `json:"title"`
	Start     string       `json:"start"`
	End       string       `json:"end"`
	Records   int          `json:"records"`
	Subagents int          `json:"subagents"`
	Tokens    tokens.Count `json:"tokens"` // sub-agents' logs included
	Cost      Cost         `json:"cost"`   // sub-agents' logs included
	Findings  Findings     `json:"findings"`
	Secrets   int          `json:"secrets"` // secret findings (docs/spec.md §11), in every log of the session
	// Deletes is the day Claude Code deletes the session at its first start (cleanupPeriodDays
	// after the newest log's modification); "" for a log its sweep does not reach (an archive).
	Deletes string         `json:"deletes"`
	Resume  *resume.Result `json:"resume"` // null: nothing in the main log to resume

	Mod int64 `json:"-"` // the newest log's modification time, for sessions without timestamps
}

// Cost is a session's cost: what its priced messages cost in US dollars, and how many messages
// were priced and how many were of a model missing from the price table.
type Cost struct {
	USD      float64 `json:"usd"`
	Priced   int64   `json:"priced"`
	Unpriced int64   `json:"unpriced"`
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
}

// RowWith is RowOf with options.
func RowWith(s *session.Session, h history.Session, display func(string) string, opt Options) Row {
	paths := h.Paths()
	row := Row{
		ID:        h.ID,
		Path:      display(paths[0]),
		Project:   filepath.Base(h.Dir),
		Records:   s.RecordCount(),
		Subagents: len(h.Agents),
		Mod:       h.Mod.UnixNano(),
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
				row.Title = classify.Prompt(r, 4*TitleMax)
				if !opt.NoRedact { // redacted, then cut: a cut secret no longer matches its rule
					row.Title = secrets.RedactString(row.Title)
				}
			}
			return true
		})
	}
	row.Title = Shorten(row.Title, TitleMax)
	row.Tokens = tokens.Session(s, nil).Total
	c := row.Tokens.Cost
	row.Cost = Cost{USD: c.Nano.USD(), Priced: c.Priced, Unpriced: c.Unpriced}
	// Only the figures: the chain's maps point into the session, which must not outlive its row.
	if row.Resume = resume.Compute(s).Figures(); row.Resume != nil {
		if b := row.Resume.BrokenAt; b != nil {
			b.Path = display(b.Path)
		}
		for i := range row.Resume.Bridged {
			row.Resume.Bridged[i].Path = display(row.Resume.Bridged[i].Path)
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
