package parallel

import (
	"errors"
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
