//go:build unix

package main

import (
	"os"
	"syscall"
)

// pollable returns a file for f's stream that the runtime's poller serves
// when f is a pipe or a socket, as a learner's standard streams are: a
// goroutine waiting on it parks, where one reading f would hold a thread
// in a system call that the runtime's monitor wakes every 20 µs to check
// on (docs/performance.md). The file has a descriptor of its own, a
// duplicate, so that closing it leaves f open; the stream is non-blocking
// for both.
func pollable(f *os.File) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
