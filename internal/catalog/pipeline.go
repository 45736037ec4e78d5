package catalog

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/search"
	"github.com/ccdag/ccdag/internal/session"
)

// Pipeline is the one pipeline of a session list, `ccdag sessions` and the server's ccdag/sessions
// (docs/spec.md §8, §10, §14): the sessions a query keeps, each row from the history cache where
// the lookup holds it, the others read on every core and stored in the cache, newest first. The
// caller finds the sessions and looks them up (the CLI reads the cache while it walks the
// folders), loads a session its way (mapped, or read within a size limit) and shows the rows.
type Pipeline struct {
	Query *search.Query // only the sessions one of whose records holds every word (nil: all)
	// Options of the rows computed.
	Options Options
	// Raw: a cached row may come as its stored list element (Listed.Elem), not decoded.
	Raw bool
	// Display shows a path (nil: as it is); Show what the view adds to a row (nil: its paths through
	// Display). Neither applies to a raw element, given only when its paths show as stored.
	Display func(string) string
	Show    func(Row, history.Session) Row
	// Load loads a session's logs and hands it to use, which must not keep it; an error is the
	// session's, reported with the rows.
	Load func(h history.Session, use func(*session.Session)) error
	// Cached is told the cached rows are all handed over (n of them) and which sessions are to be
	// read (found's indexes), before any is; Each is given each row as it is known, the cached ones
	// first, then the others as they are read (err: that session could not be read). Both are
	// called from the goroutine that runs the list, either may be nil.
	Cached func(n int, todo []int)
	Each   func(l Listed, err error)
}

// Listed is one session of a list: its row, or (Pipeline.Raw) the row's JSON as the cache holds it
// (Element) with its sort keys; found[Found] the session.
type Listed struct {
	Row   Row
	Elem  []byte
	End   string
	Mod   int64
	Found int
}

// Listing is what Pipeline.Run gives: the rows newest first, the sessions that could not be read (in
// found's order) and the history cache's own error storing the rows read (they are right either
// way).
type Listing struct {
	Rows   []Listed
	Failed []error
	Stored error
}

// Run lists found (lk: what the cache holds of them; it is closed by the caller). On ctx's end
// while sessions are read it stops reading, stores what was read and returns ctx's error.
func (p Pipeline) Run(ctx context.Context, found []history.Session, lk *Lookup) (Listing, error) {
	display := p.Display
	if display == nil {
		display = func(s string) string { return s }
	}
	show := p.Show
	if show == nil {
		show = func(r Row, _ history.Session) Row { return r.Display(display) }
	}
	each := p.Each
	if each == nil {
		each = func(Listed, error) {}
	}
	kept := make([]bool, len(found))
	if p.Query == nil {
		for i := range kept {
			kept[i] = true
		}
	} else {
		workers(len(found), func(next func() (int, bool)) {
			sc := p.Query.NewScanner() // one a worker: its buffer is reused from log to log
			for i, ok := next(); ok; i, ok = next() {
				kept[i] = FoundHolds(sc, found[i].Found)
			}
		})
	}
	listed := make([]Listed, len(found))
	have := make([]bool, len(found))
	var todo []int
	n := 0
	for i := range found {
		if !kept[i] {
			continue
		}
		if lk.Hit[i] {
			if p.Raw {
				if e, end, mod, ok := lk.Element(i, display); ok {
					listed[i], have[i] = Listed{Elem: e, End: end, Mod: mod, Found: i}, true
					each(listed[i], nil)
					n++
					continue
				}
			}
			if r, ok := lk.Row(i); ok {
				r = show(r, found[i])
				listed[i], have[i] = Listed{Row: r, End: r.End, Mod: r.Mod, Found: i}, true
				each(listed[i], nil)
				n++
				continue
			}
			lk.Hit[i] = false // a blob that does not decode: computed, and stored again
		}
		todo = append(todo, i)
	}
	if p.Cached != nil {
		p.Cached(n, todo)
	}
	rows := make([]Row, len(found))
	ok := make([]bool, len(found))
	errs := make([]error, len(found))
	if len(todo) > 0 {
		done := make(chan int)
		go workers(len(todo), func(next func() (int, bool)) {
			for j, more := next(); more; j, more = next() {
				i := todo[j]
				if ctx.Err() == nil {
					errs[i] = p.Load(found[i], func(s *session.Session) {
						o := p.Options
						o.Scans = lk.Scans(i) // a grown log: only its new lines scanned
						rows[i] = RowWith(s, found[i], func(p string) string { return p }, o)
					})
					ok[i] = errs[i] == nil
				}
				done <- i
			}
		})
		for range todo {
			i := <-done
			switch {
			case errs[i] != nil:
				each(Listed{Found: i}, errs[i])
			case ok[i]:
				r := show(rows[i], found[i])
				listed[i], have[i] = Listed{Row: r, End: r.End, Mod: r.Mod, Found: i}, true
				each(listed[i], nil)
			}
		}
	}
	stored := lk.Store(rows, ok) // what was read is right, cancelled or not
	if err := ctx.Err(); err != nil && len(todo) > 0 {
		return Listing{}, err
	}
	var out Listing
	out.Stored = stored
	var order []int // the rows' indexes in found, sorted: a Listed is ~400 bytes, moved once
	for i := range found {
		switch {
		case errs[i] != nil:
			out.Failed = append(out.Failed, errs[i])
		case have[i]:
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(i, j int) int {
		a, b := &listed[i], &listed[j]
		if c := strings.Compare(b.End, a.End); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Mod, a.Mod); c != 0 {
			return c
		}
		return cmp.Compare(i, j) // stable
	})
	out.Rows = make([]Listed, len(order))
	for k, i := range order {
		out.Rows[k] = listed[i]
	}
	return out, nil
}

// workers runs work on one goroutine per core (at most n), each taking indexes below n from next
// until it says no more, and returns when all are done.
func workers(n int, work func(next func() (int, bool))) {
	var at atomic.Int64
	next := func() (int, bool) {
		i := int(at.Add(1) - 1)
		return i, i < n
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Go(func() { work(next) })
	}
	wg.Wait()
}
