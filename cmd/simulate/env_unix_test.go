//go:build unix

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

// TestPollable: a pipe comes back as a file the runtime's poller serves
// (only those take deadlines), on a descriptor of its own, and still
// carries the stream; a regular file comes back as it was.
func TestPollable(t *testing.T) {
	// A pipe as a parent hands it over: blocking, so os.NewFile does not
	// poll it (os.Pipe's would be polled already).
	var fds [2]int
	require.NoError(t, syscall.Pipe(fds[:]))
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "writer")
	defer r.Close()
	defer w.Close()
	require.ErrorIs(t, r.SetReadDeadline(time.Now().Add(time.Minute)), os.ErrNoDeadline, "a blocking pipe")
	pr := pollable(r)
	defer pr.Close()
	assert.NoError(t, pr.SetReadDeadline(time.Now().Add(time.Minute)), "the poller serves it")
	rc, err := pr.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(fd uintptr) { assert.NotEqual(t, r.Fd(), fd, "closing one must not close the other") }))
	_, err = w.Write([]byte("step"))
	require.NoError(t, err)
	buf := make([]byte, 4)
	_, err = pr.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "step", string(buf))

	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	require.NoError(t, err)
	defer f.Close()
	assert.Same(t, f, pollable(f))
}
