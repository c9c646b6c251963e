package ars

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling thread has run, in ns, and whether it could be
// read: on a machine shared with other work, a benchmark's wall time counts the time its
// thread waited for a core, its CPU time does not.
func threadCPU() (int64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return ts.Nano(), true
}

// lockThread pins the benchmark's goroutine to its thread, so that threadCPU measures it.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
