//go:build !linux

package collective_test

import (
	"testing"
	"time"
)

// threadCPU falls back to the process's CPU time (or the wall clock)
// where a thread's is not at hand.
func threadCPU(b *testing.B) time.Duration { return cpuTime(b) }
