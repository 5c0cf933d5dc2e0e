package rlcr

import (
	"fmt"
	"math"
	"strings"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// Penalty names a latency penalty shape P(T) of the finish time T.
type Penalty string

// The penalty forms. Scale is Reward.Scale (by default the collective's time
// limit) written L; every form is 0 at T = 0 and about 1 at T = L.
const (
	PenaltyNone          Penalty = "none"           // 0
	PenaltyLinear        Penalty = "linear"         // T/L
	PenaltyQuadratic     Penalty = "quadratic"      // (T/L)²
	PenaltyExponential   Penalty = "exponential"    // 1 − exp(−T/L): an exponential discount of the reward
	PenaltyDeadline      Penalty = "deadline"       // 1 if T > L, else 0: a step at the deadline
	PenaltySoftOverlong  Penalty = "soft-overlong"  // DAPO: 0 until L − buffer, linear to 1 at L, 1 beyond
	PenaltyGroupRelative Penalty = "group-relative" // Kimi k1.5: from λ = 0.5 − (T − min)/(max − min) within the group
	PenaltyCriticalSteps Penalty = "critical-steps" // critical steps / Steps: latency counted in model calls on the critical chain
)

// Penalties lists the penalty forms.
var Penalties = []Penalty{PenaltyNone, PenaltyLinear, PenaltyQuadratic, PenaltyExponential, PenaltyDeadline, PenaltySoftOverlong, PenaltyGroupRelative, PenaltyCriticalSteps}

// Reward defines the collective reward of a rollout:
//
//	R = Task·[acceptable] − Latency·P(T) − Cost·C + λ1(t)·r_parallel + λ2(t)·r_finish
//
// where C is the agent time over Scale, r_parallel = (peak parallelism − 1)
// / (agents − 1) rewards spawning helpers, r_finish is the fraction of the
// task's work completed, and λ1, λ2 (the PARL terms) anneal linearly from
// Parallel and Finish to 0 over Anneal iterations. An episode stopped by
// the time limit is not acceptable.
type Reward struct {
	Task    float64 `yaml:"task" json:"task"`
	Latency float64 `yaml:"latency" json:"latency"`
	Penalty Penalty `yaml:"penalty" json:"penalty"`
	// Scale is L, the time that normalises T and C; 0 means the
	// collective's time limit.
	Scale sim.Time `yaml:"scale" json:"scale"`
	// Buffer is the soft-overlong ramp's length before L.
	Buffer sim.Time `yaml:"buffer" json:"buffer"`
	// Steps normalises critical steps for the critical-steps penalty.
	Steps    float64 `yaml:"steps" json:"steps"`
	Cost     float64 `yaml:"cost" json:"cost"`
	Parallel float64 `yaml:"parallel" json:"parallel"`
	Finish   float64 `yaml:"finish" json:"finish"`
	Anneal   int     `yaml:"anneal" json:"anneal"`
}

// DefaultReward pays 1 for an acceptable result and nothing else.
func DefaultReward() Reward {
	return Reward{Task: 1, Penalty: PenaltyNone, Steps: 100}
}

// Validate checks the reward against the collective it will score.
func (r *Reward) Validate(c *collective.Config) error {
	switch r.Penalty {
	case PenaltyNone, PenaltyLinear, PenaltyQuadratic, PenaltyExponential, PenaltyDeadline, PenaltyGroupRelative:
	case PenaltySoftOverlong:
		if r.Buffer <= 0 {
			return fmt.Errorf("buffer: %v is out of range (soft-overlong needs a buffer greater than 0)", r.Buffer)
		}
	case PenaltyCriticalSteps:
		if !(r.Steps > 0) {
			return fmt.Errorf("steps: %v is out of range (greater than 0)", r.Steps)
		}
	default:
		names := make([]string, len(Penalties))
		for i, p := range Penalties {
			names[i] = string(p)
		}
		return fmt.Errorf("penalty: %q is not allowed (allowed: %s)", r.Penalty, strings.Join(names, ", "))
	}
	if r.scale(c) <= 0 && (r.Penalty != PenaltyNone || r.Cost != 0) {
		return fmt.Errorf("scale: needs a duration greater than 0 when the collective has no time limit (it normalises the finish time and the agent time)")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"task", r.Task}, {"latency", r.Latency}, {"cost", r.Cost}, {"parallel", r.Parallel}, {"finish", r.Finish}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s: %v is not a finite number", f.name, f.v)
		}
	}
	if r.Anneal < 0 {
		return fmt.Errorf("anneal: %d is negative (0 or more iterations)", r.Anneal)
	}
	return nil
}

func (r *Reward) scale(c *collective.Config) sim.Time {
	if r.Scale > 0 {
		return r.Scale
	}
	return c.TimeLimit
}

// Group scores the rollouts of one group (the same task instance) at
// training iteration iter and writes their rewards to out.
func (r *Reward) Group(c *collective.Config, iter int, group []collective.Metrics, out []float64) {
	L := float64(r.scale(c))
	minT, maxT := math.Inf(1), math.Inf(-1)
	for i := range group {
		t := float64(group[i].Finish)
		minT, maxT = math.Min(minT, t), math.Max(maxT, t)
	}
	anneal := 0.0
	if r.Anneal > 0 && iter < r.Anneal {
		anneal = 1 - float64(iter)/float64(r.Anneal)
	}
	for i := range group {
		m := &group[i]
		x := float64(m.Finish) / L
		var p float64
		switch r.Penalty {
		case PenaltyLinear:
			p = x
		case PenaltyQuadratic:
			p = x * x
		case PenaltyExponential:
			p = 1 - math.Exp(-x)
		case PenaltyDeadline:
			if x > 1 {
				p = 1
			}
		case PenaltySoftOverlong:
			start := L - float64(r.Buffer)
			p = math.Min(1, math.Max(0, (float64(m.Finish)-start)/float64(r.Buffer)))
		case PenaltyGroupRelative:
			lambda := 0.0
			if maxT > minT {
				lambda = 0.5 - (float64(m.Finish)-minT)/(maxT-minT)
			}
			if !m.Acceptable {
				lambda = math.Min(0, lambda)
			}
			p = -lambda
		case PenaltyCriticalSteps:
			p = float64(m.CriticalSteps) / r.Steps
		}
		R := 0.0 // +0: subtracting zero penalties must not print as -0
		if m.Acceptable {
			R = r.Task
		}
		R -= r.Latency * p
		R -= r.Cost * float64(m.AgentTime) / L
		if anneal > 0 {
			par := 0.0
			if c.Agents > 1 {
				par = float64(m.ParallelismPeak-1) / float64(c.Agents-1)
			}
			R += anneal * (r.Parallel*par + r.Finish*m.Progress)
		}
		out[i] = R
	}
}
