package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nonblocking reports whether f's file description is non-blocking.
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	var fl uintptr
	require.NoError(t, rc.Control(func(fd uintptr) {
		fl, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}))
	return fl&syscall.O_NONBLOCK != 0
}

// TestPollable: both ends of a pipe come back as files the runtime's
// poller serves (only those take deadlines) that still carry the stream,
// while the pipe's own descriptions, which a shell may share, stay
// blocking; a regular file comes back as it was.
func TestPollable(t *testing.T) {
	// A pipe as a parent hands it over: blocking, so os.NewFile does not
	// poll it (os.Pipe's would be polled already).
	var fds [2]int
	require.NoError(t, syscall.Pipe(fds[:]))
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "stdout")
	defer r.Close()
	defer w.Close()
	require.ErrorIs(t, r.SetReadDeadline(time.Now().Add(time.Minute)), os.ErrNoDeadline, "a blocking pipe")
	pr, pw := pollable(r, os.O_RDONLY), pollable(w, os.O_WRONLY)
	defer pr.Close()
	defer pw.Close()
	assert.NoError(t, pr.SetReadDeadline(time.Now().Add(time.Minute)), "the poller serves the read end")
	assert.NoError(t, pw.SetWriteDeadline(time.Now().Add(time.Minute)), "and the write end")
	assert.False(t, nonblocking(t, r), "the read end's own description is left blocking")
	assert.False(t, nonblocking(t, w), "and the write end's")
	_, err := pw.Write([]byte("step"))
	require.NoError(t, err)
	buf := make([]byte, 4)
	_, err = pr.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "step", string(buf))

	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	require.NoError(t, err)
	defer f.Close()
	assert.Same(t, f, pollable(f, os.O_WRONLY))
}
