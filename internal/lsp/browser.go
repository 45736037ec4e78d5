package lsp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
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
	"github.com/ccdag/ccdag/internal/session"
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
	var q *search.Query
	if strings.TrimSpace(p.Query) != "" {
		var err error
		if q, err = search.Compile(p.Query); err != nil {
			return sessionsResult{}, invalidParams("%s: query: %v", methodSessions, err)
		}
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
	lk := catalog.Look(c, found, dirs, srv.hooks.maxFileBytes) // a log past the limit: never from the cache
	// When Claude Code deletes each session, as `ccdag sessions` says it (docs/spec.md §11): only
	// for logs its sweep reaches; settings.json is read once per request.
	cfg, cfgErr := retention.ConfigDir()
	var pol retention.Policy
	covers := func(string) bool { return false }
	if cfgErr == nil {
		pol = retention.Load(cfg)
		covers = retention.Coverer(cfg)
	}
	send := func(rows []catalog.Row, errs []string) {
		if len(p.PartialResultToken) == 0 || string(p.PartialResultToken) == "null" || len(rows) == 0 && len(errs) == 0 {
			return
		}
		srv.notify("$/progress", progressParams{Token: p.PartialResultToken, Value: sessionsResult{Sessions: rows, Errors: errs}})
	}
	// Streamed rows: the cached ones in one batch, then batches of what was read, sent when full or
	// batchWait after the last one sent (a ticker of its own: rows may be slow to come).
	var mu sync.Mutex
	var batch []catalog.Row
	var batchErrs []string
	flush := func() {
		mu.Lock()
		b, e := batch, batchErrs
		batch, batchErrs = nil, nil
		mu.Unlock()
		send(b, e)
	}
	var end *progress
	var read atomic.Int64 // bytes of the logs read, for the progress
	cached, total := 0, 0
	stop := func() {}
	listing, err := catalog.Pipeline{
		Query:   q,
		Options: catalog.Options{NoRedact: noRedact},
		Show: func(r catalog.Row, h history.Session) catalog.Row {
			r.URI = pathToURI(h.Paths()[0])
			if covers(h.Paths()[0]) {
				r.SetDeletes(pol.Deletes(h.Mod), time.Now())
			}
			return r
		},
		Load: func(h history.Session, use func(*session.Session)) error {
			var loadErr error
			err := layout.Guard(func() {
				s, err := layout.LoadFound(h.Found, h.Found.ReaderMax(srv.hooks.maxFileBytes))
				if err != nil {
					loadErr = err
					return
				}
				var n int64
				for _, f := range s.Files {
					n += int64(len(f.Text()))
				}
				read.Add(n)
				use(s)
			})
			if err != nil {
				return err
			}
			return loadErr
		},
		Cached: func(n int, todo []int) {
			flush()
			cached, total = n, len(found)
			if len(todo) == 0 {
				return
			}
			var size int64
			for _, i := range todo {
				for _, p := range found[i].Paths() {
					fi, seen := found[i].Info(p) // the walk's lstat: no second look at each log
					if !seen {
						var err error
						if fi, err = os.Stat(p); err != nil {
							continue
						}
					}
					size += fi.Size()
				}
			}
			end = srv.beginProgress(p.WorkDoneToken, "Reading sessions", size)
			end.total = size
			tick := time.NewTicker(batchWait)
			quit := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					select {
					case <-tick.C:
						flush()
					case <-quit:
						return
					}
				}
			})
			stop = func() { tick.Stop(); close(quit); wg.Wait() }
		},
		Each: func(l catalog.Listed, err error) {
			mu.Lock()
			if err != nil {
				batchErrs = append(batchErrs, err.Error())
			} else {
				batch = append(batch, l.Row)
			}
			full := len(batch) >= batchRows
			mu.Unlock()
			if end == nil { // the cached rows: one batch (Cached sends it)
				return
			}
			cached++
			end.reportMsg(read.Load(), fmt.Sprintf("%d of %d sessions", cached, total))
			if full {
				flush()
			}
		},
	}.Run(ctx, found, lk)
	stop() // lk is not closed: the server's cache stays open
	if err != nil {
		end.End("cancelled")
		return sessionsResult{}, err
	}
	if end != nil {
		flush()
		end.End(count(len(listing.Rows), "session"))
	}
	if listing.Stored != nil {
		srv.log.Info("history cache not written", zap.Error(listing.Stored))
	}
	for _, l := range listing.Rows {
		res.Sessions = append(res.Sessions, l.Row)
	}
	for _, e := range listing.Failed {
		res.Errors = append(res.Errors, e.Error())
	}
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
