package main

import (
	"bytes"
	le "encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/env"
)

// envFrame returns a swarmsim-env/2 message with a header and no arrays.
func envFrame(t *testing.T, header any) []byte {
	h, err := json.Marshal(header)
	require.NoError(t, err)
	return append(le.LittleEndian.AppendUint32(nil, uint32(len(h))), h...)
}

// TestEnvExitsWithItsClient starts simulate env as a client would, makes
// an environment, and closes its standard input without a close request,
// as a client that dies does: the process ends at once, with status 0,
// having answered what it was asked and written nothing on stderr.
func TestEnvExitsWithItsClient(t *testing.T) {
	cmd := exec.Command(binary(t), "env")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	_, err = stdin.Write(envFrame(t, map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny", "variant": "team", "num_envs": 4, "group": 2}))
	require.NoError(t, err)
	_, err = stdin.Write(envFrame(t, map[string]any{"op": "reset"}))
	require.NoError(t, err)
	require.NoError(t, stdin.Close())
	exitsQuietly(t, cmd, &stderr)
	r := env.NewReader(&stdout)
	for _, op := range []string{"make", "reset"} {
		m, err := r.Read()
		require.NoError(t, err, op)
		var h struct{ OK bool }
		require.NoError(t, json.Unmarshal(m.Header, &h))
		assert.True(t, h.OK, "%s: %s", op, m.Header)
	}
}

// exitsQuietly waits for a started simulate env whose client is gone: it
// must end within 30 s, with status 0 and nothing on stderr.
func exitsQuietly(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "stderr: %s", stderr.String())
	case <-time.After(30 * time.Second):
		require.NoError(t, cmd.Process.Kill())
		t.Fatal("simulate env outlived its client")
	}
	assert.Empty(t, stderr.String())
}

// TestEnvMemoryBound: a session whose heap passes --max-memory (64 rows
// of a fork-join of 50,000 parts, over 1 GB) ends with status 1 and says
// why on stderr, where it grew as far as the work took it (with more, until
// the system killed it).
func TestEnvMemoryBound(t *testing.T) {
	cmd := exec.Command(binary(t), "env", "--max-memory", "32MiB")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	_, err = stdin.Write(envFrame(t, map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "rlcr-peer", "variant": "w1", "num_envs": 64,
		"set": map[string]any{"task.width": "50000"}}))
	require.NoError(t, err)
	_, err = stdin.Write(envFrame(t, map[string]any{"op": "reset"}))
	require.NoError(t, err)
	// Ended by the bound, the server has closed the pipe: an error here
	// is that, and Wait says the rest.
	_ = stdin.Close()
	var exit *exec.ExitError
	require.ErrorAs(t, cmd.Wait(), &exit, "stderr: %s", &stderr)
	assert.Equal(t, exitFail, exit.ExitCode())
	assert.Regexp(t, `^simulate env: memory bound reached: the heap holds [0-9.]+MiB, above --max-memory 32MiB \(raise it, or make the scenario smaller\)\n$`, stderr.String())
}

// TestEnvFramingError checks that a header that is not JSON ends the
// session with an error reply and status 1.
func TestEnvFramingError(t *testing.T) {
	cmd := exec.Command(binary(t), "env")
	cmd.Stdin = bytes.NewReader(append(le.LittleEndian.AppendUint32(nil, 3), "{x:"...))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, exitFail, exit.ExitCode())
	assert.Contains(t, stderr.String(), "simulate env: framing: the header is not a JSON object")
	m, err := env.NewReader(&stdout).Read()
	require.NoError(t, err)
	assert.Contains(t, string(m.Header), `"field":"header"`)
}

// TestEnvTruncatedMessage checks that an input that ends inside a message
// (a client that died while writing it, or wrote fewer bytes than its
// length says) ends simulate env with status 1 and says so on stderr,
// whether the client still reads the error reply or is gone.
func TestEnvTruncatedMessage(t *testing.T) {
	for _, reading := range []bool{true, false} {
		t.Run(map[bool]string{true: "client reading", false: "client gone"}[reading], func(t *testing.T) {
			cmd := exec.Command(binary(t), "env")
			cmd.Stdin = bytes.NewReader(envFrame(t, map[string]any{"op": "reset"})[:6])
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if !reading {
				r, w, err := os.Pipe()
				require.NoError(t, err)
				require.NoError(t, r.Close())
				defer w.Close()
				cmd.Stdout = w
			}
			err := cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
			assert.Equal(t, exitFail, exit.ExitCode())
			assert.Equal(t, "simulate env: framing: the input ended inside a message, after 2 of the 14 bytes of its header: unexpected EOF\n", stderr.String())
			if reading {
				m, err := env.NewReader(&stdout).Read()
				require.NoError(t, err)
				assert.Contains(t, string(m.Header), `"field":"header"`)
			}
		})
	}
}

// TestEnvDocExample runs the policy program of docs/environment.md, a
// Python script on the standard library, against simulate env: it drives
// a group of episodes to their ends by action names.
func TestEnvDocExample(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	doc, err := os.ReadFile("../../docs/environment.md")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(doc), "```python\n")
	require.True(t, ok, "docs/environment.md has no Python example")
	script, _, _ := strings.Cut(after, "```")
	path := filepath.Join(t.TempDir(), "policy_program.py")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o644))
	out, err := exec.Command(python, path, binary(t)).CombinedOutput()
	require.NoError(t, err, "%s", out)
	finished := strings.Count(string(out), "finished at")
	assert.Equal(t, 4, finished, "every row of the group finishes once:\n%s", out)
	// The rules play the team organization's order on the group's task,
	// which that organization completes (simulate run tiny --seed 1,
	// team's episode 0): an example whose every episode failed would
	// read as a broken environment.
	assert.Equal(t, 4, strings.Count(string(out), "acceptable 1"), "every row's result is acceptable:\n%s", out)
}
