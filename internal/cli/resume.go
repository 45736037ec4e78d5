package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/secrets"
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
	noRedact := fset.Bool("no-redact", false, "show secrets (by default each is replaced by [REDACTED:<rule>])")
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
		if !resume.ValidVersion(*claude) {
			return usageError(env, fmt.Errorf("--claude-version %q is not a version (want e.g. 2.1.328)", *claude))
		}
	}
	if len(paths) != 1 {
		return usageError(env, fmt.Errorf("resume takes exactly one SESSION.jsonl"))
	}
	name := paths[0] // errorf escapes it
	if fh, err := layout.Open(paths[0], ""); err != nil {
		errorf(env.Stderr, "ccdag: cannot read %s: %v\n", name, unwrapPathErr(err))
		return ExitUsage
	} else {
		fh.Close()
	}
	sayNamedLinks(env, paths)
	s, err := layout.Load(paths[0], nil)
	if err != nil {
		errorf(env.Stderr, "ccdag: cannot read %s: %v\n", name, unwrapPathErr(err))
		return ExitUsage
	}
	main := s.Main()
	if main == nil {
		errorf(env.Stderr, "ccdag: %s: Claude Code cannot resume this session: its main log is not here (only sub-agent logs)\n", name)
		return ExitFindings
	}
	if main.NotJSONL() {
		errorf(env.Stderr, "ccdag: %s: Claude Code cannot resume this file: it is not a session log (not JSON Lines)\n", name)
		return ExitFindings
	}
	res := resume.ComputeWith(s, *claude)
	if res == nil {
		errorf(env.Stderr, "ccdag: %s: Claude Code cannot resume this log: it holds no user or assistant record to resume\n", name)
		return ExitFindings
	}
	fs := check.New(s).All(check.Severities{})
	var mask *secrets.Mask // the text previews records: their secrets hidden (docs/spec.md §15)
	if !*noRedact {
		mask = check.SecretMask(slices.Values(fs))
	}
	var text bytes.Buffer
	if *format == "json" {
		err = writeResumeJSON(&text, main, res)
	} else {
		_, err = io.WriteString(&text, resume.Render(main, res, "").Text)
	}
	if err == nil {
		_, err = env.Stdout.Write(mask.Bytes(text.Bytes()))
	}
	if err != nil {
		errorf(env.Stderr, "ccdag: writing output: %v\n", err)
		return ExitUsage
	}
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
