package testutil

import (
	"testing"
	"time"
)

// CPUTime grows with work done and not with time slept.
func TestCPUTime(t *testing.T) {
	c0 := CPUTime()
	time.Sleep(50 * time.Millisecond)
	slept := CPUTime() - c0
	x := 0
	for t0 := time.Now(); time.Since(t0) < 200*time.Millisecond; {
		x++
	}
	worked := CPUTime() - c0 - slept
	if worked <= 0 {
		t.Fatalf("CPUTime did not grow over 200 ms of work (x=%d)", x)
	}
	if slept >= worked {
		t.Errorf("50 ms asleep counted %v, more than 200 ms of work (%v)", slept, worked)
	}
}
