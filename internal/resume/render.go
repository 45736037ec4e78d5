package resume

import (
	"encoding/json"
	"fmt"
	"strings"

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

func render(w writerFunc, link func(line int), f *session.File, res *Result) {
	w.printf("%s, %s (%s)\n", textsafe.Printable(f.Path), textsafe.Printable(res.Loader.Words()), res.Loader.Why())
	switch {
	case res.Complete:
		w.printf("%d records sent of %d on the chain: the whole history back to its start\n", len(res.Sent), res.Records)
	case res.BrokenAt != nil:
		link(res.BrokenAt.Line)
		w.printf("%d records sent of %d on the chain; the chain breaks at line %d (its parent is missing): the %d earlier records of that segment are lost\n",
			len(res.Sent), res.Records, res.BrokenAt.Line, res.Lost)
	}
	for _, b := range res.Bridged {
		link(b.Line)
		w.printf("line %d: its missing parent is bridged to the newest record at most 5 s older\n", b.Line)
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
		w("\nanswered by Claude Code with an error result (\"[Tool result missing due to internal error]\"):\n")
		for _, d := range res.Answered {
			link(d.Line)
			w.printf("  %6d  %s\n", d.Line, textsafe.Printable(d.ID))
		}
	}
	if res.NoResponse {
		w("\nthe last turn was never answered: Claude Code adds an assistant \"No response requested.\"\n")
	}
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
