package check

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ccdag/ccdag/internal/parallel"
	"github.com/ccdag/ccdag/internal/session"
)

// The check of a large file on every core. A record's findings (findings: its secret scan, most of
// a check's work, docs/PERFORMANCE.md "100 MB generated log", and its links, read from the
// session's indexes) depend on the session, which nothing changes while it is checked; what the
// checker keeps of them (keep: the tallies, MaxPerCode) depends on the records before. So while the
// checker goes through a file's records in line order, helpers compute the findings of the
// records ahead of it, a chunk of lines at a time, and the checker takes them in line order: the
// same findings as its own, computed by the same function. It computes a chunk itself when it
// gets there first.

// aheadFrom is the size from which a file is checked ahead: under it, the hand-offs cost more
// than a second core gains.
var aheadFrom = 4 << 20 // a variable for the tests

// A chunk of lines, what a helper takes at once, ends past chunkBytes or chunkRecs (at least one
// line each): a chunk's findings wait for the checker, at most four chunks per helper and maxAhead
// in all (slots), and a crafted log of tiny records, each a finding, must not hold many
// (docs/SECURITY.md, memory).
var (
	chunkBytes = 256 << 10 // variables for the tests
	chunkRecs  = 2048
)

// maxAhead bounds the chunks computed and not yet taken, whatever the cores: a chunk of 2 048
// records that are each a finding holds about half a megabyte of them.
const maxAhead = 32

// ahead holds the findings of a file's chunks of lines, found by helpers ahead of the checker.
type ahead struct {
	c      *Checker
	f      *session.File
	bounds []int // chunk k is lines bounds[k] to bounds[k+1]
	chunks []chunkFound
	done   []chan struct{} // closed when a helper has filled chunks[k]
	mine   []bool          // chunk k was computed (or skipped) by the checker itself
	next   atomic.Int64    // the next chunk nobody has taken
	slots  chan struct{}   // one per chunk a helper took and the checker has not left: a bound on memory
	quit   chan struct{}   // closed when the checker is done (or stopped)
	failed chan struct{}   // closed when a helper panicked (a mapped log that shrank)
	fail   sync.Once
	cur    int // the chunk the checker is in
	ready  bool
}

// chunkFound is what one chunk's records found: those with findings or an unanswered call, in
// line order.
type chunkFound struct {
	recs []found
	pos  int // the checker's place in recs
}

type found struct {
	line    int
	fs      []Finding
	openUse bool
}

// helpers returns how many helpers compute ahead of a checker: every core but the checker's.
func helpers() int { return runtime.GOMAXPROCS(0) - 1 }

// withAhead runs body, which goes through f's records in line order calling findingsOf, with f's
// findings found ahead on the other cores when it is worth it (Options.Parallel).
func (c *Checker) withAhead(f *session.File, body func()) {
	n := helpers()
	if !c.parallel || c.noSecrets || n < 1 || len(f.Text()) < aheadFrom || f.NotJSONL() {
		body()
		return
	}
	a := newAhead(c, f, n)
	saved := c.ahead
	c.ahead = a
	defer func() { c.ahead = saved }()
	parallel.Do(func() { parallel.Many(n, func(int) { a.help() }) }, func() {
		defer close(a.quit) // the helpers stop, and Do waits for them
		body()
	})
}

func newAhead(c *Checker, f *session.File, helpers int) *ahead {
	a := &ahead{c: c, f: f, bounds: []int{0}}
	lines := f.LineCount()
	from, recs := 0, 0
	for i := range lines {
		if f.Rec(i) != nil {
			recs++
		}
		if f.LineStart(i+1)-from >= chunkBytes || recs == chunkRecs {
			a.bounds = append(a.bounds, i+1)
			from, recs = f.LineStart(i+1), 0
		}
	}
	if a.bounds[len(a.bounds)-1] != lines {
		a.bounds = append(a.bounds, lines)
	}
	n := len(a.bounds) - 1
	a.chunks = make([]chunkFound, n)
	a.done = make([]chan struct{}, n)
	for k := range a.done {
		a.done[k] = make(chan struct{})
	}
	a.mine = make([]bool, n)
	a.slots = make(chan struct{}, min(4*helpers, maxAhead))
	a.quit = make(chan struct{})
	a.failed = make(chan struct{})
	return a
}

// help takes the next chunk and computes it, until there is none or the checker is done. It takes a
// slot first, so that helpers are never more than the slots ahead of the checker.
func (a *ahead) help() {
	defer func() {
		if p := recover(); p != nil {
			a.fail.Do(func() { close(a.failed) })
			panic(p) // parallel.Do raises it in the checker's goroutine once the checker is done
		}
	}()
	for {
		select {
		case <-a.quit: // first: a done checker's helpers start nothing more
			return
		default:
		}
		select {
		case a.slots <- struct{}{}:
		case <-a.quit:
			return
		case <-a.failed:
			return
		}
		k := int(a.next.Add(1) - 1)
		if k >= len(a.chunks) {
			<-a.slots
			return
		}
		a.chunks[k] = a.scan(k)
		close(a.done[k])
	}
}

// scan returns what chunk k's records find.
func (a *ahead) scan(k int) chunkFound {
	var ch chunkFound
	for i := a.bounds[k]; i < a.bounds[k+1]; i++ {
		r := a.f.Rec(i)
		if r == nil {
			continue
		}
		if fs, open := a.c.findings(r); len(fs) > 0 || open {
			ch.recs = append(ch.recs, found{i, fs, open})
		}
	}
	return ch
}

// found returns the findings of the record of line, and false when they are not at hand (a line
// before the checker's chunk, or a helper failed): then the caller computes them itself.
func (a *ahead) found(line int) ([]Finding, bool, bool) {
	for a.cur < len(a.chunks) && line >= a.bounds[a.cur+1] {
		a.leave(a.cur)
		a.cur++
		a.ready = false
	}
	if a.cur >= len(a.chunks) || line < a.bounds[a.cur] {
		return nil, false, false
	}
	if !a.ready {
		if !a.take(a.cur) {
			return nil, false, false
		}
		a.ready = true
	}
	ch := &a.chunks[a.cur]
	for ch.pos < len(ch.recs) && ch.recs[ch.pos].line < line {
		ch.pos++
	}
	if ch.pos == len(ch.recs) || ch.recs[ch.pos].line != line {
		return nil, false, true
	}
	fd := &ch.recs[ch.pos]
	fs := fd.fs
	fd.fs = nil // the caller's now (keep reuses it)
	return fs, fd.openUse, true
}

// take makes chunk k's findings ready: computed here when no helper has taken it yet, else a
// helper's once it is done; while it is not, this goroutine computes the next chunk nobody has
// taken (a few ahead at most) rather than wait. False: a helper failed before it was done.
func (a *ahead) take(k int) bool {
	if a.mine[k] {
		return true
	}
	if a.next.CompareAndSwap(int64(k), int64(k+1)) {
		a.mine[k] = true
		a.chunks[k] = a.scan(k)
		return true
	}
	for {
		select {
		case <-a.done[k]:
			return true
		case <-a.failed:
			return false
		default:
		}
		j := int(a.next.Load())
		if j >= len(a.chunks) || j >= k+cap(a.slots) || !a.next.CompareAndSwap(int64(j), int64(j+1)) {
			break
		}
		a.mine[j] = true
		a.chunks[j] = a.scan(j)
	}
	select {
	case <-a.done[k]:
		return true
	case <-a.failed:
		return false
	}
}

// leave lets chunk k go: its findings, and the slot of the helper that computed it. A chunk nobody
// has taken is skipped.
func (a *ahead) leave(k int) {
	if a.mine[k] || a.next.CompareAndSwap(int64(k), int64(k+1)) {
		a.chunks[k] = chunkFound{}
		return
	}
	select {
	case <-a.done[k]:
		a.chunks[k] = chunkFound{}
		<-a.slots
	case <-a.failed:
	}
}
