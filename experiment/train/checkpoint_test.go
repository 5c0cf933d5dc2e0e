package train

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// shortTraining opens a train directory for two seeds of a few iterations
// of tiny, and returns it with its jobs.
func shortTraining(t testing.TB) (*rundir.Dir, []*Job) {
	t.Helper()
	sc, err := scenarios.Load("tiny", []string{"train.iterations=3", "train.batch=2", "train.group=2"})
	require.NoError(t, err)
	dir, err := OpenDir(filepath.Join(t.TempDir(), "train"), sc, 1, 2, "", false)
	require.NoError(t, err)
	t.Cleanup(dir.Abort)
	jobs, _ := Jobs(sc, 1, 2)
	return dir, jobs
}

// lastCheckpoints returns, for each job, whether its checkpoint in dir is
// that of its last iteration, holding its rows.
func lastCheckpoints(t *testing.T, dir *rundir.Dir, jobs []*Job) []bool {
	t.Helper()
	var last []bool
	for _, j := range jobs {
		cp, err := loadCheckpoint(dir, j)
		require.NoError(t, err)
		done := cp != nil && cp.Learner.Done == j.Variant.Spec.Train.Iterations
		if done {
			assert.Equal(t, fmt.Sprint(j.Rows), fmt.Sprint(cp.Rows), "seed %d", j.Seed) // printed: ValueEV is NaN
		}
		last = append(last, done)
	}
	return last
}

// TestCloseWritesTheLastCheckpoints: a job's last checkpoint, held while
// the one before is recent, is on disk once Close returns, with the job's
// rows: a run stopped after Run resumes every finished job where it ended.
func TestCloseWritesTheLastCheckpoints(t *testing.T) {
	dir, jobs := shortTraining(t)
	saves := StartCheckpoints(dir)
	saves.every = time.Hour // every checkpoint is recent: each job's last is held
	require.NoError(t, Run(context.Background(), saves, jobs, Options{Workers: 2}))
	assert.Equal(t, []bool{false, false}, lastCheckpoints(t, dir, jobs), "held until due or Close")
	require.NoError(t, saves.Close())
	assert.Equal(t, []bool{true, true}, lastCheckpoints(t, dir, jobs))
	require.NoError(t, saves.Close(), "a second Close does nothing")
}

// TestDiscardDropsTheLastCheckpoints: a complete run drops the last
// checkpoints not yet due, and nothing is written after Discard.
func TestDiscardDropsTheLastCheckpoints(t *testing.T) {
	dir, jobs := shortTraining(t)
	saves := StartCheckpoints(dir)
	saves.every = time.Hour
	require.NoError(t, Run(context.Background(), saves, jobs, Options{Workers: 2}))
	saves.Discard()
	require.NoError(t, saves.Close(), "Close after Discard does nothing")
	assert.NoDirExists(t, dir.Join(CheckpointDir))
}

// TestTheLastCheckpointsAreWrittenWhenDue: a held checkpoint is written
// once checkpointEvery has passed since its job's one before, while the
// run goes on (the tables, the charts): a kill then loses no finished job.
func TestTheLastCheckpointsAreWrittenWhenDue(t *testing.T) {
	dir, jobs := shortTraining(t)
	saves := StartCheckpoints(dir)
	saves.every = 50 * time.Millisecond
	start := time.Now()
	require.NoError(t, Run(context.Background(), saves, jobs, Options{Workers: 2}))
	require.Eventually(t, func() bool { return !slices.Contains(lastCheckpoints(t, dir, jobs), false) }, 10*time.Second, 5*time.Millisecond)
	assert.GreaterOrEqual(t, time.Since(start), saves.every, "not before it was due")
	saves.Discard()
}

// TestHeldCheckpointsAreWrittenInTheOrderDue: a held checkpoint handed
// over after one due later is written when it is due, not after it: jobs
// on several workers start at different times.
func TestHeldCheckpointsAreWrittenInTheOrderDue(t *testing.T) {
	dir, jobs := shortTraining(t)
	saves := StartCheckpoints(dir)
	defer saves.Discard()
	require.NoError(t, saves.put(jobs[0], &rlcr.Checkpoint{}, time.Now().Add(time.Hour)))
	require.NoError(t, saves.put(jobs[1], &rlcr.Checkpoint{}, time.Now().Add(20*time.Millisecond)))
	require.Eventually(t, func() bool {
		_, err := checkpoints(dir).Get(checkpointKey(jobs[1]))
		return err == nil
	}, 5*time.Second, 5*time.Millisecond)
	_, err := checkpoints(dir).Get(checkpointKey(jobs[0]))
	assert.ErrorIs(t, err, fs.ErrNotExist, "not due for an hour")
}

// TestRunStopsAtAFailedCheckpoint: a checkpoint that cannot be written
// fails the training with an error that says so, whichever job meets it.
func TestRunStopsAtAFailedCheckpoint(t *testing.T) {
	dir, jobs := shortTraining(t)
	// A file where the checkpoints' directory must go.
	require.NoError(t, os.WriteFile(dir.Join(CheckpointDir), nil, 0o644))
	saves := StartCheckpoints(dir)
	saves.every = 0 // every checkpoint at once
	err := Run(context.Background(), saves, jobs, Options{Workers: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "checkpoint")
	assert.Contains(t, err.Error(), CheckpointDir)
	assert.ErrorIs(t, err, saves.Close(), "Close returns the first write's error, which Run met")
}

// TestCloseReturnsAFailedCheckpoint: a held checkpoint that cannot be
// written is Close's error.
func TestCloseReturnsAFailedCheckpoint(t *testing.T) {
	dir, jobs := shortTraining(t)
	require.NoError(t, os.WriteFile(dir.Join(CheckpointDir), nil, 0o644))
	saves := StartCheckpoints(dir)
	saves.every = time.Hour
	require.NoError(t, Run(context.Background(), saves, jobs, Options{Workers: 1}))
	err := saves.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), CheckpointDir)
}

// TestRunReturnsAJobsError: a job's error is Run's.
func TestRunReturnsAJobsError(t *testing.T) {
	dir, jobs := shortTraining(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	saves := StartCheckpoints(dir)
	defer saves.Discard()
	err := Run(ctx, saves, jobs, Options{Workers: 1})
	require.ErrorIs(t, err, context.Canceled)
}

// TestOpenDirRefusesAnotherTraining: checkpoints resume only the training
// that train.json names; another scenario hash, seed, seed count or
// variant is refused, the message describing both.
func TestOpenDirRefusesAnotherTraining(t *testing.T) {
	sc, err := scenarios.Load("tiny", []string{"train.iterations=3"})
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "train")
	dir, err := OpenDir(out, sc, 1, 2, "team", false)
	require.NoError(t, err)
	// An interrupted training's checkpoint keeps train.json past Abort.
	require.NoError(t, os.MkdirAll(dir.Join(CheckpointDir), 0o755))
	require.NoError(t, os.WriteFile(dir.Join(filepath.Join(CheckpointDir, "team-seed1.gob")), nil, 0o644))
	dir.Abort()
	data, err := os.ReadFile(filepath.Join(out, IdentityFile))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"variant": "team"`)

	hash := rundir.ShortHash(sc.WorkHash, "")
	this := "scenario tiny (hash " + hash + ", seeds 2 from 1, variant team only)"
	other, err := scenarios.Load("tiny", []string{"train.iterations=4"})
	require.NoError(t, err)
	for _, tc := range []struct {
		sc      *scenarios.Scenario
		seed    uint64
		seeds   int
		variant string
		want    string
	}{
		{sc, 1, 2, "", "scenario tiny (hash " + hash + ", seeds 2 from 1)"},
		{sc, 1, 2, "split", "scenario tiny (hash " + hash + ", seeds 2 from 1, variant split only)"},
		{sc, 2, 2, "team", "scenario tiny (hash " + hash + ", seeds 2 from 2, variant team only)"},
		{sc, 1, 3, "team", "scenario tiny (hash " + hash + ", seeds 3 from 1, variant team only)"},
		{other, 1, 2, "team", "scenario tiny (hash " + rundir.ShortHash(other.WorkHash, "") + ", seeds 2 from 1, variant team only)"},
	} {
		_, err := OpenDir(out, tc.sc, tc.seed, tc.seeds, tc.variant, false)
		assert.ErrorContains(t, err, "holds other work: the training of "+this+", not this one, of "+tc.want+"; use --force")
	}
	dir, err = OpenDir(out, sc, 1, 2, "team", false)
	require.NoError(t, err, "the same training resumes")
	dir.Abort()

	// A train.json written before variants could be chosen (no "variant")
	// names a training of every variant, which resumes.
	old := fmt.Sprintf("{\n  \"scenario\": \"tiny\",\n  \"hash\": %q,\n  \"seed\": 1,\n  \"seeds\": 2\n}\n", sc.WorkHash)
	require.NoError(t, os.WriteFile(filepath.Join(out, IdentityFile), []byte(old), 0o644))
	dir, err = OpenDir(out, sc, 1, 2, "", false)
	require.NoError(t, err, "an identity of before resumes")
	dir.Abort()
	// And a training of every variant still writes it so.
	fresh, err := OpenDir(filepath.Join(t.TempDir(), "fresh"), sc, 1, 2, "", false)
	require.NoError(t, err)
	data, err = os.ReadFile(fresh.Join(IdentityFile))
	require.NoError(t, err)
	assert.Equal(t, old, string(data))
	fresh.Abort()

	// Complete (a manifest): only --force trains it again.
	require.NoError(t, os.WriteFile(filepath.Join(out, rundir.ManifestName), []byte("{}"), 0o644))
	_, err = OpenDir(out, sc, 1, 2, "team", false)
	assert.ErrorContains(t, err, out+" holds a complete run (manifest.json); use --force to overwrite it")
	dir, err = OpenDir(out, sc, 1, 2, "team", true)
	require.NoError(t, err)
	dir.Abort()
}

// TestOpenDirRefusesChangedInputs: a training whose graph file changed
// since it was interrupted does not resume (its checkpoints hold work on
// the old graph), and resumes once the file is as it was.
func TestOpenDirRefusesChangedInputs(t *testing.T) {
	tmp := t.TempDir()
	graph := filepath.Join(tmp, "g.dot")
	require.NoError(t, os.WriteFile(graph, []byte("digraph { a -> b; a -> c }"), 0o644))
	source := filepath.Join(tmp, "s.yaml")
	require.NoError(t, os.WriteFile(source, []byte("task: {shape: file, path: g.dot, work: 1m}\npolicy: {organization: split}\n"), 0o644))
	sc, err := scenarios.Load(source, nil)
	require.NoError(t, err)
	out := filepath.Join(tmp, "train")
	interrupted(t, out, sc, "default-seed1.gob")
	data, err := os.ReadFile(filepath.Join(out, IdentityFile))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"inputs": "sha256:`)

	require.NoError(t, os.WriteFile(graph, []byte("digraph { a -> c; a -> b }"), 0o644))
	_, err = OpenDir(out, sc, 1, 2, "", false)
	assert.ErrorContains(t, err, "holds other work: the training of scenario s (hash "+rundir.ShortHash(sc.WorkHash, "")+", seeds 2 from 1) before a file it reads (a graph of task.path, a policy.file) changed; use --force")
	_, err = OpenDir(out, sc, 2, 2, "", false)
	assert.ErrorContains(t, err, ", not this one, of ", "a change beside the file's is named as before")

	require.NoError(t, os.WriteFile(graph, []byte("digraph { a -> b; a -> c }"), 0o644))
	dir, err := OpenDir(out, sc, 1, 2, "", false)
	require.NoError(t, err, "the same file again: the training resumes")
	dir.Abort()
}

// TestResumeReadsEveryJobsCheckpoint: fresh jobs resumed from a finished
// training's last checkpoints hold its rows, and Resume counts them all.
func TestResumeReadsEveryJobsCheckpoint(t *testing.T) {
	dir, jobs := shortTraining(t)
	saves := StartCheckpoints(dir)
	require.NoError(t, Run(context.Background(), saves, jobs, Options{Workers: 2}))
	require.NoError(t, saves.Close())
	sc, err := scenarios.Load("tiny", []string{"train.iterations=3", "train.batch=2", "train.group=2"})
	require.NoError(t, err)
	fresh, total := Jobs(sc, 1, 2)
	resumed, err := Resume(dir, fresh)
	require.NoError(t, err)
	assert.Equal(t, total, resumed, "every iteration of both jobs")
	for i, j := range fresh {
		assert.Equal(t, fmt.Sprint(jobs[i].Rows), fmt.Sprint(j.Rows), "seed %d", j.Seed) // printed: ValueEV is NaN
	}
}

// TestOpenDirRefusesChangedInputsOfAnyVariant: the files of every variant
// name a training of them all, not only the first variant's: one whose
// second variant's graph changed does not resume.
func TestOpenDirRefusesChangedInputsOfAnyVariant(t *testing.T) {
	tmp := t.TempDir()
	graph := filepath.Join(tmp, "h.dot")
	for _, path := range []string{filepath.Join(tmp, "g.dot"), graph} {
		require.NoError(t, os.WriteFile(path, []byte("digraph { a -> b; a -> c }"), 0o644))
	}
	source := filepath.Join(tmp, "s.yaml")
	require.NoError(t, os.WriteFile(source, []byte(`task: {shape: file, path: g.dot, work: 1m}
policy: {organization: split}
variants:
  - {name: g}
  - {name: h, set: {task.path: h.dot}}
`), 0o644))
	sc, err := scenarios.Load(source, nil)
	require.NoError(t, err)
	out := filepath.Join(tmp, "train")
	interrupted(t, out, sc, "g-seed1.gob")

	require.NoError(t, os.WriteFile(graph, []byte("digraph { a -> c; a -> b }"), 0o644))
	_, err = OpenDir(out, sc, 1, 2, "", false)
	assert.ErrorContains(t, err, "before a file it reads (a graph of task.path, a policy.file) changed")
}

// interrupted leaves in out a training of sc, seeds 1 and 2, that was
// interrupted after writing the checkpoint named checkpoint.
func interrupted(t *testing.T, out string, sc *scenarios.Scenario, checkpoint string) {
	t.Helper()
	dir, err := OpenDir(out, sc, 1, 2, "", false)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir.Join(CheckpointDir), 0o755))
	require.NoError(t, os.WriteFile(dir.Join(filepath.Join(CheckpointDir, checkpoint)), nil, 0o644))
	dir.Abort()
}
