package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// resumeArgs is a training of a few seconds: long enough to be killed in
// the middle.
func resumeArgs(out string) []string {
	return []string{"train", "tiny", "--set", "train.iterations=400", "--seeds", "2", "--workers", "1", "--charts=false", "--out", out}
}

// TestTrainResumesAfterKill kills a training with SIGKILL once it has
// checkpoints, runs the same command again, and compares its tables with
// those of a training that was never stopped: byte for byte.
func TestTrainResumesAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulate binary")
	}
	bin := binary(t)
	root := t.TempDir()
	killed := filepath.Join(root, "killed")

	cmd := exec.Command(bin, resumeArgs(killed)...)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for waiting := true; waiting; {
		select {
		case err := <-exited:
			t.Fatalf("the training ended before it was killed: %v", err)
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("no checkpoint after 60 s")
		case <-time.After(20 * time.Millisecond):
			parts, _ := filepath.Glob(filepath.Join(killed, train.CheckpointDir, "*.gob"))
			waiting = len(parts) == 0
		}
	}
	require.NoError(t, cmd.Process.Kill())
	<-exited
	_, err := os.Stat(filepath.Join(killed, "manifest.json"))
	require.True(t, os.IsNotExist(err), "killed in the middle: no manifest")

	var stderr bytes.Buffer
	again := exec.Command(bin, resumeArgs(killed)...)
	again.Stderr = &stderr
	require.NoError(t, again.Run(), stderr.String())
	assert.Contains(t, stderr.String(), "simulate train: resuming "+killed+": ")
	assert.NoDirExists(t, filepath.Join(killed, train.CheckpointDir), "a complete result keeps no checkpoints")

	whole := filepath.Join(root, "whole")
	mustSimulate(t, resumeArgs(whole)...)
	for _, name := range []string{"iterations.csv", "summary.csv", "policies/split-seed7.json", "policies/split-seed8.json"} {
		want, err := os.ReadFile(filepath.Join(whole, name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(killed, name))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s differs after the resume\n%s", name, firstDiff(want, got))
	}
}

func TestTrainDirectoryIdentity(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t")
	args := []string{"train", "tiny", "--set", "train.iterations=3", "--seeds", "1", "--charts=false", "--out", out}
	mustSimulate(t, args...)
	assert.NoDirExists(t, filepath.Join(out, train.CheckpointDir), "a complete run keeps no checkpoints, held ones included")

	_, stderr, code := simulate(t, args...)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "holds a complete run (manifest.json); use --force to overwrite it")
	mustSimulate(t, append(args, "--force")...)

	// Checkpoints of another training are not mixed with this one's.
	require.NoError(t, os.Remove(filepath.Join(out, "manifest.json")))
	other := append([]string{"train", "tiny", "--set", "train.iterations=4"}, args[4:]...)
	_, stderr, code = simulate(t, other...)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "holds other work: the training of scenario tiny")
	assert.Contains(t, stderr, "use --force to discard it")
	assert.NotContains(t, stderr, "--fresh", "train has no --fresh")
	// Nor those of one variant with every variant's.
	_, stderr, code = simulate(t, append(args, "--variant", "team")...)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "holds other work: the training of scenario tiny (hash ")
	assert.Contains(t, stderr, "seeds 1 from 7), not this one, of scenario tiny (hash ")
	assert.Contains(t, stderr, "seeds 1 from 7, variant team only)")

	// A run directory is not a train directory: --force would not help,
	// so the first refusal does not offer it.
	run := filepath.Join(t.TempDir(), "run")
	mustSimulate(t, "run", testScenario, "--episodes", "2", "--charts=false", "--out", run)
	for _, force := range []bool{false, true} {
		args := []string{"train", "tiny", "--set", "train.iterations=3", "--seeds", "1", "--charts=false", "--out", run}
		if force {
			args = append(args, "--force")
		}
		_, stderr, code = simulate(t, args...)
		assert.Equal(t, exitFail, code)
		assert.Contains(t, stderr, "holds a complete run without train.json; choose another directory with --out")
		assert.NotContains(t, stderr, "use --force")
	}
}

// TestTrainFailingAfterItsJobsResumes: a training that fails after its
// jobs are done (here its tables cannot be written), sooner than their
// last checkpoints are due, writes them on its way out: the directory
// stays, and the same command resumes every job where it ended.
func TestTrainFailingAfterItsJobsResumes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t")
	args := []string{"train", "tiny", "--set", "train.iterations=3", "--seeds", "2", "--workers", "1", "--charts=false", "--baseline=false", "--out", out}
	// An empty folder of the name, which no write replaces, and which
	// does not make the directory another's.
	require.NoError(t, os.MkdirAll(filepath.Join(out, "iterations.csv"), 0o755))
	_, stderr, code := simulate(t, args...)
	require.Equal(t, exitFail, code, stderr)
	assert.FileExists(t, filepath.Join(out, train.IdentityFile))
	parts, _ := filepath.Glob(filepath.Join(out, train.CheckpointDir, "*.gob"))
	assert.Len(t, parts, 2, "one checkpoint a job")
	assert.Contains(t, stderr, "6 of 6 iterations are kept in "+filepath.Join(out, train.CheckpointDir)+"; to resume after fixing the error below, run: ")

	require.NoError(t, os.RemoveAll(filepath.Join(out, "iterations.csv")))
	_, stderr, code = simulate(t, args...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "resuming "+out+": 6 of 6 iterations done")
}

// TestResumeHintOfAForcedTraining: a forced training that replaces a
// complete one and is interrupted keeps nothing of its own (Abort puts
// the old one back), and its hint says so rather than counting
// checkpoints.
func TestResumeHintOfAForcedTraining(t *testing.T) {
	out := t.TempDir()
	d, err := rundir.Create(out, false)
	require.NoError(t, err)
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain}))
	d, err = rundir.Create(out, true)
	require.NoError(t, err)
	defer d.Abort()
	assert.Equal(t, out+" still holds the training this one was to replace, and nothing of this one is kept; to train again, run: simulate train tiny --force",
		resumeHint(d, nil, 6, []string{"simulate", "train", "tiny", "--force"}, true, false))
}

// TestResumeHintLeavesOutForce: the command that the hint after an
// interrupt gives to resume leaves out --force, in any of its forms, and
// keeps every other word: --force discards the checkpoints of an
// unfinished training, so the command as typed would start over.
func TestResumeHintLeavesOutForce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t")
	args := []string{"train", "tiny", "--set", "train.iterations=3", "--seeds", "2", "--workers", "1", "--charts=false", "--baseline=false", "--out", out}
	// Tables that cannot be written stop the training after its jobs,
	// with their checkpoints kept, as an interrupt there would.
	require.NoError(t, os.MkdirAll(filepath.Join(out, "iterations.csv"), 0o755))
	_, stderr, code := simulate(t, args...)
	require.Equal(t, exitFail, code, stderr)
	sc, err := scenarios.Load("tiny", []string{"train.iterations=3"})
	require.NoError(t, err)
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"simulate", "train", "tiny", "--force", "--out", out}, "simulate train tiny --out " + out},
		{[]string{"simulate", "train", "-force", "tiny", "--out", out}, "simulate train tiny --out " + out},
		{[]string{"simulate", "train", "tiny", "--force=true", "--workers", "2", "--out", out}, "simulate train tiny --workers 2 --out " + out},
		{[]string{"simulate", "train", "tiny", "--set", "x=--force", "--out", out}, "simulate train tiny --set x=--force --out " + out},
		{[]string{"simulate", "train", "tiny", "--out", out}, "simulate train tiny --out " + out},
	} {
		d, err := train.OpenDir(out, sc, sc.Seed, 2, "", false)
		require.NoError(t, err)
		jobs, total := train.Jobs(sc, sc.Seed, 2)
		hint := resumeHint(d, jobs, total, tc.argv, true, false)
		d.Abort()
		assert.Equal(t, "6 of 6 iterations are kept in "+filepath.Join(out, train.CheckpointDir)+"; to resume, run: "+tc.want, hint, "%q", tc.argv)
	}
}

// TestCheckpointWriteErrorReportedOnce: a checkpoint that cannot be
// written (here its folder is a dangling link) stops the training with
// that error, said once, not again as a warning.
func TestCheckpointWriteErrorReportedOnce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t")
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "gone", "x"), filepath.Join(out, train.CheckpointDir)))
	// Enough iterations that a checkpoint falls due before the end, on
	// any machine: the first failed write stops the training.
	_, stderr, code := simulate(t, "train", "tiny", "--set", "train.iterations=5000", "--seeds", "1", "--workers", "1", "--charts=false", "--baseline=false", "--out", out)
	require.Equal(t, exitFail, code, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "checkpoint: mkdir "), stderr)
	assert.NotContains(t, stderr, "warning: checkpoint")
}

// TestResumeHintAfterAFailure: what the hint says depends on why the
// training stopped. An interrupt and a failure both count what is kept;
// an episode over its event bound fails again at the same bound, so that
// hint says to raise it; a failure with nothing kept says nothing, as
// the error says what to fix and the same command starts again.
func TestResumeHintAfterAFailure(t *testing.T) {
	sc, err := scenarios.Load("tiny", []string{"train.iterations=3"})
	require.NoError(t, err)
	argv := []string{"simulate", "train", "tiny", "--out", "o"}
	hint := func(out string, interrupted, eventLimit bool) string {
		d, err := train.OpenDir(out, sc, sc.Seed, 2, "", false)
		require.NoError(t, err)
		defer d.Abort()
		jobs, total := train.Jobs(sc, sc.Seed, 2)
		return resumeHint(d, jobs, total, argv, interrupted, eventLimit)
	}

	empty := filepath.Join(t.TempDir(), "empty")
	assert.Equal(t, "", hint(empty, false, false))
	assert.Equal(t, "", hint(empty, false, true))
	assert.Equal(t, "no iteration was checkpointed, so nothing is kept; to start again, run: simulate train tiny --out o", hint(empty, true, false))

	// Tables that cannot be written stop the training after its jobs,
	// with their checkpoints kept.
	kept := filepath.Join(t.TempDir(), "kept")
	require.NoError(t, os.MkdirAll(filepath.Join(kept, "iterations.csv"), 0o755))
	_, stderr, code := simulate(t, "train", "tiny", "--set", "train.iterations=3", "--seeds", "2", "--workers", "1", "--charts=false", "--baseline=false", "--out", kept)
	require.Equal(t, exitFail, code, stderr)
	prefix := "6 of 6 iterations are kept in " + filepath.Join(kept, train.CheckpointDir) + "; "
	for _, tc := range []struct {
		interrupted, eventLimit bool
		want                    string
	}{
		{true, false, "to resume, run: simulate train tiny --out o"},
		{false, false, "to resume after fixing the error below, run: simulate train tiny --out o"},
		{false, true, "to resume, run it again with a higher --max-events: simulate train tiny --out o"},
		{true, true, "to resume, run it again with a higher --max-events: simulate train tiny --out o"},
	} {
		assert.Equal(t, prefix+tc.want, hint(kept, tc.interrupted, tc.eventLimit), "interrupted %v, event limit %v", tc.interrupted, tc.eventLimit)
	}
}

// TestInvocation: the resume hint names the command that runs simulate
// again: under `go run`, whose binary is gone once it exits, the README's
// go run, else simulate.
func TestInvocation(t *testing.T) {
	for _, tc := range []struct {
		exe  string
		want []string
	}{
		{"/tmp/go-build1246000479/b001/exe/simulate", []string{"go", "run", "./cmd/simulate"}},
		{"/usr/local/bin/simulate", []string{"simulate"}},
		{"/home/me/go-build/exe/simulate", []string{"simulate"}},
		{"/home/me/go-builds/bin/simulate", []string{"simulate"}},
		{"", []string{"simulate"}},
	} {
		assert.Equal(t, tc.want, invocation(tc.exe), tc.exe)
	}
}
