//go:build unix

package scenarios_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestPolicyFileNotAFile: a FIFO named as a policy file is refused before
// it is opened, by the variant's Policy (which simulate env's make with
// decide main calls) and by CheckFiles, where opening it waited for a
// writer for ever.
func TestPolicyFileNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	writeFiles(t, dir, map[string]string{"s.yaml": "task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\n"})
	sc, err := scenarios.Load(filepath.Join(dir, "s.yaml"), []string{"policy.file=" + fifo})
	require.NoError(t, err)
	want := fifo + " is not a regular file (p---------): want a policy file"
	done := make(chan [2]error, 1)
	go func() {
		_, err := sc.Variants[0].Policy()
		done <- [2]error{err, sc.CheckFiles()}
	}()
	select {
	case errs := <-done:
		assert.ErrorContains(t, errs[0], want)
		assert.ErrorContains(t, errs[1], want)
	case <-time.After(10 * time.Second):
		t.Fatalf("the policy file %s is still being opened after 10 s", fifo)
	}
	sc, err = scenarios.Load(filepath.Join(dir, "s.yaml"), []string{"policy.file=" + dir})
	require.NoError(t, err)
	_, err = sc.Variants[0].Policy()
	assert.ErrorContains(t, err, dir+" is a directory, not a policy file")
}

// TestInputDigestNotAFile: a FIFO among the traces is refused, not read:
// reading it would wait for a writer for ever.
func TestInputDigestNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "traces", "fifo.json")
	writeFiles(t, dir, map[string]string{"traces/a.json": "{}", "s.yaml": "task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\n"})
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	sc, err := scenarios.Load(filepath.Join(dir, "s.yaml"), []string{"replay.traces=[" + filepath.Join(dir, "traces") + "]"})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := sc.InputDigest(&sc.Variants[0].Spec)
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "the replay.traces: "+fifo+" is not a regular file (p---------)")
	case <-time.After(10 * time.Second):
		t.Fatalf("InputDigest still reads %s after 10 s", fifo)
	}
}
