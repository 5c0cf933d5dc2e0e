package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/env"
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

// TestEnvExitsWhenItsClientStopsReading: a client that closes its end of
// the replies' pipe and writes a request is gone; simulate env ends as at
// the end of its input, status 0 and nothing on stderr, not with a write
// error (it writes to a file description of its own, which gets EPIPE
// where standard output would get SIGPIPE).
func TestEnvExitsWhenItsClientStopsReading(t *testing.T) {
	cmd := exec.Command(binary(t), "env")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	require.NoError(t, cmd.Start())
	require.NoError(t, w.Close())
	require.NoError(t, r.Close())
	_, err = stdin.Write(envFrame(t, map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny"}))
	require.NoError(t, err)
	exitsQuietly(t, cmd, &stderr)
}
