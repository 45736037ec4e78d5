package lsp

import (
	"cmp"
	"context"
	"os"
	"slices"
	"strings"
	"time"

	json "github.com/goccy/go-json"

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
	Folders       []string        `json:"folders,omitempty"`
	Query         string          `json:"query,omitempty"` // only the sessions a record of which holds every word
	WorkDoneToken json.RawMessage `json:"workDoneToken,omitempty"`
}

type sessionsResult struct {
	Sessions []catalog.Row `json:"sessions"`
	// Errors are the folders and sessions that could not be read, each said once.
	Errors []string `json:"errors,omitempty"`
}

// listSessions answers ccdag/sessions.
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
		if srv.wsym != nil {
			dirs = srv.wsym.Dirs()
		}
		if len(dirs) == 0 {
			if d, err := history.DefaultDir(); err == nil {
				dirs = []string{d}
			}
		}
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
	var size int64
	for _, h := range found {
		for _, p := range h.Paths() {
			if fi, err := os.Stat(p); err == nil {
				size += fi.Size()
			}
		}
	}
	end := srv.beginProgress(p.WorkDoneToken, "Reading sessions", size)
	// When Claude Code deletes each session, as `ccdag sessions` says it (docs/spec.md §11): only
	// for logs its sweep reaches; settings.json is read once per request.
	cfg, cfgErr := retention.ConfigDir()
	var pol retention.Policy
	if cfgErr == nil {
		pol = retention.Load(cfg)
	}
	for _, h := range found {
		if err := ctx.Err(); err != nil {
			end.End("cancelled")
			return sessionsResult{}, err
		}
		if sc != nil && !catalog.FoundHolds(sc, h.Found) {
			continue
		}
		var row catalog.Row
		err := layout.Guard(func() {
			s, err := layout.LoadFound(h.Found, nil)
			if err != nil {
				res.Errors = append(res.Errors, err.Error())
				return
			}
			row = catalog.RowOf(s, h, func(p string) string { return p })
			row.URI = pathToURI(h.Paths()[0])
			if cfgErr == nil && retention.Covers(cfg, h.Paths()[0]) {
				row.SetDeletes(pol.Deletes(h.Mod), time.Now())
			}
			res.Sessions = append(res.Sessions, row)
		})
		if err != nil {
			res.Errors = append(res.Errors, err.Error())
		}
	}
	end.End(count(len(res.Sessions), "session"))
	slices.SortStableFunc(res.Sessions, func(a, b catalog.Row) int {
		if c := strings.Compare(b.End, a.End); c != 0 {
			return c
		}
		return cmp.Compare(b.Mod, a.Mod)
	})
	return res, nil
}
