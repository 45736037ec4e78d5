package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/search"
	"github.com/ccdag/ccdag/internal/textsafe"
)

func runSearch(args []string, env Env) int {
	fset := newFlagSet("search", env)
	format := fset.String("format", "text", "output format: text or json")
	limit := fset.Int("limit", 0, "stop after N hits (0: all)")
	noRedact := fset.Bool("no-redact", false, "show secrets in snippets (by default each is replaced by [REDACTED:<rule>])")
	pos, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	if *format != "text" && *format != "json" {
		return usageError(env, fmt.Errorf("unknown --format %q (want text or json)", *format))
	}
	if *limit < 0 {
		return usageError(env, fmt.Errorf("--limit must be 0 or more"))
	}
	if len(pos) == 0 {
		return usageError(env, fmt.Errorf("search needs a QUERY"))
	}
	q, err := search.Compile(pos[0])
	if err != nil {
		return usageError(env, err)
	}
	q.Redact = !*noRedact // each snippet redacted, then cut (docs/spec.md §15)
	sessions, code := findSessions(pos[1:], env)
	if sessions == nil {
		return code
	}

	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	if *format == "json" {
		out.WriteString(`{"hits":[`)
	}
	hits, errs := searchAll(sessions, q, *limit, func(h fileHit) {
		if *format == "json" {
			writeJSONHit(out, h, h.n == 0)
		} else {
			fmt.Fprintf(out, "%s:%d:%d: %s: %s\n", textsafe.Printable(h.path), h.Line, h.Column, h.Kind, h.Snippet)
		}
	}, func() { out.Flush() })
	if *format == "json" {
		out.WriteString("\n]}\n")
	}
	if err := out.Flush(); err != nil {
		errorf(env.Stderr, "ccdag: writing output: %v\n", err)
		return ExitUsage
	}
	for _, e := range errs {
		errorf(env.Stderr, "ccdag: %v\n", e)
	}
	if code != ExitOK {
		return code
	}
	if len(errs) > 0 {
		return ExitRead
	}
	if hits == 0 {
		return ExitFindings
	}
	return ExitOK
}

// findSessions lists the sessions under the folders named (the default one when none is), newest
// first, reporting what cannot be read. It returns nil (and the exit code) when there is nothing to
// read; else the sessions and ExitUsage when something was skipped.
func findSessions(dirs []string, env Env) ([]history.Session, int) {
	if len(dirs) == 0 {
		d, err := history.DefaultDir()
		if err != nil {
			errorf(env.Stderr, "ccdag: %v\n", err)
			return nil, ExitUsage
		}
		dirs = []string{d}
	} else {
		sayNamedLinks(env, dirs)
	}
	sessions, errs := history.Sessions(dirs)
	for _, e := range errs {
		errorf(env.Stderr, "ccdag: %v\n", e)
	}
	if len(sessions) == 0 {
		if len(errs) == 0 {
			errorf(env.Stderr, "ccdag: no .jsonl session log under %s\n", joinPaths(dirs))
		}
		return nil, ExitUsage
	}
	if len(errs) > 0 {
		return sessions, ExitUsage
	}
	return sessions, ExitOK
}

func joinPaths(ps []string) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += ", "
		}
		s += textsafe.Printable(p)
	}
	return s
}

type fileHit struct {
	search.Hit
	path string
	n    int // hits printed before this one
}

// searchAll searches sessions in order on every core and hands hits to emit in that order (newest
// session first, files in session order, lines in file order) as soon as each session is done.
// flush runs after each session that had hits. It stops after limit hits (0: no limit).
func searchAll(sessions []history.Session, q *search.Query, limit int, emit func(fileHit), flush func()) (int, []error) {
	type result struct {
		hits []fileHit
		errs []error
		done chan struct{}
	}
	results := make([]result, len(sessions))
	for i := range results {
		results[i].done = make(chan struct{})
	}
	// Workers run at most window sessions ahead of the printer: a query matching everything does
	// not pile the whole history's hits up in memory.
	const window = 64
	tokens := make(chan struct{}, window)
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := q.NewScanner()
			for {
				tokens <- struct{}{}
				i := int(next.Add(1) - 1)
				if i >= len(sessions) {
					return
				}
				r := &results[i]
				if !stop.Load() {
					for _, p := range sessions[i].Paths() {
						r.errs = append(r.errs, searchFile(sc, p, func(h search.Hit) bool {
							r.hits = append(r.hits, fileHit{Hit: h, path: displayPath(p)})
							return !stop.Load() && (limit == 0 || len(r.hits) < limit)
						})...)
					}
				}
				close(r.done)
			}
		}()
	}
	n := 0
	var errs []error
	for i := range results {
		<-results[i].done
		<-tokens
		errs = append(errs, results[i].errs...)
		for _, h := range results[i].hits {
			if limit > 0 && n >= limit {
				break
			}
			h.n = n
			emit(h)
			n++
		}
		if len(results[i].hits) > 0 {
			flush()
		}
		results[i].hits = nil
		if limit > 0 && n >= limit {
			stop.Store(true)
			break
		}
	}
	stop.Store(true)
	go func() { // let workers blocked on a token run to their end
		for range tokens {
		}
	}()
	wg.Wait()
	close(tokens)
	return n, errs
}

// searchFile maps one log and searches it; a file that cannot be read or shrinks meanwhile is
// reported, not fatal.
func searchFile(sc *search.Scanner, path string, emit func(search.Hit) bool) []error {
	m, err := layout.MapFile(path, filepath.Dir(path)) // found by listing the folder
	if err != nil {
		return []error{fmt.Errorf("cannot read %s: %w", textsafe.Printable(path), unwrapPathErr(err))}
	}
	defer m.Close()
	if err := layout.Guard(func() { sc.File(m.Data, emit) }); err != nil {
		return []error{fmt.Errorf("cannot read %s: %w", textsafe.Printable(path), err)}
	}
	return nil
}

func writeJSONHit(out *bufio.Writer, h fileHit, first bool) {
	if !first {
		out.WriteByte(',')
	}
	out.WriteString("\n{\"path\":")
	b, _ := json.Marshal(h.path)
	out.Write(b)
	out.WriteString(`,"line":`)
	out.WriteString(strconv.Itoa(h.Line))
	out.WriteString(`,"column":`)
	out.WriteString(strconv.Itoa(h.Column))
	out.WriteString(`,"kind":"`)
	out.WriteString(string(h.Kind))
	out.WriteString(`","snippet":`)
	b, _ = json.Marshal(h.Snippet)
	out.Write(b)
	out.WriteByte('}')
}
