package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/catalog"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/retention"
	"github.com/ccdag/ccdag/internal/search"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
	"github.com/ccdag/ccdag/internal/tokens"
)

// sessionRow is one row of `ccdag sessions` (docs/spec.md §8): internal/catalog's, which the
// language server's ccdag/sessions shares.
type sessionRow = catalog.Row

func runSessions(args []string, env Env) int {
	fset := newFlagSet("sessions", env)
	format := fset.String("format", "text", "output format: text or json")
	priceFile := fset.String("prices", "", "price `FILE` in LiteLLM's format instead of the built-in table")
	noCache := fset.Bool("no-cache", false, "read every log, neither reading nor writing the history cache ($CCDAG_CACHE_DIR)")
	query := fset.String("query", "", "only the sessions one of whose records holds every one of `WORDS` (as ccdag search)")
	noRedact := fset.Bool("no-redact", false, "show secrets in titles (by default each is replaced by [REDACTED:<rule>])")
	dirs, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	if !usePrices(*priceFile, env) {
		return ExitUsage
	}
	if *format != "text" && *format != "json" {
		return usageError(env, fmt.Errorf("unknown --format %q (want text or json)", *format))
	}
	var q *search.Query
	if strings.TrimSpace(*query) != "" {
		if q, err = search.Compile(*query); err != nil {
			return usageError(env, fmt.Errorf("--query: %v", err))
		}
	}
	defer warmGC()() // put back at the latest here; before any log is read (sessionRows)
	// A row made with --no-redact holds secrets: the cache (which holds none) is neither read nor
	// written then. The cache is opened and read while the folders are walked.
	pending := openCached(*noCache || *noRedact)
	found, code := findSessions(dirs, env)
	if found == nil {
		if c, _, _ := pending(); c != nil {
			c.Close()
		}
		return code
	}
	lk := lookCached(found, dirs, pending, env)
	if slices.Contains(lk.Hit, false) {
		// A row to compute scans for secrets and redacts its title: gitleaks' rules are read (~2 ms)
		// on the other core while the cached rows are written and the session's logs parsed.
		go secrets.Warm()
	}
	items, errs := sessionRows(found, lk, q, catalog.Options{NoRedact: *noRedact}, *format == "json")
	now := time.Now()
	// A cached element's deletes day is written into its bytes as they are output (patches[k]).
	type patch struct {
		at, end int
		mid     []byte
	}
	var patches []patch
	if cfg, err := retention.ConfigDir(); err == nil {
		pol := retention.Load(cfg)
		if pol.Problem != "" {
			fmt.Fprintf(env.Stderr, "ccdag: %s\n", textsafe.Printable(pol.Problem))
		}
		covers := retention.Coverer(cfg)
		for k := range items {
			it := &items[k]
			h := &found[it.Found]
			if !covers(h.First()) {
				continue
			}
			if it.Elem == nil {
				it.Row.SetDeletes(pol.Deletes(h.Mod), now)
			} else if at, end, mid, ok := catalog.DeletesAt(it.Elem, pol.Deletes(h.Mod), now); ok {
				if patches == nil {
					patches = make([]patch, len(items))
				}
				patches[k] = patch{at, end, mid}
			} else if r, ok := lk.Row(it.Found); ok { // not where Element writes them: decoded
				it.Row, it.Elem = r.Display(displayPaths()), nil
				it.Row.SetDeletes(pol.Deletes(h.Mod), now)
			}
		}
	}
	for _, e := range errs {
		errorf(env.Stderr, "ccdag: %v\n", e)
	}
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	if *format == "json" {
		for k := range items {
			if it := &items[k]; it.Elem == nil {
				if it.Elem, err = catalog.Element(it.Row); err != nil {
					errorf(env.Stderr, "ccdag: %v\n", err)
					return ExitUsage
				}
			}
		}
		catalog.ListEach(out, len(items), func(k int, w *bufio.Writer) {
			e := items[k].Elem
			if patches == nil || patches[k].mid == nil {
				w.Write(e)
				return
			}
			p := patches[k]
			w.Write(e[:p.at])
			w.Write(p.mid)
			w.Write(e[p.end:])
		})
	} else {
		tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "START\tEND\tRECORDS\tAGENTS\tTOKENS OUT/IN\tCOST\tFINDINGS\tSECRETS\tRESUME\tDELETES\tPROJECT\tTITLE\tPATH")
		for k := range items {
			r := &items[k].Row
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s/%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", shortTime(r.Start), shortTime(r.End), r.Records, r.Subagents,
				strings.ReplaceAll(r.Tokens.OutText(), " ", ""), tokens.Short(r.Tokens.In()), r.Cost, r.Findings, r.Secrets, resumeFigure(r.Resume), r.DeletesText(),
				r.Project, r.TitleText(), textsafe.Printable(r.Path))
		}
		tw.Flush()
	}
	if err := out.Flush(); err != nil {
		errorf(env.Stderr, "ccdag: writing output: %v\n", err)
		return ExitUsage
	}
	if code != ExitOK {
		return code
	}
	if len(errs) > 0 {
		return ExitRead
	}
	return ExitOK
}

// warmGC leaves collection to a memory limit (warmHeap, or GOMEMLIMIT's when lower) while a
// listing is answered from the history cache: a warm run over the genuine history allocates ~15 MB
// and keeps most of it to the end, and the collection batchGC's pace ran in it freed little and
// cost ~12 % of the run's CPU (docs/PERFORMANCE.md, "The history cache"). The function returned
// puts the pace and the limit back unless restoreGC did; GOGC, when set, wins.
// Not safe for concurrent use: the settings are the process's.
func warmGC() (restore func()) {
	if restoreGC != nil || os.Getenv("GOGC") != "" {
		return func() {}
	}
	pct := debug.SetGCPercent(-1)
	lim := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(lim, warmHeap))
	restoreGC = func() {
		restoreGC = nil
		debug.SetMemoryLimit(lim)
		debug.SetGCPercent(pct)
	}
	return func() {
		if restoreGC != nil {
			restoreGC()
		}
	}
}

// restoreGC puts back what warmGC set (nil: nothing set).
var restoreGC func()

// warmHeap is where a warm listing's heap is collected after all: ~10 000 cached sessions' rows.
const warmHeap = 256 << 20

// usePrices makes the table in FILE the one that prices tokens (none named: the built-in one).
func usePrices(file string, env Env) bool {
	if file == "" {
		prices.Use(nil)
		return true
	}
	t, err := prices.Load(file, func(p string, max int64) ([]byte, error) { return layout.ReadFileMax(p, "", max) })
	if err != nil {
		fmt.Fprintf(env.Stderr, "ccdag: --prices: %v\n", unwrapPathErr(err))
		return false
	}
	prices.Use(t)
	return true
}

// resumeFigure is the resumed-chain figure in a few characters: "ok 120" (complete, 120 records),
// "broken:432 -57" (the chain breaks at line 432, a resume loses 57 records), "-" (nothing to resume).
func resumeFigure(r *resume.Result) string {
	switch {
	case r == nil:
		return "-"
	case r.Complete || r.BrokenAt == nil:
		return fmt.Sprintf("ok %d", r.Records)
	}
	return fmt.Sprintf("broken:%d -%d", r.BrokenAt.Line, r.Lost)
}

// shortTime shows an ISO timestamp to the minute.
func shortTime(ts string) string {
	if len(ts) >= 16 && ts[10] == 'T' {
		return ts[:10] + " " + ts[11:16]
	}
	if ts == "" {
		return "-"
	}
	return textsafe.Printable(ts)
}

// openCached opens the history cache (docs/spec.md §14) and reads it on a goroutine of its own;
// the function returned waits for it. Not used (nil cache, no error) with --no-cache or another
// price table.
func openCached(noCache bool) func() (*cache.Cache, catalog.Entries, error) {
	if noCache || !catalog.Usable() {
		return func() (*cache.Cache, catalog.Entries, error) { return nil, catalog.Entries{}, nil }
	}
	var c *cache.Cache
	var e catalog.Entries
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		var dir string
		if dir, err = cache.Dir(); err == nil {
			c, e, err = catalog.OpenRead(dir)
		}
	}()
	return func() (*cache.Cache, catalog.Entries, error) { <-done; return c, e, err }
}

// lookCached finds in the history cache the rows of the sessions whose logs are unchanged; a cache
// that cannot be opened is said and not used.
func lookCached(found []history.Session, dirs []string, pending func() (*cache.Cache, catalog.Entries, error), env Env) *catalog.Lookup {
	c, e, err := pending()
	if err != nil {
		errorf(env.Stderr, "ccdag: history cache not used: %v\n", err)
	}
	if c == nil {
		return catalog.Look(nil, found, nil, 0)
	}
	if len(dirs) == 0 {
		if d, err := history.DefaultDir(); err == nil {
			dirs = []string{d}
		}
	}
	return catalog.LookRawIn(c, e, found, dirs)
}

// sessionRows returns the rows of found, newest first: from the cache where lk has them, else
// loaded (mapped) and checked on every core, and then stored in the cache (catalog.Pipeline); with a
// query q, only those of the sessions a record of which holds it (searched first: a session without
// one is not loaded). asJSON: a cached row is kept as the JSON the cache holds where its paths show
// as they are.
func sessionRows(found []history.Session, lk *catalog.Lookup, q *search.Query, opt catalog.Options, asJSON bool) ([]catalog.Listed, []error) {
	defer lk.Close()
	res, _ := catalog.Pipeline{
		Query:   q,
		Options: opt,
		Raw:     asJSON,
		Display: displayPaths(),
		Load: func(h history.Session, use func(*session.Session)) error {
			return withSession(h.Found, use)
		},
		Cached: func(_ int, todo []int) {
			if len(todo) > 0 && restoreGC != nil {
				restoreGC() // logs to read: batchGC's pace again
			}
		},
	}.Run(context.Background(), found, lk) // a cache that cannot be written only costs the next run its time
	return res.Rows, res.Failed
}

// withSession loads a session's logs mapped into memory, runs f on it and unmaps them; a log that
// shrinks meanwhile is an error, not a crash. f must not keep the session's bytes.
func withSession(found layout.Found, f func(*session.Session)) error {
	_, err := openSession(found, func(s *session.Session) bool { f(s); return false })
	return err
}

// mapFile maps a log (a variable: a test shrinks the file once it is mapped).
var mapFile = layout.MapFile

// openSession is withSession where f may keep the session (it returns true): the logs then stay
// mapped until release is called, and whoever reads them must do so under layout.Guard.
func openSession(found layout.Found, f func(*session.Session) (keep bool)) (release func(), err error) {
	var maps []*layout.Mapped
	var paths []string
	release = func() {
		for _, m := range maps {
			m.Close()
		}
	}
	read := func(p string) ([]byte, error) {
		m, err := mapFile(p, found.Root(p))
		if err != nil {
			return nil, err
		}
		maps = append(maps, m)
		paths = append(paths, p)
		return m.Data, nil
	}
	var loadErr error
	keep := false
	err = layout.Guard(func() {
		var s *session.Session
		if s, loadErr = layout.LoadFound(found, read); loadErr == nil {
			keep = f(s)
		}
	})
	for i, m := range maps {
		if m.Holds(err) { // name the log that shrank: a session may have many
			err = fmt.Errorf("%s: %w", textsafe.Printable(displayPath(paths[i])), err)
			break
		}
	}
	if err == nil {
		err = loadErr
	}
	if err != nil || !keep {
		release()
		release = nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read session %s: %w", textsafe.Printable(found.ID), unwrapPathErr(err))
	}
	return release, nil
}
