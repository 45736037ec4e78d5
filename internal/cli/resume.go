package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
)

// resumeJSON is `ccdag resume --format json` (docs/spec.md §13).
type resumeJSON struct {
	Resume   *resume.Result `json:"resume"`
	Chain    []chainEntry   `json:"chain"`
	Dropped  []resume.Drop  `json:"dropped"`
	Answered []resume.Drop  `json:"answered"`
}

type chainEntry struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	UUID string `json:"uuid"`
}

// runResume shows what `claude --resume` sends of a session: the records in order, what is lost
// before a break, what is dropped. Exit code as check's: 1 when a finding of the session reaches
// --fail-on, and when Claude Code cannot resume the log at all.
func runResume(args []string, env Env) int {
	fset := newFlagSet("resume", env)
	format := fset.String("format", "text", "output format: text or json")
	failOn := fset.String("fail-on", "error", "exit 1 when a finding reaches this severity: error, warning, information or never")
	claude := fset.String("claude-version", "", "the Claude Code version that will resume (default: the newest version in the logs under the same config folder)")
	paths, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	if *format != "text" && *format != "json" {
		return usageError(env, fmt.Errorf("unknown --format %q (want text or json)", *format))
	}
	threshold := check.Off
	if *failOn != "never" {
		threshold, err = check.ParseSeverity(*failOn)
		if err != nil || threshold == check.Off || threshold == check.Hint {
			return usageError(env, fmt.Errorf("unknown --fail-on %q (want error, warning, information or never)", *failOn))
		}
	}
	if *claude != "" {
		if _, ok := resume.ParseVersion(*claude); !ok {
			return usageError(env, fmt.Errorf("--claude-version %q is not a version (want e.g. 2.1.328)", *claude))
		}
	}
	if len(paths) != 1 {
		return usageError(env, fmt.Errorf("resume takes exactly one SESSION.jsonl"))
	}
	name := check.Printable(paths[0])
	if fh, err := layout.Open(paths[0], ""); err != nil {
		fmt.Fprintf(env.Stderr, "ccdag: cannot read %s: %v\n", name, unwrapPathErr(err))
		return ExitUsage
	} else {
		fh.Close()
	}
	s, err := layout.Load(paths[0], nil)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ccdag: cannot read %s: %v\n", name, unwrapPathErr(err))
		return ExitUsage
	}
	main := s.Main()
	if main == nil {
		fmt.Fprintf(env.Stderr, "ccdag: %s: Claude Code cannot resume this session: its main log is not here (only sub-agent logs)\n", name)
		return ExitFindings
	}
	if main.NotJSONL() {
		fmt.Fprintf(env.Stderr, "ccdag: %s: Claude Code cannot resume this file: it is not a session log (not JSON Lines)\n", name)
		return ExitFindings
	}
	res := resume.ComputeWith(s, *claude)
	if res == nil {
		fmt.Fprintf(env.Stderr, "ccdag: %s: Claude Code cannot resume this log: it holds no user or assistant record to resume\n", name)
		return ExitFindings
	}
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	if *format == "json" {
		err = writeResumeJSON(out, main, res)
	} else {
		writeResumeText(out, main, res)
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "ccdag: writing output: %v\n", err)
		return ExitUsage
	}
	fs := check.New(s).All(check.Severities{})
	resume.Annotate(fs, func() *resume.Result { return res })
	for _, f := range fs {
		if f.Severity != check.Off && f.Severity <= threshold {
			return ExitFindings
		}
	}
	return ExitOK
}

func writeResumeJSON(w io.Writer, f *session.File, res *resume.Result) error {
	out := resumeJSON{Resume: res, Chain: make([]chainEntry, len(res.Sent)), Dropped: res.Dropped, Answered: res.Answered}
	for i, r := range res.Sent {
		out.Chain[i] = chainEntry{Path: f.Path, Line: r.Line + 1, UUID: res.SentIDs[i]}
	}
	if out.Dropped == nil {
		out.Dropped = []resume.Drop{}
	}
	if out.Answered == nil {
		out.Answered = []resume.Drop{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeResumeText(w io.Writer, f *session.File, res *resume.Result) {
	fmt.Fprintf(w, "%s, %s (%s)\n", check.Printable(f.Path), res.Loader.Words(), res.Loader.Why())
	switch {
	case res.Complete:
		fmt.Fprintf(w, "%d records sent of %d on the chain: the whole history back to its start\n", len(res.Sent), res.Records)
	case res.BrokenAt != nil:
		fmt.Fprintf(w, "%d records sent of %d on the chain; the chain breaks at line %d (its parent is missing): the %d earlier records of that segment are lost\n",
			len(res.Sent), res.Records, res.BrokenAt.Line, res.Lost)
	}
	for _, b := range res.Bridged {
		fmt.Fprintf(w, "line %d: its missing parent is bridged to the newest record at most 5 s older\n", b.Line)
	}
	fmt.Fprintln(w, "\nsent, in order:")
	for i, r := range res.Sent {
		kind, sum := resumeLine(r, i, res)
		fmt.Fprintf(w, "  %6d  %-12s %s\n", r.Line+1, kind, sum)
	}
	if len(res.Dropped) > 0 {
		fmt.Fprintln(w, "\ndropped:")
		for _, d := range res.Dropped {
			fmt.Fprintf(w, "  %6d  %-20s %s\n", d.Line, d.What, check.Printable(d.ID))
		}
	}
	if len(res.Answered) > 0 {
		fmt.Fprintln(w, "\nanswered by Claude Code with an error result (\"[Tool result missing due to internal error]\"):")
		for _, d := range res.Answered {
			fmt.Fprintf(w, "  %6d  %s\n", d.Line, check.Printable(d.ID))
		}
	}
	if res.NoResponse {
		fmt.Fprintln(w, "\nthe last turn was never answered: Claude Code adds an assistant \"No response requested.\"")
	}
}

// resumeLine is a sent record's kind and one-line summary (ccdag's words, the log's text escaped).
func resumeLine(r *session.Rec, i int, res *resume.Result) (string, string) {
	if r.LineErr() != nil {
		return "glued", "the first record of a glued line (" + check.Printable(res.SentIDs[i]) + ")"
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
			kinds, parts = append(kinds, "call"), append(parts, check.Printable(b.Name)+" "+check.Printable(b.ID))
		case "tool_result":
			kinds, parts = append(kinds, "result"), append(parts, "for "+check.Printable(b.ToolUse))
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
	return check.Printable(s)
}
