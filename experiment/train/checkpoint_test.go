package train

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// shortTraining opens a train directory for two seeds of a few iterations
// of tiny, and returns it with its jobs.
func shortTraining(t *testing.T) (*rundir.Dir, []*Job) {
	t.Helper()
	sc, err := scenarios.Load("tiny", []string{"train.iterations=3", "train.batch=2", "train.group=2"})
	require.NoError(t, err)
	dir, err := OpenDir(filepath.Join(t.TempDir(), "train"), sc, 1, 2, false)
	require.NoError(t, err)
	t.Cleanup(dir.Abort)
	jobs, _ := Jobs(sc, 1, 2)
	return dir, jobs
}

// TestRunLeavesEveryJobsCheckpoint: when Run returns, the checkpoint of
// each job's last iteration is on disk (the writer works beside the
// workers, and Run waits for it), and it holds that job's rows.
func TestRunLeavesEveryJobsCheckpoint(t *testing.T) {
	dir, jobs := shortTraining(t)
	require.NoError(t, Run(context.Background(), dir, jobs, Options{Workers: 2}))
	for _, j := range jobs {
		cp, err := loadCheckpoint(dir, j)
		require.NoError(t, err)
		require.NotNil(t, cp, "seed %d", j.Seed)
		assert.Equal(t, 3, cp.Learner.Done, "seed %d", j.Seed)
		assert.Equal(t, fmt.Sprint(j.Rows), fmt.Sprint(cp.Rows), "seed %d", j.Seed) // printed: ValueEV is NaN
	}
}

// TestRunStopsAtAFailedCheckpoint: a checkpoint that cannot be written
// fails the training with an error that says so, whichever job meets it.
func TestRunStopsAtAFailedCheckpoint(t *testing.T) {
	dir, jobs := shortTraining(t)
	// A file where the checkpoints' directory must go.
	require.NoError(t, os.WriteFile(dir.Join(CheckpointDir), nil, 0o644))
	err := Run(context.Background(), dir, jobs, Options{Workers: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "checkpoint")
	assert.Contains(t, err.Error(), CheckpointDir)
}

// TestRunReturnsAJobsError: a job's error is Run's even when every
// checkpoint handed over was written.
func TestRunReturnsAJobsError(t *testing.T) {
	dir, jobs := shortTraining(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Run(ctx, dir, jobs, Options{Workers: 1})
	require.ErrorIs(t, err, context.Canceled)
}
