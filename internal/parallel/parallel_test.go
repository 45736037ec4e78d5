package parallel

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoRunsBoth(t *testing.T) {
	var a, b atomic.Bool
	Do(func() { a.Store(true) }, func() { b.Store(true) })
	if !a.Load() || !b.Load() {
		t.Error("not both ran")
	}
}

func TestDoRaisesFsPanicHere(t *testing.T) {
	want := errors.New("boom")
	defer func() {
		if p := recover(); p != want {
			t.Errorf("recovered %v, want f's own value", p)
		}
	}()
	Do(func() { panic(want) }, func() {})
}

func TestDoWaitsForFWhenGPanics(t *testing.T) {
	var fDone atomic.Bool
	func() {
		defer func() { recover() }()
		Do(func() { time.Sleep(50 * time.Millisecond); fDone.Store(true) }, func() { panic("g") })
	}()
	if !fDone.Load() {
		t.Error("Do returned (g's panic) before f was done")
	}
}

func TestManyRunsEachOnceAtOnce(t *testing.T) {
	const n = 5
	var ran [n]atomic.Int32
	var in atomic.Int32
	all := make(chan struct{})
	Many(n, func(i int) {
		ran[i].Add(1)
		if in.Add(1) == n {
			close(all)
		}
		<-all // returns only when all n are running at once
	})
	for i := range ran {
		if ran[i].Load() != 1 {
			t.Errorf("f(%d) ran %d times", i, ran[i].Load())
		}
	}
	Many(0, func(int) { t.Error("f called for n = 0") })
}

func TestManyRaisesAPanicHere(t *testing.T) {
	want := errors.New("boom")
	defer func() {
		if p := recover(); p != want {
			t.Errorf("recovered %v, want f's own value", p)
		}
	}()
	Many(4, func(i int) {
		if i == 1 {
			panic(want)
		}
	})
}

// Each calls f once for every index, on at most one goroutine per core, and raises a panic here.
func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 1000} {
		ran := make([]atomic.Int32, n)
		var in, most atomic.Int32
		Each(n, func(i int) {
			k := in.Add(1)
			for m := most.Load(); k > m && !most.CompareAndSwap(m, k); m = most.Load() {
			}
			ran[i].Add(1)
			in.Add(-1)
		})
		for i := range ran {
			if ran[i].Load() != 1 {
				t.Fatalf("n %d: f(%d) ran %d times", n, i, ran[i].Load())
			}
		}
		if int(most.Load()) > runtime.GOMAXPROCS(0) {
			t.Errorf("n %d: %d calls at once, more than the cores", n, most.Load())
		}
	}
	want := errors.New("boom")
	defer func() {
		if p := recover(); p != want {
			t.Errorf("recovered %v, want f's own value", p)
		}
	}()
	Each(100, func(i int) {
		if i == 50 {
			panic(want)
		}
	})
}
