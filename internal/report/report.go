// Package report writes check findings for people and tools: the quickfix-style text form, the
// JSON object of docs/spec.md §1, and SARIF 2.1.0. Positions are 1-based lines and 1-based byte columns.
package report

import (
	"io"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// Item is one finding with resolved positions.
type Item struct {
	Path      string    `json:"path"`
	Line      int       `json:"line"`
	Column    int       `json:"column"`
	EndLine   int       `json:"endLine"`
	EndColumn int       `json:"endColumn"`
	Severity  string    `json:"severity"`
	Code      string    `json:"code"`
	Message   string    `json:"message"`
	Related   []Related `json:"related"`
}

// Related is a finding's pointer to another record.
type Related struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// Summary counts what was checked and found.
type Summary struct {
	Sessions    int `json:"sessions"`
	Files       int `json:"files"`
	Records     int `json:"records"`
	Error       int `json:"error"`
	Warning     int `json:"warning"`
	Information int `json:"information"`
	Hint        int `json:"hint"`
}

// Add counts an item's severity.
func (s *Summary) Add(it Item) {
	switch it.Severity {
	case "error":
		s.Error++
	case "warning":
		s.Warning++
	case "information":
		s.Information++
	case "hint":
		s.Hint++
	}
}

// Merge adds another summary's counts.
func (s *Summary) Merge(o Summary) {
	s.Sessions += o.Sessions
	s.Files += o.Files
	s.Records += o.Records
	s.Error += o.Error
	s.Warning += o.Warning
	s.Information += o.Information
	s.Hint += o.Hint
}

func span(f *session.File, line int, sp jsonl.Span) (col, endCol int) {
	if !sp.Valid() {
		return 1, len(f.Line(line)) + 1
	}
	return int(sp.Start) + 1, int(sp.End) + 1
}

// FromFindings resolves findings (severities already applied) into items.
func FromFindings(fs []check.Finding) []Item {
	items := make([]Item, 0, len(fs))
	for _, f := range fs {
		items = append(items, FromFinding(f))
	}
	return items
}

// FromFinding resolves one finding (severity already applied) into an item.
func FromFinding(f check.Finding) Item {
	col, end := span(f.File, f.Line, f.Span)
	it := Item{Path: f.File.Path, Line: f.Line + 1, Column: col, EndLine: f.Line + 1, EndColumn: end,
		Severity: f.Severity.String(), Code: string(f.Code), Message: f.Message, Related: []Related{}}
	for _, r := range f.Related {
		c, _ := span(r.File, r.Line, r.Span)
		it.Related = append(it.Related, Related{Path: r.File.Path, Line: r.Line + 1, Column: c, Message: r.Message})
	}
	return it
}

// Sort orders items by path, line and column.
func Sort(items []Item) {
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}

// LineFault reports whether a code is one of a line that is not a record.
func LineFault(code string) bool {
	return code == string(check.InvalidJSON) || code == string(check.NotAnObject) || code == string(check.IncompleteLastLine)
}

// Expand yields sorted items, path by path: those of items (sorted) and, for a path streams names,
// what it yields (in line order) in their stead. The items of each path that faulty names are
// merged, by line and column, with what faulty[path] yields in their stead for the lines that are
// not records (check.FaultyLines: a file keeps only the first ones, and one item counts the rest).
func Expand(items []Item, streams, faulty map[string]iter.Seq[Item]) iter.Seq[Item] {
	return func(yield func(Item) bool) {
		paths := slices.Collect(maps.Keys(streams))
		for i := range items {
			if i == 0 || items[i].Path != items[i-1].Path {
				paths = append(paths, items[i].Path)
			}
		}
		slices.Sort(paths)
		paths = slices.Compact(paths)
		i := 0
		for _, p := range paths {
			j := i
			for j < len(items) && items[j].Path == p {
				j++
			}
			group := slices.Values(items[i:j])
			i = j
			if st, ok := streams[p]; ok {
				group = st
			}
			more, ok := faulty[p]
			if !ok {
				for it := range group {
					if !yield(it) {
						return
					}
				}
				continue
			}
			if !merge(group, more, yield) {
				return
			}
		}
	}
}

func merge(group, more iter.Seq[Item], yield func(Item) bool) bool {
	next, stop := iter.Pull(more)
	defer stop()
	x, has := next()
	for it := range group {
		if LineFault(it.Code) {
			continue
		}
		for has && (x.Line < it.Line || x.Line == it.Line && x.Column <= it.Column) {
			if !yield(x) {
				return false
			}
			x, has = next()
		}
		if !yield(it) {
			return false
		}
	}
	for ; has; x, has = next() {
		if !yield(x) {
			return false
		}
	}
	return true
}

// WriteText prints `PATH:LINE:COL: SEVERITY: MESSAGE [CODE]`, one finding per line.
func WriteText(w io.Writer, items iter.Seq[Item]) error {
	var buf []byte
	var path, shown string
	for it := range items {
		if it.Path != path || shown == "" {
			// A file name is log-controlled (a session can arrive as an archive): escaped as
			// messages are, so it cannot forge a line, drive a terminal or read reversed. Once
			// per file: a file can have ten million findings.
			path, shown = it.Path, textsafe.Printable(it.Path)
		}
		buf = append(buf[:0], shown...)
		buf = append(buf, ':')
		buf = strconv.AppendInt(buf, int64(it.Line), 10)
		buf = append(buf, ':')
		buf = strconv.AppendInt(buf, int64(it.Column), 10)
		buf = append(buf, ": "...)
		buf = append(buf, it.Severity...)
		buf = append(buf, ": "...)
		buf = append(buf, strings.ReplaceAll(it.Message, "\n", " ")...)
		buf = append(buf, " ["...)
		buf = append(buf, it.Code...)
		buf = append(buf, "]\n"...)
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// Session is one checked session's entry in the JSON form: its id, main log (or first file) and
// resumed chain (docs/spec.md §6; null when there is nothing to resume).
type Session struct {
	ID     string         `json:"id"`
	Path   string         `json:"path"`
	Resume *resume.Result `json:"resume"`
}

// WriteJSON prints {"diagnostics": [...], "summary": {...}, "sessions": [...]}, one finding at a
// time: the output is streamed, never held whole (a crafted log's millions of findings would be
// gigabytes of it). The summary is read once the findings are written.
func WriteJSON(w io.Writer, items iter.Seq[Item], sum *Summary, sessions []Session) error {
	if sessions == nil {
		sessions = []Session{}
	}
	p := newPieces(w, false)
	p.text("{\n  \"diagnostics\": ")
	array(p, "  ", items, func(it Item) any { return &it })
	p.text(",\n  \"summary\": ")
	p.value("  ", *sum)
	p.text(",\n  \"sessions\": ")
	p.value("  ", sessions)
	p.text("\n}\n")
	return p.err
}
