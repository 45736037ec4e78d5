package layout

import (
	"runtime/debug"
	"sync"
)

// The memory promise (docs/SECURITY.md): ccdag's peak memory stays within 10 × the size of the logs
// it holds + 100 MB. The index is at most a few times the text for any input, but a collector
// that lets the heap double before collecting could still pass the bound; so the bound is also
// Go's soft memory limit, which makes the collector work harder near it instead.

var budgetMu sync.Mutex

// SetMemoryBudget sets the soft memory limit for logs totalling size bytes, of which mapped bytes
// are memory-mapped (ReadFile: resident, yet outside what the limit counts). It is never below the
// limit GOMEMLIMIT set; a budget is only a floor for the collector's pace, not a cap on work.
func SetMemoryBudget(size, mapped int64) {
	budgetMu.Lock()
	defer budgetMu.Unlock()
	debug.SetMemoryLimit(max(envLimit, 10*size+100<<20-mapped-memSlack))
}

// memSlack keeps room for what the runtime holds outside the limit's accounting (binary, thread
// stacks of the OS, pages the collector has freed and not yet returned).
const memSlack = 32 << 20

// envLimit is the limit the process started with (GOMEMLIMIT, else none: math.MaxInt64 is
// reported, and the budget then only lowers it).
var envLimit = func() int64 {
	l := debug.SetMemoryLimit(-1)
	if l == 1<<63-1 {
		return 0
	}
	return l
}()
