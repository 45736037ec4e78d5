//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system) of the process so far: a figure that, unlike wall
// time, other load on the machine inflates little.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
