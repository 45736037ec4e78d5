package catalog

import (
	"encoding/json"
	"errors"
	"os"
	"strings"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/tokens"
	"github.com/ccdag/ccdag/internal/version"
)

// Rows in the history cache (internal/cache, docs/spec.md §14): a row is stored as computed with
// its logs' paths as they are (absolute), before the view writes them its way (Display) and adds
// what does not come from the logs (deletes, uri). Its JSON is the row's own plus the fields the
// row's JSON leaves out (json:"-"), so that a row read back is the row computed
// (TestStoredRowRoundTrips holds every field).

type stored struct {
	Row        Row         `json:"row"`
	Mod        int64       `json:"mod"`
	TokenCost  tokens.Cost `json:"tokenCost"`
	Messages   int64       `json:"messages"`
	ResumeEra  resume.Era  `json:"resumeEra,omitempty"`
	ResumeDrop bool        `json:"resumeDropsCalls,omitempty"`
}

// Encode is a row as the cache stores it.
func Encode(r Row) ([]byte, error) {
	s := stored{Row: r, Mod: r.Mod, TokenCost: r.Tokens.Cost, Messages: r.Tokens.Messages}
	if r.Resume != nil {
		s.ResumeEra, s.ResumeDrop = r.Resume.Era, r.Resume.DropsCalls
	}
	return json.Marshal(s)
}

// Decode reads a row Encode wrote.
func Decode(b []byte) (Row, error) {
	var s stored
	if err := json.Unmarshal(b, &s); err != nil {
		return Row{}, err
	}
	if s.Row.ID == "" && s.Row.Path == "" {
		return Row{}, errors.New("not a row")
	}
	r := s.Row
	r.Mod, r.Tokens.Cost, r.Tokens.Messages = s.Mod, s.TokenCost, s.Messages
	if r.Resume != nil {
		r.Resume.Era, r.Resume.DropsCalls = s.ResumeEra, s.ResumeDrop
	}
	return r, nil
}

// Display writes the row's paths as a view shows them (the row is copied, the cached one intact).
func (r Row) Display(display func(string) string) Row {
	r.Path = display(r.Path)
	if r.Resume != nil {
		res := *r.Resume
		if res.BrokenAt != nil {
			b := *res.BrokenAt
			b.Path = display(b.Path)
			res.BrokenAt = &b
		}
		if res.Bridged != nil {
			res.Bridged = append(res.Bridged[:0:0], res.Bridged...)
			for i := range res.Bridged {
				res.Bridged[i].Path = display(res.Bridged[i].Path)
			}
		}
		r.Resume = &res
	}
	return r
}

// Usable reports whether rows made now may come from and go to the cache: only under the built-in
// price table (the cache holds rows priced by it).
func Usable() bool { return prices.Current() == prices.Builtin() }

// Lookup is what the cache held of a list of sessions.
type Lookup struct {
	c      *cache.Cache
	Rows   []Row  // Rows[i] is found[i]'s row where Hit[i]
	Hit    []bool // answered by the cache
	stamps []cache.Stamp
	keys   []string
	tails  []cache.Entry // log versions read (resume's loader), to store
	drop   []string
}

// tailKey is the key of a log's version (resume.TailVersion) in the cache; a row's key is its
// main log's path.
const tailKey = "tail:"

// Look finds the rows of found that the cache holds for their logs as they are now. c may be nil
// (no cache: nothing is a hit). roots are the folders found was read from: a cached session under
// them that is no longer found is dropped by Store.
func Look(c *cache.Cache, found []history.Session, roots []string) *Lookup {
	l := &Lookup{c: c, Rows: make([]Row, len(found)), Hit: make([]bool, len(found)), stamps: make([]cache.Stamp, len(found)), keys: make([]string, len(found))}
	if c == nil {
		return l
	}
	all, err := c.Without("wsym:") // the workspace symbols' entries (internal/wsymbol) are not read
	if err != nil {
		return l // unreadable: everything is computed
	}
	build := cache.Build(version.Version)
	// The walk that found the sessions looked at each log: its answer is the log's stamp (a log
	// it did not see is looked at here).
	lstat := os.Lstat
	if len(found) > 0 {
		lstat = func(p string) (os.FileInfo, error) {
			if fi, ok := found[0].Info(p); ok {
				return fi, nil
			}
			return os.Lstat(p)
		}
	}
	// A log's version as the loader's decision reads it, from the cache when the log is unchanged.
	tail := func(path, root string) string {
		st, err := cache.StampWith([]string{path}, build, lstat)
		if err != nil {
			return resume.TailVersion(path, root)
		}
		if e, ok := all[tailKey+path]; ok && e.Stamp == st {
			return string(e.Data)
		}
		v := resume.TailVersion(path, root)
		l.tails = append(l.tails, cache.Entry{Key: tailKey + path, Stamp: st, Data: []byte(v)})
		return v
	}
	loaders := map[string]string{} // config folder → the loader's version, decided once
	for i, h := range found {
		paths := h.Paths()
		l.keys[i] = paths[0]
		cfg := resume.ConfigDir(paths[0])
		v, ok := loaders[cfg]
		if !ok {
			// The resume figure depends on the loader assumed, which depends on other logs than
			// the session's (resume.LoaderOf): it is part of the stamp. The newest version under
			// the config folder is remembered for the rows computed next (resume.Compute).
			resume.NewestVersionWith(cfg, tail)
			v = resume.LoaderOf(paths[0], "", "").Version
			loaders[cfg] = v
		}
		if st, err := cache.StampWith(paths, build+"\x00"+v, lstat); err == nil {
			l.stamps[i] = st
		}
	}
	for i := range found {
		e, ok := all[l.keys[i]]
		if !ok || l.stamps[i] == "" || e.Stamp != l.stamps[i] {
			continue
		}
		if r, err := Decode(e.Data); err == nil && r.Path == l.keys[i] {
			l.Rows[i], l.Hit[i] = r, true
		}
	}
	if len(roots) > 0 {
		l.drop = gone(all, l.keys, roots, lstat)
	}
	return l
}

// Store writes the rows computed (ok[i]: rows[i] is found[i]'s, computed with its logs as Look
// stamped them) and the log versions read, and drops the sessions gone, in one transaction. Errors
// are the cache's only: the rows are right either way.
func (l *Lookup) Store(rows []Row, ok []bool) error {
	if l.c == nil {
		return nil
	}
	put := l.tails
	for i := range rows {
		if !ok[i] || l.Hit[i] || l.stamps[i] == "" {
			continue
		}
		b, err := Encode(rows[i])
		if err != nil {
			return err
		}
		put = append(put, cache.Entry{Key: l.keys[i], Stamp: l.stamps[i], Data: b})
	}
	return l.c.Put(put, l.drop)
}

// Close closes the cache (nothing without one).
func (l *Lookup) Close() error {
	if l.c == nil {
		return nil
	}
	return l.c.Close()
}

// gone returns the cached keys under roots of sessions not among keys and of log versions whose
// log is gone.
func gone(all map[string]cache.Entry, keys, roots []string, lstat func(string) (os.FileInfo, error)) []string {
	have := make(map[string]bool, len(keys))
	for _, k := range keys {
		have[k] = true
	}
	var out []string
	for k := range all {
		if p, isTail := strings.CutPrefix(k, tailKey); isTail {
			if _, err := lstat(p); err != nil && history.Under(p, roots) {
				out = append(out, k)
			}
		} else if !have[k] && history.Under(k, roots) {
			out = append(out, k)
		}
	}
	return out
}
