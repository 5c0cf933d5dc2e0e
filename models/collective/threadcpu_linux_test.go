package collective_test

import (
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time the calling thread has used, to the
// nanosecond (CLOCK_THREAD_CPUTIME_ID; getrusage counts in scheduler
// ticks of milliseconds).
func threadCPU(b *testing.B) time.Duration {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		b.Fatal(errno)
	}
	return time.Duration(ts.Nano())
}
