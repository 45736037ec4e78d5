// Package parallel runs two pieces of work at once the way the caller would run them one after
// the other: with the caller's handling of memory faults, and with a panic on either side raised
// in the caller.
//
// A log may be mapped into memory (layout.MapFile) and shrink while it is read: the access to a
// lost page faults. debug.SetPanicOnFault, which turns that fault into a panic the caller's
// layout.Guard recovers, holds for one goroutine only; a goroutine started without it dies with
// the whole process ("fatal error: fault"). Every goroutine that may touch a log's bytes is
// started here.
package parallel

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// Do runs f on a new goroutine and g on this one, and returns when both are done. f runs with this
// goroutine's SetPanicOnFault setting; a panic in f is raised again here with its own value (a
// memory fault stays a runtime.Error with its address, which layout.Guard recognises). When g
// panics, Do still waits for f, so that nothing reads the bytes after the caller let them go.
func Do(f, g func()) {
	onFault := debug.SetPanicOnFault(true)
	debug.SetPanicOnFault(onFault)
	done := make(chan any, 1)
	go func() {
		debug.SetPanicOnFault(onFault)
		defer func() { done <- recover() }()
		f()
	}()
	waited := false
	defer func() {
		if !waited {
			<-done // g panicked: its panic goes on once f is done
		}
	}()
	g()
	waited = true
	if p := <-done; p != nil {
		panic(p)
	}
}

// Many runs f(0) … f(n-1) at once, each on its own goroutine but f(n-1), which runs on this one,
// as Do runs two: with this goroutine's SetPanicOnFault setting, a panic in any raised here, and
// all of them waited for.
func Many(n int, f func(i int)) {
	switch {
	case n <= 0:
	case n == 1:
		f(0)
	default:
		Do(func() { Many(n-1, f) }, func() { f(n - 1) })
	}
}

// Each calls f(i) once for each i below n, on one goroutine per core at most (this one among
// them), each taking the next i not yet taken, as Many runs its goroutines.
func Each(n int, f func(i int)) {
	var next atomic.Int64
	Many(min(runtime.GOMAXPROCS(0), n), func(int) {
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			f(i)
		}
	})
}
