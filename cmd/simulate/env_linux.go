package main

import (
	"fmt"
	"os"
	"syscall"
)

// pollable returns a file for f's stream that the runtime's poller serves,
// when f is a pipe, as a learner's standard streams are: a goroutine
// waiting on it parks, where one reading f would hold a thread in a system
// call that the runtime's monitor wakes every 20 µs to check on
// (docs/performance.md). The pipe is opened anew through /proc, a file
// description of this process's own, non-blocking: f's, which a shell or
// the parent may share, stays as it was, also after a kill. flag is
// os.O_RDONLY or os.O_WRONLY, as f is open; anything else (a terminal, a
// file, a socket, no /proc) comes back as f.
func pollable(f *os.File, flag int) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return f
	}
	// O_NONBLOCK: opening a pipe's end must not wait for the other.
	g, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), flag|syscall.O_NONBLOCK, 0)
	if err != nil {
		return f
	}
	return g
}
