package lsp

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	json "github.com/goccy/go-json"
	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/cache"

	"github.com/ccdag/ccdag/internal/catalog"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/retention"
	"github.com/ccdag/ccdag/internal/search"
)

// The session browser (docs/spec.md §10): ccdag/sessions lists the sessions under some folders of
// logs (default: the workspace's .claude/projects folders, else the config folder's) with the rows
// of `ccdag sessions --format json` (internal/catalog) plus the main log's uri, newest first,
// reporting $/progress while it reads; ccdag/sessionsChanged tells the client when a log under
// the workspace's folders changed, so that a browser can ask again.

const (
	methodSessions        = "ccdag/sessions"
	notifySessionsChanged = "ccdag/sessionsChanged"
)

type sessionsParams struct {
	Folders            []string        `json:"folders,omitempty"`
	Query              string          `json:"query,omitempty"` // only the sessions a record of which holds every word
	WorkDoneToken      json.RawMessage `json:"workDoneToken,omitempty"`
	PartialResultToken json.RawMessage `json:"partialResultToken,omitempty"`
}

type sessionsResult struct {
	Sessions []catalog.Row `json:"sessions"`
	// Errors are the folders and sessions that could not be read, each said once.
	Errors []string `json:"errors,omitempty"`
}

// Streamed rows (docs/lsp.md): batches of at most batchRows rows, or what came in batchWait.
const (
	batchRows = 64
	batchWait = 250 * time.Millisecond
)

// listSessions answers ccdag/sessions: the rows the history cache holds first (one batch on the
// partial result token), then the other sessions read on every core, in batches as they finish;
// the answer is the whole list, newest first.
func listSessions(ctx context.Context, srv *server, p sessionsParams) (sessionsResult, error) {
	var dirs []string
	for _, u := range p.Folders {
		d, ok := uriToPath(u)
		if !ok {
			return sessionsResult{}, invalidParams("%s: folders must be file URIs, got %q", methodSessions, u)
		}
		dirs = append(dirs, d)
	}
	if len(p.Folders) == 0 {
		dirs = srv.historyDirs()
	}
	var sc *search.Scanner // one for the request: its buffer is reused from log to log
	if strings.TrimSpace(p.Query) != "" {
		q, err := search.Compile(p.Query)
		if err != nil {
			return sessionsResult{}, invalidParams("%s: query: %v", methodSessions, err)
		}
		sc = q.NewScanner()
	}
	res := sessionsResult{Sessions: []catalog.Row{}}
	found, errs := history.Sessions(dirs)
	for _, e := range errs {
		res.Errors = append(res.Errors, e.Error())
	}
	c := srv.historyCache()
	noRedact := !srv.redacting()
	if !catalog.Usable() || noRedact {
		c = nil // rows made with ccdag.redact off hold secrets: the cache (which holds none) is not used
	}
	lk := catalog.Look(c, found, dirs)
	// When Claude Code deletes each session, as `ccdag sessions` says it (docs/spec.md §11): only
	// for logs its sweep reaches; settings.json is read once per request.
	cfg, cfgErr := retention.ConfigDir()
	var pol retention.Policy
	if cfgErr == nil {
		pol = retention.Load(cfg)
	}
	shown := func(r catalog.Row, h history.Session) catalog.Row {
		r.URI = pathToURI(h.Paths()[0])
		if cfgErr == nil && retention.Covers(cfg, h.Paths()[0]) {
			r.SetDeletes(pol.Deletes(h.Mod), time.Now())
		}
		return r
	}
	send := func(rows []catalog.Row, errs []string) {
		if len(p.PartialResultToken) == 0 || string(p.PartialResultToken) == "null" || len(rows) == 0 && len(errs) == 0 {
			return
		}
		srv.notify("$/progress", progressParams{Token: p.PartialResultToken, Value: sessionsResult{Sessions: rows, Errors: errs}})
	}
	var todo []int
	var size int64
	for i, h := range found {
		if sc != nil && !catalog.FoundHolds(sc, h.Found) {
			continue // the query: only sessions a record of which holds every word
		}
		if lk.Hit[i] {
			res.Sessions = append(res.Sessions, shown(lk.Rows[i], h))
			continue
		}
		todo = append(todo, i)
		for _, p := range h.Paths() {
			fi, seen := h.Info(p) // the walk's lstat: no second look at each log
			if !seen {
				var err error
				if fi, err = os.Stat(p); err != nil {
					continue
				}
			}
			size += fi.Size()
		}
	}
	send(res.Sessions, nil)
	cached := len(res.Sessions)

	rows := make([]catalog.Row, len(found))
	ok := make([]bool, len(found))
	if len(todo) > 0 {
		end := srv.beginProgress(p.WorkDoneToken, "Reading sessions", size)
		end.total = size
		type done struct {
			i    int
			err  string
			size int64
		}
		results := make(chan done)
		var next atomic.Int64
		workers := min(runtime.GOMAXPROCS(0), len(todo))
		for range workers {
			go func() {
				for j := int(next.Add(1) - 1); j < len(todo); j = int(next.Add(1) - 1) {
					i := todo[j]
					d := done{i: i}
					if ctx.Err() == nil {
						var n int64
						err := layout.Guard(func() {
							s, err := layout.LoadFound(found[i].Found, found[i].Found.ReaderMax(maxFileBytes))
							if err != nil {
								d.err = err.Error()
								return
							}
							for _, f := range s.Files {
								n += int64(len(f.Text()))
							}
							rows[i] = catalog.RowWith(s, found[i], func(p string) string { return p }, catalog.Options{NoRedact: noRedact, Scans: lk.Scans(i)})
							ok[i] = true
						})
						if err != nil {
							d.err, ok[i] = err.Error(), false
						}
						d.size = n
					}
					results <- d
				}
			}()
		}
		var batch []catalog.Row
		var batchErrs []string
		tick := time.NewTicker(batchWait)
		defer tick.Stop()
		var read int64
		for n := 0; n < len(todo); {
			select {
			case d := <-results:
				n++
				read += d.size
				if d.err != "" {
					res.Errors = append(res.Errors, d.err)
					batchErrs = append(batchErrs, d.err)
				} else if ok[d.i] {
					r := shown(rows[d.i], found[d.i])
					res.Sessions = append(res.Sessions, r)
					batch = append(batch, r)
				}
				end.reportMsg(read, fmt.Sprintf("%d of %d sessions", cached+n, len(found)))
				if len(batch) >= batchRows {
					send(batch, batchErrs)
					batch, batchErrs = nil, nil
				}
			case <-tick.C:
				send(batch, batchErrs)
				batch, batchErrs = nil, nil
			}
		}
		if err := ctx.Err(); err != nil {
			end.End("cancelled")
			lk.Store(rows, ok) // what was read is right: the next request needs not read it again
			return sessionsResult{}, err
		}
		send(batch, batchErrs)
		end.End(count(len(res.Sessions), "session"))
		if err := lk.Store(rows, ok); err != nil {
			srv.log.Info("history cache not written", zap.Error(err))
		}
	}
	slices.SortStableFunc(res.Sessions, func(a, b catalog.Row) int {
		if c := strings.Compare(b.End, a.End); c != 0 {
			return c
		}
		return cmp.Compare(b.Mod, a.Mod)
	})
	return res, nil
}

// historyDirs are the folders of logs the session browser lists by default and the workspace
// symbol index covers: the workspace's .claude/projects folders, else the config folder's
// ($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects).
func (srv *server) historyDirs() []string {
	var dirs []string
	if srv.wsym != nil {
		dirs = srv.wsym.Dirs()
	}
	if len(dirs) == 0 {
		if d, err := history.DefaultDir(); err == nil {
			dirs = []string{d}
		}
	}
	return dirs
}

// historyCache is the history cache (docs/spec.md §14), opened on first need; nil with --no-cache
// or when it cannot be opened (then every request reads the logs).
func (srv *server) historyCache() *cache.Cache {
	srv.cacheOnce.Do(func() {
		if srv.noCache {
			return
		}
		dir, err := cache.Dir()
		if err == nil {
			srv.cache, err = cache.Open(dir)
		}
		if err != nil {
			srv.log.Info("history cache not used", zap.Error(err))
		}
	})
	return srv.cache
}
