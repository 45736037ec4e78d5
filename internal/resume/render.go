package resume

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// Preview is what a resume sends, as text (`ccdag resume`, the editors' *Preview Resume*), and the
// log line each of its lines stands for.
type Preview struct {
	Text  string        `json:"text"`
	Lines []PreviewLine `json:"lines"`
}

// PreviewLine links a 0-based line of the preview to a 0-based line of the log at URI.
type PreviewLine struct {
	Preview int    `json:"preview"`
	URI     string `json:"uri"`
	Line    int    `json:"line"`
}

// Render writes the preview of res, the resume of main log f; uri names f in the links ("" for none).
// The log's text in it is escaped (textsafe.Printable): one preview line a record.
func Render(f *session.File, res *Result, uri string) Preview {
	var p Preview
	var b strings.Builder
	n := 0
	w := writerFunc(func(s string) {
		b.WriteString(s)
		n += strings.Count(s, "\n")
	})
	link := func(line int) {
		if uri != "" {
			p.Lines = append(p.Lines, PreviewLine{Preview: n, URI: uri, Line: line - 1})
		}
	}
	render(w, link, f, res)
	p.Text = b.String()
	return p
}

type writerFunc func(string)

func (w writerFunc) printf(format string, a ...any) { w(fmt.Sprintf(format, a...)) }

// TextWidth is where the preview's sentences wrap (record lines are one a record, and a path is
// not broken): editors show it in a side panel, Emacs with lines truncated.
const TextWidth = 100

func render(w writerFunc, link func(line int), f *session.File, res *Result) {
	say := func(format string, a ...any) { w(wrap(fmt.Sprintf(format, a...), TextWidth)) }
	// The verdict first, with the loader it holds for.
	loader := textsafe.Printable(res.Loader.Words()) + " (" + res.Loader.Why() + ")"
	if n, what := losses(res); n == 0 {
		say("Resume loses nothing, %s.\n", loader)
	} else {
		say("Resume loses %d %s, %s: %s.\n", n, plural(n, "record", "records"), loader, what)
	}
	w("log: " + textsafe.Printable(f.Path) + "\n")
	switch {
	case res.Complete:
		if b, before := lastCompaction(res); b != nil {
			link(b.Line + 1)
			say("%d records sent of %d on the chain, from the compaction at line %d; the %d %s before it %s sent as its summary%s.\n",
				len(res.Sent), res.Records, b.Line+1, b.Line, plural(b.Line, "line", "lines"), plural(b.Line, "is", "are"), preservedNote(before))
		} else {
			say("%d records sent of %d on the chain: the whole history back to its start.\n", len(res.Sent), res.Records)
		}
	case res.BrokenAt != nil:
		link(res.BrokenAt.Line)
		say("%d records sent of %d on the chain; the chain breaks at line %d (its parent is missing): the %d earlier records of that segment are lost.\n",
			len(res.Sent), res.Records, res.BrokenAt.Line, res.Lost)
	}
	for _, b := range res.Bridged {
		link(b.Line)
		say("line %d: its missing parent is bridged to the newest record at most 5 s older\n", b.Line)
	}
	w("\nsent, in order:\n")
	for i, r := range res.Sent {
		kind, sum := line(r, i, res)
		link(r.Line + 1)
		w.printf("  %6d  %-12s %s\n", r.Line+1, kind, sum)
	}
	if len(res.Dropped) > 0 {
		w("\ndropped:\n")
		for _, d := range res.Dropped {
			link(d.Line)
			w.printf("  %6d  %-20s %s\n", d.Line, d.What, textsafe.Printable(d.ID))
		}
	}
	if len(res.Answered) > 0 {
		say("\nanswered by Claude Code with an error result (\"[Tool result missing due to internal error]\"):\n")
		for _, d := range res.Answered {
			link(d.Line)
			w.printf("  %6d  %s\n", d.Line, textsafe.Printable(d.ID))
		}
	}
	if res.NoResponse {
		say("\nthe last turn was never answered: Claude Code adds an assistant \"No response requested.\"\n")
	}
}

// losses counts what a resume loses — the records before a break, and what it drops of what it
// sends (calls without result, results without call, glued records; not API-error records, which
// Claude Code never sends) — and says it in a few words.
func losses(res *Result) (int, string) {
	var parts []string
	n := 0
	if res.BrokenAt != nil && res.Lost > 0 {
		n += res.Lost
		parts = append(parts, fmt.Sprintf("%d before the break at line %d (its parent is missing)", res.Lost, res.BrokenAt.Line))
	}
	var calls, results, glued int
	for _, d := range res.Dropped {
		switch d.What {
		case DropCall:
			calls++
		case DropResult, DropResultEmpty:
			results++
		case DropGlued:
			glued++
		}
	}
	for _, c := range []struct {
		k         int
		one, many string
	}{{calls, "call without result", "calls without result"}, {results, "result without call", "results without call"}, {glued, "glued record", "glued records"}} {
		if c.k > 0 {
			n += c.k
			parts = append(parts, fmt.Sprintf("%d %s", c.k, plural(c.k, c.one, c.many)))
		}
	}
	return n, strings.Join(parts, ", ")
}

// lastCompaction is the last compaction boundary the chain holds (where a resumed history starts
// over from its summary) and how many records before it are sent too (those it preserves).
func lastCompaction(res *Result) (*session.Rec, int) {
	var b *session.Rec
	for _, r := range res.Sent {
		if isCompactBoundary(r) {
			b = r
		}
	}
	if b == nil {
		return nil, 0
	}
	before := 0
	for _, r := range res.Sent {
		if r.File == b.File && r.Line < b.Line {
			before++
		}
	}
	return b, before
}

func preservedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (but for the %d %s it preserves, sent as they are)", n, plural(n, "record", "records"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// wrap breaks s's lines at spaces so that none is longer than width characters (a word longer
// than width stays whole on its own line). Leading blank lines and the final newline are kept.
func wrap(s string, width int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		col := 0
		for j, word := range strings.Split(line, " ") {
			n := utf8.RuneCountInString(word)
			if j > 0 {
				if col+1+n > width && col > 0 {
					b.WriteByte('\n')
					col = 0
				} else {
					b.WriteByte(' ')
					col++
				}
			}
			b.WriteString(word)
			col += n
		}
	}
	return b.String()
}

// line is a sent record's kind and one-line summary (ccdag's words, the log's text escaped).
func line(r *session.Rec, i int, res *Result) (string, string) {
	if r.LineErr() != nil {
		return "glued", "the first record of a glued line (" + textsafe.Printable(res.SentIDs[i]) + ")"
	}
	var m struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	json.Unmarshal(r.LineBytes(), &m)
	var text string
	if json.Unmarshal(m.Message.Content, &text) == nil {
		return r.Type, oneLine(text)
	}
	var blocks []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Name     string `json:"name"`
		ID       string `json:"id"`
		ToolUse  string `json:"tool_use_id"`
		Thinking string `json:"thinking"`
	}
	json.Unmarshal(m.Message.Content, &blocks)
	var kinds, parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			kinds, parts = append(kinds, "text"), append(parts, oneLine(b.Text))
		case "tool_use":
			kinds, parts = append(kinds, "call"), append(parts, textsafe.Printable(b.Name)+" "+textsafe.Printable(b.ID))
		case "tool_result":
			kinds, parts = append(kinds, "result"), append(parts, "for "+textsafe.Printable(b.ToolUse))
		case "thinking", "redacted_thinking":
			kinds, parts = append(kinds, "thinking"), append(parts, "(thinking)")
		case "image":
			kinds, parts = append(kinds, "image"), append(parts, "(image)")
		}
	}
	kind := r.Type
	if len(kinds) == 1 {
		kind = r.Type + " " + kinds[0]
	}
	return kind, strings.Join(parts, "; ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return textsafe.Printable(s)
}
