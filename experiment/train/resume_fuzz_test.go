package train

import (
	"bytes"
	"context"
	"encoding/gob"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/rlcr"
)

// FuzzResume: whatever bytes a job's checkpoint holds, the training
// resumes from it and runs to its end, or refuses it with an error that
// names the checkpoint's file and says how to start over; never a panic.
// An input that reaches new code is minimized by running a training for
// each byte it tries to cut: run it with -fuzzminimizetime 1s.
func FuzzResume(f *testing.F) {
	// Seeds of a fresh learner (zero weights and moments encode in a byte
	// each): the fuzzer minimizes what it finds in time quadratic in its
	// length, and a trained checkpoint of tiny is 8 kB.
	_, jobs := shortTraining(f)
	cfg := jobs[0].Variant.Spec.Train
	var zero rlcr.Checkpoint
	_, err := rlcr.Train(context.Background(), rlcr.Run{Problem: jobs[0].Variant.Problem(), Config: cfg, Seed: 1, Workers: 1,
		Save: func(done int, checkpoint func() *rlcr.Checkpoint) error {
			if done == 1 {
				zero = *checkpoint()
			}
			return nil
		}})
	require.NoError(f, err)
	for i := range zero.Params {
		zero.Params[i], zero.Adam.M[i], zero.Adam.V[i] = 0, 0, 0
	}
	for done := range 2 {
		var b bytes.Buffer
		zero.Done = done
		require.NoError(f, gob.NewEncoder(&b).Encode(trainCheckpoint{Learner: zero, Rows: make([]rlcr.Iteration, done)}))
		f.Add(b.Bytes())
		f.Add(b.Bytes()[:b.Len()/2])
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir, jobs := shortTraining(t)
		path := checkpoints(dir).Path(checkpointKey(jobs[0]))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, data, 0o644))
		if _, err := Resume(dir, jobs); err != nil {
			require.Contains(t, err.Error(), path)
			require.Contains(t, err.Error(), "--force")
			return
		}
		saves := StartCheckpoints(dir)
		defer saves.Discard()
		err := Run(context.Background(), saves, jobs, Options{Workers: 1})
		if err != nil {
			require.True(t, strings.Contains(err.Error(), path) && strings.Contains(err.Error(), "--force"),
				"a checkpoint accepted by Resume failed the training without naming it: %v", err)
			return
		}
		for _, j := range jobs {
			require.Len(t, j.Rows, j.Variant.Spec.Train.Iterations)
		}
	})
}
