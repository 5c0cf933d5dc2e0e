package rlcr

import (
	"fmt"

	"github.com/swarmsim/swarmsim/models/policy"
)

// Checkpoint is what Train carries from one iteration to the next: the
// policy, the optimisers' moments and step counts, the learned value and
// the moving-average baseline. The random streams need nothing saved:
// iteration t draws from streams derived from the seed and t alone. So
// training resumed from a checkpoint takes exactly the steps it would
// have taken without stopping.
type Checkpoint struct {
	Done      int       // iterations done
	Params    []float64 // the policy's parameters
	Adam      AdamState
	Value     []float64 // the learned value's parameters (PPO)
	ValueAdam AdamState
	Baseline  float64 // the moving average of rewards; NaN before the first
}

// AdamState is the state of one Adam optimiser.
type AdamState struct {
	M, V []float64
	T    int
}

// restore puts the checkpoint's state into a freshly built learner,
// refusing one that does not fit it (another policy kind or size, or more
// iterations than cfg has).
func (cp *Checkpoint) restore(cfg Config, pol policy.Softmax, opt *adam, value *policy.Value, valueOpt *adam) error {
	switch {
	case cp.Done < 0 || cp.Done > cfg.Iterations:
		return fmt.Errorf("checkpoint: %d iterations done, of %d", cp.Done, cfg.Iterations)
	case len(cp.Params) != len(pol.Params()) || len(cp.Value) != len(value.Params()):
		return fmt.Errorf("checkpoint: %d policy and %d value parameters, not %d and %d", len(cp.Params), len(cp.Value), len(pol.Params()), len(value.Params()))
	}
	if err := opt.restore(cp.Adam); err != nil {
		return fmt.Errorf("checkpoint: policy optimiser: %w", err)
	}
	if err := valueOpt.restore(cp.ValueAdam); err != nil {
		return fmt.Errorf("checkpoint: value optimiser: %w", err)
	}
	copy(pol.Params(), cp.Params)
	copy(value.Params(), cp.Value)
	return nil
}
