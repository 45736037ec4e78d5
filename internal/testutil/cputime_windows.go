//go:build windows

package testutil

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system) of the process so far, from GetProcessTimes (100 ns
// units).
func CPUTime() time.Duration {
	var c, e, k, u syscall.Filetime
	h, _ := syscall.GetCurrentProcess()
	if syscall.GetProcessTimes(h, &c, &e, &k, &u) != nil {
		return 0
	}
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(k) + ticks(u)) * 100)
}
