// Package cli is the `ccdag` command line: check, graph, fix, transcript, resume, sessions, search, serve and version (docs/spec.md §1).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/ccdag/ccdag/internal/version"
)

// Exit codes of docs/spec.md §1.
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
	// ExitRead: a log found could not be read to its end (it shrank or vanished while read, an I/O
	// error): reported on stderr, every other session still read. Not 2, which a usage error and the
	// Go runtime's fatal errors share.
	ExitRead = 3
)

const usage = `ccdag — read Claude Code session logs as a DAG

usage:
  ccdag check [--format text|json|sarif] [--fail-on error|warning|information|never]
              [--severity code=level]... [--claude-version V] PATH...
  ccdag fix [--write] [--force] [--code CODE,...] PATH...
  ccdag redact [--write] [--force] [-o DIR] PATH...
  ccdag archive DEST [DIR...]
  ccdag graph [--format json|dot|mermaid|html] [-o FILE] [--max-nodes N] [--lanes all|main|collapsed] SESSION.jsonl
  ccdag transcript [-o FILE] [--all-branches] SESSION.jsonl
  ccdag resume [--format text|json] [--claude-version V] [--fail-on LEVEL] SESSION.jsonl
  ccdag sessions [--format text|json] [--prices FILE] [--no-cache] [DIR...]
  ccdag search [--format text|json] [--limit N] QUERY [DIR...]
  ccdag export --otlp URL [--header K=V]... [--state FILE [--reset-state]] [--no-redact] [DIR|FILE...]
  ccdag export --format otlp-json [-o FILE] [--no-redact] [DIR|FILE...]
  ccdag serve [--log-file PATH] [--log-level debug|info|warn|error] [--trace-file PATH] [--no-cache]
  ccdag version

A PATH is a session log, a sub-agent log, or a directory (walked recursively). DIR defaults to
$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects. Session rows are cached in $CCDAG_CACHE_DIR,
else the user cache folder's ccdag/ (--no-cache: neither read nor written).
`

// Env is what a command may touch: its streams and whether stderr is a terminal.
type Env struct {
	Stdout, Stderr io.Writer
	StderrIsTTY    bool
}

// Main runs the command line and returns the process exit code.
func Main(args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitUsage
	}
	switch args[0] {
	case "check", "sessions", "search", "export":
		batchGC()
	}
	switch args[0] {
	case "check":
		return runCheck(args[1:], env)
	case "graph":
		return runGraph(args[1:], env)
	case "fix":
		return runFix(args[1:], env)
	case "transcript":
		return runTranscript(args[1:], env)
	case "resume":
		return runResume(args[1:], env)
	case "redact":
		return runRedact(args[1:], env)
	case "archive":
		return runArchive(args[1:], env)
	case "sessions":
		return runSessions(args[1:], env)
	case "search":
		return runSearch(args[1:], env)
	case "export":
		return runExport(args[1:], env)
	case "serve":
		return runServe(args[1:], env)
	case "version", "--version", "-v":
		fmt.Fprintln(env.Stdout, version.String())
		return ExitOK
	case "help", "--help", "-h":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "ccdag: unknown command %q\n\n%s", args[0], usage)
	return ExitUsage
}

// batchGC keeps the collector out of the way of a batch run over logs, whose garbage (a session's
// index, dropped once the session is checked) is made fast and in bulk: it runs when the heap has
// grown 4x (not 2x) past what was live. GOGC, when set, wins.
func batchGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// parseInterleaved parses flags that may come before, between or after positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func newFlagSet(name string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet("ccdag "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

func usageError(env Env, err error) int {
	if !errors.Is(err, flag.ErrHelp) {
		errorf(env.Stderr, "ccdag: %v\n", err)
	}
	return ExitUsage
}
