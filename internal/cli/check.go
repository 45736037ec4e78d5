package cli

import (
	"bufio"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/parallel"
	"github.com/ccdag/ccdag/internal/report"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
	"github.com/ccdag/ccdag/internal/version"
)

func runCheck(args []string, env Env) int {
	fset := newFlagSet("check", env)
	format := fset.String("format", "text", "output format: text, json or sarif")
	failOn := fset.String("fail-on", "error", "exit 1 when a finding reaches this severity: error, warning, information or never")
	claude := fset.String("claude-version", "", "the Claude Code version that will resume (default: the newest version in the logs under the same config folder)")
	var sevFlags multiFlag
	fset.Var(&sevFlags, "severity", "override a code's severity, code=level (repeatable; level off hides the code)")
	paths, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	switch *format {
	case "text", "json", "sarif":
	default:
		return usageError(env, fmt.Errorf("unknown --format %q (want text, json or sarif)", *format))
	}
	threshold := check.Off // never
	if *failOn != "never" {
		threshold, err = check.ParseSeverity(*failOn)
		if err != nil || threshold == check.Off || threshold == check.Hint {
			return usageError(env, fmt.Errorf("unknown --fail-on %q (want error, warning, information or never)", *failOn))
		}
	}
	sev := check.Severities{}
	for _, s := range sevFlags {
		code, level, err := check.ParseOverride(s)
		if err != nil {
			return usageError(env, err)
		}
		sev[code] = level
	}
	if len(paths) == 0 {
		return usageError(env, fmt.Errorf("check needs at least one PATH (a session log, a sub-agent log or a directory)"))
	}

	sessions, err := collect(paths)
	if err != nil {
		errorf(env.Stderr, "ccdag: %v\n", err)
		return ExitUsage
	}
	sayNamedLinks(env, paths)
	var total int64
	for _, f := range sessions {
		for _, p := range f.Paths() {
			if fi, err := os.Stat(p); err == nil {
				total += fi.Size()
			}
		}
	}
	layout.SetMemoryBudget(total, total) // the logs are mapped (layout.ReadFile)
	if *claude != "" {
		if !resume.ValidVersion(*claude) {
			return usageError(env, fmt.Errorf("--claude-version %q is not a version (want e.g. 2.1.328)", *claude))
		}
	}
	res := checkAll(sessions, sev, env, *format == "json", *claude)
	defer res.release()
	items, sum, ioErrs := res.items, res.sum, res.errs
	for _, e := range ioErrs {
		errorf(env.Stderr, "ccdag: %v\n", e)
	}
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	// Every format lists every finding, streamed: the large sessions' findings and the lines of a
	// file with more faulty lines than it keeps are made as they are written.
	all := report.Expand(items, res.streams(&sum), faultyLines(res.faulty, sev, &sum, &res.streamErr))
	switch *format {
	case "text":
		err = report.WriteText(out, all)
	case "json":
		err = report.WriteJSON(out, all, &sum, res.sessions)
	case "sarif":
		err = report.WriteSARIF(out, all, version.Version)
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		errorf(env.Stderr, "ccdag: writing output: %v\n", err)
		return ExitUsage
	}
	if res.streamErr != nil {
		errorf(env.Stderr, "ccdag: %v\n", res.streamErr)
	}
	if *format == "text" {
		fmt.Fprintln(env.Stderr, summaryLine(sum))
	}
	if len(ioErrs) > 0 || res.streamErr != nil {
		return ExitRead
	}
	for s, n := range map[check.Severity]int{check.Error: sum.Error, check.Warning: sum.Warning, check.Information: sum.Information} {
		if n > 0 && s <= threshold { // every finding written was counted, those streamed too
			return ExitFindings
		}
	}
	return ExitOK
}

// summaryLine is text output's last line, on stderr (docs/spec.md §1): what was checked and the
// findings by severity.
func summaryLine(s report.Summary) string {
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	return fmt.Sprintf("ccdag: %s, %s: %s, %s, %s, %s", plural(s.Sessions, "session", "sessions"), plural(s.Files, "file", "files"),
		plural(s.Error, "error", "errors"), plural(s.Warning, "warning", "warnings"), plural(s.Information, "information", "information"), plural(s.Hint, "hint", "hints"))
}

// sayNamedLinks says of each log named on the command line that is a link where it leads: it is
// read through the link, wherever that leads, even out of its session's folder (docs/spec.md §1,
// as `archive` says of a source named). A folder named that is a link is walked through it, not
// said (§8); a link to nothing or to no regular file is refused when read, and said then.
func sayNamedLinks(env Env, paths []string) {
	for _, p := range paths {
		if li, err := os.Lstat(p); err != nil || li.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
			errorf(env.Stderr, "ccdag: %s: a link named on the command line: followed to %s\n", p, target)
		}
	}
}

// collect turns PATH arguments into distinct sessions. Directories are walked (links to folders
// are not followed); every .jsonl found belongs to exactly one session.
func collect(paths []string) ([]layout.Found, error) {
	var files []string
	// Folders walked whose logs need layout.Discover, which lists the folder: one holding a flat
	// agent-*.jsonl, or one a log's <id>/ folder (or a link) sits in. Any other main log found by
	// walking is a session of one file, and a folder of N logs is not listed N times (issue 20).
	walked := map[string]bool{}
	flat, below := map[string]bool{}, map[string]bool{}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPathErr(err))
		}
		if !fi.IsDir() && !strings.HasSuffix(p, ".jsonl") {
			// docs/spec.md §1: a typo in CI must not pass silently
			return nil, fmt.Errorf("%s is not a session log (a .jsonl file)", p)
		}
		before := len(files)
		if !fi.IsDir() {
			if fh, err := layout.Open(p, ""); err != nil { // a FIFO or a device is refused, never waited on
				return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPathErr(err))
			} else {
				fh.Close()
			}
			files = append(files, p)
			continue
		}
		err = layout.WalkNamed(p, func(q string, d fs.DirEntry, err error) error { // p may be a link
			if err != nil {
				if q == p {
					return err
				}
				return nil // an unreadable sub-folder is skipped, the rest is checked
			}
			if d.Type()&fs.ModeSymlink != 0 { // may lead to a <id>/ folder inside the session's: Discover decides
				for d := q; !below[d] && filepath.Dir(d) != d; d = filepath.Dir(d) {
					below[d] = true
				}
			}
			_, isAgent := layout.AgentIDFromName(q)
			if regular := d.Type().IsRegular() && strings.HasSuffix(q, ".jsonl"); regular || isAgent && !d.IsDir() {
				// A sub-agent log that is no file to read (a FIFO) is not checked, but its session is
				// found by Discover, which lists it: its calls say the log is there, not missing.
				if regular {
					files = append(files, q)
					walked[q] = true
				}
				dir := filepath.Dir(q)
				if isAgent {
					flat[dir] = true
				}
				for d := dir; !below[d] && filepath.Dir(d) != d; d = filepath.Dir(d) {
					below[d] = true // its ancestors too, once
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPathErr(err))
		}
		if len(files) == before {
			return nil, fmt.Errorf("%s holds no session log (no .jsonl file in it or below it)", p)
		}
	}
	// Main logs first, so their sub-agent logs are claimed by them rather than discovered again.
	slices.SortStableFunc(files, func(a, b string) int {
		_, aa := layout.AgentIDFromName(a)
		_, ba := layout.AgentIDFromName(b)
		switch {
		case aa == ba:
			return 0
		case !aa:
			return -1
		}
		return 1
	})
	seen := map[string]bool{}
	var out []layout.Found
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		if seen[abs] {
			continue
		}
		var found layout.Found
		var err error
		_, isAgent := layout.AgentIDFromName(f)
		if dir := filepath.Dir(f); walked[f] && !isAgent && !flat[dir] && !below[strings.TrimSuffix(f, ".jsonl")] {
			found = layout.Found{ID: strings.TrimSuffix(filepath.Base(abs), ".jsonl"), Dir: filepath.Dir(abs), Main: abs, Named: abs}
		} else if found, err = layout.Discover(abs); err != nil {
			return nil, err
		}
		if found.Main == "" && len(found.Agents) == 0 {
			found.Agents = []layout.Agent{{Path: abs}}
		}
		for _, p := range found.Paths() {
			seen[p] = true
		}
		seen[abs] = true
		out = append(out, found)
	}
	return out, nil
}

// displayPath shows paths under the working directory relative to it, as compilers do, so
// quickfix lists and CI annotations stay short; others stay absolute.
func displayPath(p string) string { return displayPaths()(p) }

// displayPaths is displayPath with the working folder looked up once (os.Getwd stats "." and $PWD),
// for a run that shows many paths.
func displayPaths() func(string) string {
	wd, err := os.Getwd()
	return func(p string) string {
		if err != nil {
			return p
		}
		if runtime.GOOS != "windows" && !strings.HasPrefix(p, wd) {
			return p // not under the working folder (Rel, which cleans both, for every path was 1 % of a warm listing)
		}
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
		return p
	}
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// faultyFile is a file with more lines that are not records than it keeps (session.MaxLineErrors):
// its line faults are listed from its text as they are written (check.FaultyLines).
type faultyFile struct{ path, root, display string }

// faultyLines gives the items of each faulty file's line faults, read again from the file as they
// are written, each counted into sum (the capped ones checkAll left out of it).
// A log that shrinks meanwhile (it is mapped) stops its list and is reported in *errp.
func faultyLines(files []faultyFile, sev check.Severities, sum *report.Summary, errp *error) map[string]iter.Seq[report.Item] {
	m := map[string]iter.Seq[report.Item]{}
	for _, f := range files {
		m[f.display] = func(yield func(report.Item) bool) {
			mf, err := layout.MapFile(f.path, f.root)
			if err != nil {
				return // it was read a moment ago; what it held then was listed in part
			}
			defer mf.Close()
			err = layout.Guard(func() {
				check.FaultyLines(mf.Data, sev, func(line int, code check.Code, s check.Severity, sp jsonl.Span, msg string) bool {
					it := report.Item{Path: f.display, Line: line + 1, Column: int(sp.Start) + 1, EndLine: line + 1, EndColumn: int(sp.End) + 1,
						Severity: s.String(), Code: string(code), Message: msg, Related: []report.Related{}}
					sum.Add(it)
					return yield(it)
				})
			})
			if err != nil && *errp == nil {
				*errp = fmt.Errorf("%s: %w", textsafe.Printable(f.display), err)
			}
		}
	}
	return m
}

// streamAbove is how many findings a session may have for checkAll to hold them as items. Past
// it, the session is kept, its logs mapped, and its findings are computed again as they are
// written, one record at a time: a crafted log of a million tiny records, each a finding, must not
// cost a million items (docs/SECURITY.md, memory).
var streamAbove = 10_000 // a variable for TestStreamedCheckIsTheSame

// checked is what checkAll found.
type checked struct {
	items    []report.Item // sorted by path, line and column
	sum      report.Summary
	sessions []report.Session
	faulty   []faultyFile
	errs     []error

	// The sessions kept to be streamed: each of their files' items, counted into the summary as
	// they are written (streams), and a fault reading a log meanwhile (streamErr).
	kept      []keptSession
	sev       check.Severities
	streamErr error
}

type keptSession struct {
	chk     *check.Checker
	chain   func() *resume.Result
	faulty  []faultyFile
	release func()
}

// release unmaps the logs of the sessions kept.
func (c *checked) release() {
	for _, k := range c.kept {
		k.release()
	}
}

// streams gives, for each file of a session kept, its items in line order, each counted into sum
// as it is yielded. A file whose faulty lines are listed from its text (faultyLines) leaves them out.
func (c *checked) streams(sum *report.Summary) map[string]iter.Seq[report.Item] {
	m := map[string]iter.Seq[report.Item]{}
	for _, k := range c.kept {
		for _, f := range k.chk.Session().Files {
			display := displayPath(f.Path)
			faulty := slices.ContainsFunc(k.faulty, func(ff faultyFile) bool { return ff.path == f.Path })
			m[display] = func(yield func(report.Item) bool) {
				err := layout.Guard(func() { // the log is mapped: it may shrink under us
					var one [1]check.Finding
					for fd := range k.chk.Each(f, c.sev) {
						one[0] = fd
						resume.Annotate(one[:], k.chain)
						it := report.FromFinding(one[0])
						if faulty && report.LineFault(it.Code) {
							continue
						}
						it.Path = display
						for j := range it.Related {
							it.Related[j].Path = displayPath(it.Related[j].Path)
						}
						sum.Add(it)
						if !yield(it) {
							return
						}
					}
				})
				if err != nil && c.streamErr == nil {
					c.streamErr = fmt.Errorf("%s: %w", textsafe.Printable(display), err)
				}
			}
		}
	}
	return m
}

// hasOverride reports whether sev names code (`--severity secret=off` skips the secret scan).
func hasOverride(sev check.Severities, code check.Code) bool {
	_, ok := sev[code]
	return ok
}

// checkAll checks sessions in parallel across cores and returns the items in path order. The resumed
// chain (a walk of each main log) is computed for the JSON output's "sessions", else only for a
// finding it annotates. A session with more than streamAbove findings is kept and its items are
// given by streams instead.
//
// A file with more line faults than it keeps is named in the faulty files: its line-fault items
// are left out of the summary, which counts them as they are written (faultyLines).
func checkAll(sessions []layout.Found, sev check.Severities, env Env, chains bool, claude string) *checked {
	type result struct {
		items  []report.Item
		sum    report.Summary
		sess   report.Session
		faulty []faultyFile
		kept   *keptSession
		err    error
	}
	results := make([]result, len(sessions))
	var done atomic.Int64
	stop := startProgress(env, len(sessions), &done)
	parallel.Each(len(sessions), func(i int) {
		var items []report.Item
		var sum report.Summary
		var rs report.Session
		var faulty []faultyFile
		var kept *keptSession
		release, err := openSession(sessions[i], func(s *session.Session) bool {
			for _, f := range s.Files {
				if f.UnkeptLineErrors(jsonl.ErrInvalidJSON)+f.UnkeptLineErrors(jsonl.ErrNotAnObject) > 0 {
					faulty = append(faulty, faultyFile{path: f.Path, root: sessions[i].Root(f.Path), display: displayPath(f.Path)})
				}
			}
			chk := check.NewOptions(s, check.Options{OnePass: true, Parallel: true, NoSecrets: sev[check.Secret] == check.Off && hasOverride(sev, check.Secret)})
			var res *resume.Result
			computed := false
			chain := func() *resume.Result {
				if !computed {
					res, computed = resume.ComputeWith(s, claude), true
				}
				return res
			}
			if chains {
				chain()
			}
			sum = report.Summary{Sessions: 1, Files: len(s.Files), Records: s.RecordCount()}
			rs = report.Session{ID: s.ID, Path: s.Files[0].Path, Resume: res.Figures()} // not the session
			if chk.Len() > streamAbove {
				kept = &keptSession{chk: chk, chain: chain, faulty: faulty}
				return true
			}
			fs := chk.All(sev)
			resume.Annotate(fs, chain)
			items = report.FromFindings(fs)
			return false
		})
		if err != nil {
			results[i].err = err
			done.Add(1)
			return
		}
		if kept != nil {
			kept.release = release
		}
		shown := map[string]string{} // a session has few files and may have many findings
		display := func(p string) string {
			d, ok := shown[p]
			if !ok {
				d = displayPath(p)
				shown[p] = d
			}
			return d
		}
		for k := range items {
			items[k].Path = display(items[k].Path)
			for j := range items[k].Related {
				items[k].Related[j].Path = display(items[k].Related[j].Path)
			}
		}
		for _, it := range items {
			if len(faulty) == 0 || !report.LineFault(it.Code) || !slices.ContainsFunc(faulty, func(f faultyFile) bool { return f.display == it.Path }) {
				sum.Add(it)
			}
		}
		rs.Path = displayPath(rs.Path)
		if rs.Resume != nil {
			if b := rs.Resume.BrokenAt; b != nil {
				b.Path = displayPath(b.Path)
			}
			for j := range rs.Resume.Bridged {
				rs.Resume.Bridged[j].Path = displayPath(rs.Resume.Bridged[j].Path)
			}
		}
		results[i] = result{items: items, sum: sum, sess: rs, faulty: faulty, kept: kept}
		done.Add(1)
	})
	stop()
	out := &checked{sev: sev}
	for _, r := range results {
		if r.err != nil {
			out.errs = append(out.errs, r.err)
			continue
		}
		out.items = append(out.items, r.items...)
		out.sum.Merge(r.sum)
		out.sessions = append(out.sessions, r.sess)
		out.faulty = append(out.faulty, r.faulty...)
		if r.kept != nil {
			out.kept = append(out.kept, *r.kept)
		}
	}
	report.Sort(out.items)
	return out
}

// startProgress prints "checked N/M sessions" on a terminal's stderr once the work takes over a
// second; the returned func clears the line.
func startProgress(env Env, total int, done *atomic.Int64) (stop func()) {
	if !env.StderrIsTTY || total < 2 {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		shown := false
		for {
			select {
			case <-quit:
				if shown {
					fmt.Fprint(env.Stderr, "\r\033[K")
				}
				return
			case <-t.C:
				if time.Since(start) > time.Second {
					fmt.Fprintf(env.Stderr, "\rccdag: checked %d/%d sessions", done.Load(), total)
					shown = true
				}
			}
		}
	}()
	return func() { close(quit); <-finished }
}
