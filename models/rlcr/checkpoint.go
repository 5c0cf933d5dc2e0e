package rlcr

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

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

// Check refuses a checkpoint that Train cannot continue under cfg: more
// iterations done than cfg has, parameters or optimiser moments of another
// policy kind or size, a negative step count, or a value that is not
// finite (training never writes one). Train checks it too; a caller that
// resumes from a file checks it first, where its error can name the file.
func (cp *Checkpoint) Check(cfg Config) error {
	// Only the policy's size matters here, not its starting weights.
	return cp.fits(cfg, len(newPolicy(&cfg, rand.New(rand.NewPCG(0, 0))).Params()), len(policy.NewValue().Params()))
}

// fits is Check for a policy of nPolicy and a value of nValue parameters.
func (cp *Checkpoint) fits(cfg Config, nPolicy, nValue int) error {
	switch {
	case cp.Done < 0 || cp.Done > cfg.Iterations:
		return fmt.Errorf("checkpoint: %d iterations done, of %d", cp.Done, cfg.Iterations)
	case len(cp.Params) != nPolicy || len(cp.Value) != nValue:
		return fmt.Errorf("checkpoint: %d policy and %d value parameters, not %d and %d", len(cp.Params), len(cp.Value), nPolicy, nValue)
	}
	if err := cp.Adam.check(nPolicy); err != nil {
		return fmt.Errorf("checkpoint: policy optimiser: %w", err)
	}
	if err := cp.ValueAdam.check(nValue); err != nil {
		return fmt.Errorf("checkpoint: value optimiser: %w", err)
	}
	for _, v := range []struct {
		what string
		x    []float64
	}{{"policy parameter", cp.Params}, {"value parameter", cp.Value}} {
		if i := slices.IndexFunc(v.x, notFinite); i >= 0 {
			return fmt.Errorf("checkpoint: %s %d is %v", v.what, i, v.x[i])
		}
	}
	// A moving-average baseline is NaN until the first iteration's
	// rewards; another advantage leaves it NaN.
	movingAverage := cfg.Advantage == MovingAverage
	if math.IsInf(cp.Baseline, 0) || movingAverage && math.IsNaN(cp.Baseline) != (cp.Done == 0) {
		return fmt.Errorf("checkpoint: a baseline of %v after %d iterations, with advantage %s", cp.Baseline, cp.Done, cfg.Advantage)
	}
	return nil
}

// check refuses moments that do not fit n parameters.
func (st *AdamState) check(n int) error {
	switch {
	case len(st.M) != n || len(st.V) != n || st.T < 0:
		return fmt.Errorf("%d and %d moments at step %d, not %d", len(st.M), len(st.V), st.T, n)
	case slices.ContainsFunc(st.M, notFinite):
		return errors.New("a first moment is not finite")
	case slices.ContainsFunc(st.V, func(v float64) bool { return notFinite(v) || v < 0 }):
		return errors.New("a second moment is negative or not finite")
	}
	return nil
}

func notFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// restore puts the checkpoint's state into a freshly built learner, after
// Check's checks against it.
func (cp *Checkpoint) restore(cfg Config, pol policy.Softmax, opt *adam, value *policy.Value, valueOpt *adam) error {
	if err := cp.fits(cfg, len(pol.Params()), len(value.Params())); err != nil {
		return err
	}
	copy(pol.Params(), cp.Params)
	copy(value.Params(), cp.Value)
	opt.restore(cp.Adam)
	valueOpt.restore(cp.ValueAdam)
	return nil
}
