//go:build !unix

package collective_test

import (
	"testing"
	"time"
)

// cpuTime falls back to the wall clock where the process's CPU time is
// not available.
func cpuTime(*testing.B) time.Duration { return time.Duration(time.Now().UnixNano()) }
