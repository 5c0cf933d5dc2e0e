package rlcr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/policy"
)

// TestResumeIsExact takes the checkpoint after k iterations, stops training
// one iteration later, resumes it from the checkpoint, and gets the rows
// and the policy of an uninterrupted run, for
// estimators that carry every piece of state (Adam moments, the moving
// baseline, a learned value, an MLP's parameters, a warm start).
func TestResumeIsExact(t *testing.T) {
	configs := map[string]func(*Config){
		"linear flat":           func(*Config) {},
		"moving average":        func(c *Config) { c.Advantage = MovingAverage },
		"mlp ppo":               func(c *Config) { c.Policy, c.Advantage = "mlp", PPOGAE },
		"cosine schedules, mlp": func(c *Config) { c.Policy, c.LRSchedule, c.EntropySchedule = "mlp", Cosine, Cosine },
		// A resumed run was warmed before its first iteration: it is not
		// warmed again.
		"warm start": func(c *Config) { c.WarmStart, c.WarmIterations = "split", 3 },
	}
	for name, edit := range configs {
		t.Run(name, func(t *testing.T) {
			cfg := tinyConfig()
			cfg.Iterations = 6
			edit(&cfg)
			want, wantParams := train(t, tinyProblem(), cfg, 1)

			for _, stop := range []int{1, 3, 5} {
				var rows []Iteration
				var last *Checkpoint
				errStop := errors.New("stop")
				emit := func(it Iteration) error { rows = append(rows, it); return nil }
				_, err := Train(context.Background(), Run{
					Problem: tinyProblem(), Config: cfg, Seed: 7, Workers: 2, Emit: emit,
					// The checkpoint after stop, kept while one more
					// iteration runs: that one must not change it.
					Save: func(done int, checkpoint func() *Checkpoint) error {
						if done == stop {
							last = checkpoint()
						}
						if done == stop+1 {
							return errStop
						}
						return nil
					},
				})
				require.ErrorIs(t, err, errStop)
				require.Equal(t, stop, last.Done)
				rows = rows[:stop]

				pol, err := Train(context.Background(), Run{Problem: tinyProblem(), Config: cfg, Seed: 7, Workers: 1, From: last, Emit: emit})
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprint(want), fmt.Sprint(rows), "stopped after %d", stop)
				assert.Equal(t, wantParams, pol.Params(), "stopped after %d", stop)
			}
		})
	}
}

func TestResumeRefusesAForeignCheckpoint(t *testing.T) {
	cfg := tinyConfig()
	var last *Checkpoint
	_, err := Train(context.Background(), Run{Problem: tinyProblem(), Config: cfg, Seed: 7, Workers: 1, Save: func(_ int, checkpoint func() *Checkpoint) error { last = checkpoint(); return nil }})
	require.NoError(t, err)

	mlp := cfg
	mlp.Policy = "mlp"
	_, err = Train(context.Background(), Run{Problem: tinyProblem(), Config: mlp, Seed: 7, Workers: 1, From: last})
	assert.ErrorContains(t, err, "checkpoint: ")

	short := cfg
	short.Iterations = 2
	_, err = Train(context.Background(), Run{Problem: tinyProblem(), Config: short, Seed: 7, Workers: 1, From: last})
	assert.ErrorContains(t, err, "checkpoint: 4 iterations done, of 2")

	// A finished checkpoint gives back its policy without training.
	pol, err := Train(context.Background(), Run{Problem: tinyProblem(), Config: cfg, Seed: 7, Workers: 1, From: last, Emit: func(Iteration) error { t.Fatal("no iteration left"); return nil }})
	require.NoError(t, err)
	assert.Equal(t, last.Params, pol.Params())
}

// TestCheckpointCheck: every checkpoint a training writes passes Check
// under its own config, and each way a checkpoint can fail to fit one is
// refused, saying what.
func TestCheckpointCheck(t *testing.T) {
	for _, adv := range []Advantage{FlatCollective, MovingAverage} {
		cfg := tinyConfig()
		cfg.Advantage = adv
		var cps []*Checkpoint
		_, err := Train(context.Background(), Run{Problem: tinyProblem(), Config: cfg, Seed: 7, Workers: 1,
			Save: func(_ int, checkpoint func() *Checkpoint) error { cps = append(cps, checkpoint()); return nil }})
		require.NoError(t, err)
		require.Len(t, cps, cfg.Iterations)
		for _, cp := range cps {
			require.NoError(t, cp.Check(cfg), "%v, after %d iterations", adv, cp.Done)
		}
	}

	cfg := tinyConfig()
	cfg.Advantage = MovingAverage
	var good *Checkpoint
	_, err := Train(context.Background(), Run{Problem: tinyProblem(), Config: cfg, Seed: 7, Workers: 1,
		Save: func(done int, checkpoint func() *Checkpoint) error {
			if done == 2 {
				good = checkpoint()
			}
			return nil
		}})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		edit func(*Checkpoint, *Config)
		want string
	}{
		{"negative iterations", func(cp *Checkpoint, _ *Config) { cp.Done = -1 }, "-1 iterations done, of 4"},
		{"more iterations than the config", func(_ *Checkpoint, c *Config) { c.Iterations = 1 }, "2 iterations done, of 1"},
		{"another policy", func(_ *Checkpoint, c *Config) { c.Policy, c.Hidden = "mlp", 4 }, "224 policy and 32 value parameters, not"},
		{"a value cut short", func(cp *Checkpoint, _ *Config) { cp.Value = cp.Value[1:] }, "224 policy and 31 value parameters"},
		{"a first moment short", func(cp *Checkpoint, _ *Config) { cp.Adam.M = cp.Adam.M[1:] }, "policy optimiser: 223 and 224 moments"},
		{"a second moment short", func(cp *Checkpoint, _ *Config) { cp.ValueAdam.V = nil }, "value optimiser: 32 and 0 moments"},
		{"a negative step", func(cp *Checkpoint, _ *Config) { cp.ValueAdam.T = -1 }, "value optimiser: 32 and 32 moments at step -1"},
		{"a NaN weight", func(cp *Checkpoint, _ *Config) { cp.Params[5] = math.NaN() }, "policy parameter 5 is NaN"},
		{"an infinite value weight", func(cp *Checkpoint, _ *Config) { cp.Value[0] = math.Inf(-1) }, "value parameter 0 is -Inf"},
		{"an infinite first moment", func(cp *Checkpoint, _ *Config) { cp.Adam.M[3] = math.Inf(1) }, "policy optimiser: a first moment is not finite"},
		{"a negative second moment", func(cp *Checkpoint, _ *Config) { cp.ValueAdam.V[3] = -1e-9 }, "value optimiser: a second moment is negative"},
		{"a NaN second moment", func(cp *Checkpoint, _ *Config) { cp.Adam.V[0] = math.NaN() }, "policy optimiser: a second moment is negative or not finite"},
		{"no baseline after iterations", func(cp *Checkpoint, _ *Config) { cp.Baseline = math.NaN() }, "a baseline of NaN after 2 iterations, with advantage moving-average"},
		{"a baseline before any", func(cp *Checkpoint, _ *Config) { cp.Done = 0 }, "a baseline of"},
		{"an infinite baseline", func(cp *Checkpoint, c *Config) { cp.Baseline, c.Advantage = math.Inf(1), FlatCollective }, "a baseline of +Inf after 2 iterations, with advantage flat-collective"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp, c := cloneCheckpoint(good), cfg
			tc.edit(cp, &c)
			assert.ErrorContains(t, cp.Check(c), "checkpoint: "+tc.want)
			_, err := Train(context.Background(), Run{Problem: tinyProblem(), Config: c, Seed: 7, Workers: 1, From: cp})
			assert.ErrorContains(t, err, tc.want, "Train refuses it too")
		})
	}
}

// cloneCheckpoint returns a deep copy of cp.
func cloneCheckpoint(cp *Checkpoint) *Checkpoint {
	c := *cp
	c.Params, c.Value = slices.Clone(cp.Params), slices.Clone(cp.Value)
	for _, st := range []*AdamState{&c.Adam, &c.ValueAdam} {
		st.M, st.V = slices.Clone(st.M), slices.Clone(st.V)
	}
	return &c
}

// TestResumeFromTheStart: a checkpoint of no iteration done, holding a
// fresh linear policy, zero moments and no baseline yet, is the state a
// training starts in, so resuming from it is the uninterrupted run.
func TestResumeFromTheStart(t *testing.T) {
	cfg := tinyConfig()
	cfg.Advantage = MovingAverage // the baseline's NaN is carried too
	want, wantParams := train(t, tinyProblem(), cfg, 1)

	pol, value := policy.NewLinear(), policy.NewValue()
	n, nv := len(pol.Params()), len(value.Params())
	start := &Checkpoint{Done: 0, Params: slices.Clone(pol.Params()), Value: slices.Clone(value.Params()),
		Adam:      AdamState{M: make([]float64, n), V: make([]float64, n)},
		ValueAdam: AdamState{M: make([]float64, nv), V: make([]float64, nv)},
		Baseline:  math.NaN()}
	var rows []Iteration
	got, err := Train(context.Background(), Run{Problem: tinyProblem(), Config: cfg, Seed: 7, Workers: 1, From: start,
		Emit: func(it Iteration) error { rows = append(rows, it); return nil }})
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprint(want), fmt.Sprint(rows))
	assert.Equal(t, wantParams, got.Params())
}
