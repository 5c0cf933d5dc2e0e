package rlcr

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/sim"
)

// Penalty names a latency penalty shape P(T) of the finish time T.
type Penalty string

// The penalty forms. L is Reward.Scale (by default the time limit), D is
// Reward.Deadline (by default half the time limit) and b is Reward.Buffer
// (by default D/5); every form but group-relative, which ranks T within
// its group, is 0 at T = 0.
const (
	PenaltyNone          Penalty = "none"           // 0
	PenaltyLinear        Penalty = "linear"         // T/L
	PenaltyQuadratic     Penalty = "quadratic"      // (T/L)²
	PenaltyExponential   Penalty = "exponential"    // 1 − exp(−T/L): an exponential discount of the reward
	PenaltyDeadline      Penalty = "deadline"       // 1 if T > D, else 0: a step at the deadline
	PenaltySoftOverlong  Penalty = "soft-overlong"  // DAPO: 0 until D − b, linear to 1 at D, 1 beyond
	PenaltyGroupRelative Penalty = "group-relative" // Kimi k1.5: from λ = 0.5 − (T − min)/(max − min) within the group
	PenaltyCriticalSteps Penalty = "critical-steps" // critical steps / Steps: latency counted in model calls and the main agent's decisions on the critical chain
)

// Penalties lists the penalty forms.
var Penalties = []Penalty{PenaltyNone, PenaltyLinear, PenaltyQuadratic, PenaltyExponential, PenaltyDeadline, PenaltySoftOverlong, PenaltyGroupRelative, PenaltyCriticalSteps}

// The defaults of the penalties' parameters, relative to the time limit:
// a deadline at the time limit could never be missed (the finish time is
// capped there), so it defaults to half of it; the soft-overlong ramp is a
// fifth of the deadline, DAPO's 4096 of 20480 tokens.
const (
	defaultDeadlineFrac = 0.5
	defaultBufferFrac   = 0.2
	defaultSteps        = 100
)

// Reward defines the collective reward of a rollout:
//
//	R = Task·[acceptable] − Latency·P(T) − Cost·AgentTime/CostScale + λ1(t)·r_parallel + λ2(t)·r_finish
//
// where λ1, λ2 (Kimi K2.5's PARL terms) anneal linearly from Parallel and
// Finish to 0 over Anneal iterations: r_parallel rewards instantiating
// subagents and r_finish their completing what they were given (see
// rParallel and rFinish). An episode stopped by the time limit is not
// acceptable, and an episode that never submitted (stopped by the time
// limit, or stalled) is scored as finishing at the time limit. The latency
// penalty and the cost have scales of their own, so that setting one
// leaves the other alone. A parameter that cannot act (a latency weight
// with penalty none, a deadline at the time limit, a scale the penalty
// does not use) is a validation error, not a silent no-op.
type Reward struct {
	Task    float64 `yaml:"task" json:"task"`
	Latency float64 `yaml:"latency" json:"latency"`
	Penalty Penalty `yaml:"penalty" json:"penalty"`
	// Scale is L of the linear, quadratic and exponential penalties; 0
	// means the collective's time limit.
	Scale sim.Time `yaml:"scale" json:"scale"`
	// Deadline is D of the deadline and soft-overlong penalties; 0 means
	// half the time limit. It must lie below the time limit.
	Deadline sim.Time `yaml:"deadline" json:"deadline"`
	// Buffer is the soft-overlong ramp's length before D; 0 means D/5.
	Buffer sim.Time `yaml:"buffer" json:"buffer"`
	// Steps normalises critical steps for the critical-steps penalty; 0
	// means 100.
	Steps float64 `yaml:"steps" json:"steps"`
	Cost  float64 `yaml:"cost" json:"cost"`
	// CostScale normalises the agent time of the cost term; 0 means the
	// collective's time limit.
	CostScale sim.Time `yaml:"cost_scale" json:"cost_scale"`
	Parallel  float64  `yaml:"parallel" json:"parallel"`
	Finish    float64  `yaml:"finish" json:"finish"`
	Anneal    int      `yaml:"anneal" json:"anneal"`
}

// DefaultReward pays 1 for an acceptable result and nothing else.
func DefaultReward() Reward {
	return Reward{Task: 1, Penalty: PenaltyNone}
}

// Validate checks the reward against the collective it will score: every
// value in range, and every parameter set able to change the reward.
func (r *Reward) Validate(c *collective.Config) error {
	if !slices.Contains(Penalties, r.Penalty) {
		names := make([]string, len(Penalties))
		for i, p := range Penalties {
			names[i] = string(p)
		}
		return fmt.Errorf("penalty: %q is not allowed (allowed: %s)%s", r.Penalty, strings.Join(names, ", "), spelling.DidYouMean(string(r.Penalty), names))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"task", r.Task}, {"latency", r.Latency}, {"steps", r.Steps}, {"cost", r.Cost}, {"parallel", r.Parallel}, {"finish", r.Finish}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s: %v is not a finite number", f.name, f.v)
		}
	}
	if r.Steps < 0 {
		return fmt.Errorf("steps: %v is out of range (0 for the default of %d, or more)", r.Steps, defaultSteps)
	}
	for _, f := range []struct {
		name string
		v    sim.Time
	}{{"scale", r.Scale}, {"deadline", r.Deadline}, {"buffer", r.Buffer}, {"cost_scale", r.CostScale}} {
		if f.v < 0 {
			return fmt.Errorf("%s: %v is out of range (0 for the default, or a duration)", f.name, f.v)
		}
	}
	if r.Latency != 0 && r.Penalty == PenaltyNone {
		return fmt.Errorf("latency: %v has no effect with penalty none (choose a penalty, or set latency to 0)", r.Latency)
	}
	uses := penaltyParams[r.Penalty]
	for _, f := range []struct {
		name string
		set  bool
	}{{"scale", r.Scale != 0}, {"deadline", r.Deadline != 0}, {"buffer", r.Buffer != 0}, {"steps", r.Steps != 0}} {
		if f.set && !slices.Contains(uses, f.name) {
			return fmt.Errorf("%s: not used by penalty %q (it uses: %s)", f.name, r.Penalty, usesList(uses))
		}
	}
	limit := c.TimeLimit
	if slices.Contains(uses, "scale") && r.scale(c) <= 0 {
		return fmt.Errorf("scale: needs a duration greater than 0 when the collective has no time limit (it normalises the finish time)")
	}
	if slices.Contains(uses, "deadline") {
		d := r.deadline(c)
		if d <= 0 {
			return fmt.Errorf("deadline: needs a duration greater than 0 when the collective has no time limit")
		}
		if limit > 0 && d >= limit {
			return fmt.Errorf("deadline: %v is at or beyond the time limit %v, so no episode can be late (allowed: below the time limit)", d, limit)
		}
		if b := r.buffer(c); r.Penalty == PenaltySoftOverlong && b > d {
			return fmt.Errorf("buffer: %v is longer than the deadline %v (allowed: up to the deadline)", b, d)
		}
	}
	if r.CostScale != 0 && r.Cost == 0 {
		return fmt.Errorf("cost_scale: has no effect with cost 0 (set cost, or remove cost_scale)")
	}
	if r.Cost != 0 && r.costScale(c) <= 0 {
		return fmt.Errorf("cost_scale: needs a duration greater than 0 when the collective has no time limit (it normalises the agent time)")
	}
	parl := r.Parallel != 0 || r.Finish != 0
	if r.Anneal < 0 {
		return fmt.Errorf("anneal: %d is negative (0 or more iterations)", r.Anneal)
	}
	if parl && r.Anneal == 0 {
		return fmt.Errorf("anneal: 0 leaves parallel and finish without effect (the PARL terms anneal to 0 over anneal iterations: set at least 1)")
	}
	if !parl && r.Anneal > 0 {
		return fmt.Errorf("anneal: %d has no effect with parallel and finish 0", r.Anneal)
	}
	return nil
}

// ValidateTraining checks what the reward needs from the trainer: a
// group-relative penalty ranks the finish times within a group, which a
// group of one cannot do.
func (r *Reward) ValidateTraining(cfg *Config) error {
	if r.Penalty == PenaltyGroupRelative && r.Latency != 0 && cfg.Group < 2 {
		return fmt.Errorf("penalty: group-relative ranks the finish times of a group and has no effect with train.group %d (allowed: a group of at least 2)", cfg.Group)
	}
	return nil
}

// penaltyParams lists the parameters each penalty form reads.
var penaltyParams = map[Penalty][]string{
	PenaltyLinear:        {"scale"},
	PenaltyQuadratic:     {"scale"},
	PenaltyExponential:   {"scale"},
	PenaltyDeadline:      {"deadline"},
	PenaltySoftOverlong:  {"deadline", "buffer"},
	PenaltyCriticalSteps: {"steps"},
}

func usesList(names []string) string {
	if len(names) == 0 {
		return "no parameters"
	}
	return strings.Join(names, ", ")
}

func (r *Reward) scale(c *collective.Config) sim.Time {
	if r.Scale > 0 {
		return r.Scale
	}
	return c.TimeLimit
}

func (r *Reward) deadline(c *collective.Config) sim.Time {
	if r.Deadline > 0 {
		return r.Deadline
	}
	return sim.Time(defaultDeadlineFrac * float64(c.TimeLimit))
}

func (r *Reward) buffer(c *collective.Config) sim.Time {
	if r.Buffer > 0 {
		return r.Buffer
	}
	return sim.Time(defaultBufferFrac * float64(r.deadline(c)))
}

func (r *Reward) costScale(c *collective.Config) sim.Time {
	if r.CostScale > 0 {
		return r.CostScale
	}
	return c.TimeLimit
}

func (r *Reward) steps() float64 {
	if r.Steps > 0 {
		return r.Steps
	}
	return defaultSteps
}

// finishTime is the T a rollout is scored at: its submission, or the time
// limit if it never submitted (a stalled episode would otherwise be
// rewarded for stalling early).
func finishTime(c *collective.Config, m *collective.Metrics) float64 {
	if (m.TimedOut || m.Stalled) && c.TimeLimit > 0 {
		return float64(c.TimeLimit)
	}
	return float64(m.Finish)
}

// Group scores the rollouts of one group (the same task instance) at
// training iteration iter and writes their rewards to out.
func (r *Reward) Group(c *collective.Config, iter int, group []collective.Metrics, out []float64) {
	minT, maxT := math.Inf(1), math.Inf(-1)
	for i := range group {
		t := finishTime(c, &group[i])
		minT, maxT = math.Min(minT, t), math.Max(maxT, t)
	}
	anneal := 0.0
	if r.Anneal > 0 && iter < r.Anneal {
		anneal = 1 - float64(iter)/float64(r.Anneal)
	}
	costScale := float64(r.costScale(c))
	for i := range group {
		m := &group[i]
		R := 0.0 // +0: subtracting zero penalties must not print as -0
		if m.Acceptable {
			R = r.Task
		}
		if r.Latency != 0 {
			R -= float64(r.Latency * r.penalty(c, m, finishTime(c, m), minT, maxT))
		}
		if r.Cost != 0 {
			R -= r.Cost * float64(m.AgentTime) / costScale
		}
		if anneal > 0 {
			R += float64(anneal * (float64(r.Parallel*rParallel(c, m)) + float64(r.Finish*rFinish(m))))
		}
		out[i] = R
	}
}

// rParallel is PARL's r_parallel: the subagents instantiated (helpers and
// independent attempts), over the most the collective could instantiate
// at once, capped at 1. Instantiation, not peak busy agents: a helper
// woken for an instant counts no more than one that worked.
func rParallel(c *collective.Config, m *collective.Metrics) float64 {
	if c.Agents < 2 {
		return 0
	}
	return math.Min(1, float64(m.Spawned)/float64(c.Agents-1))
}

// rFinish is PARL's r_finish: subagent subtasks completed over those
// assigned (collective.Metrics.SpawnFinishRate), 0 when none was assigned,
// so that working alone earns neither PARL term.
func rFinish(m *collective.Metrics) float64 {
	if m.SubagentTasks == 0 {
		return 0
	}
	return m.SpawnFinishRate()
}

// penalty is P(T) of one rollout finishing at T in a group whose finish
// times span [minT, maxT].
func (r *Reward) penalty(c *collective.Config, m *collective.Metrics, T, minT, maxT float64) float64 {
	switch r.Penalty {
	case PenaltyLinear:
		return T / float64(r.scale(c))
	case PenaltyQuadratic:
		x := T / float64(r.scale(c))
		return x * x
	case PenaltyExponential:
		return 1 - math.Exp(-T/float64(r.scale(c)))
	case PenaltyDeadline:
		if T > float64(r.deadline(c)) {
			return 1
		}
	case PenaltySoftOverlong:
		d, b := float64(r.deadline(c)), float64(r.buffer(c))
		if T > d {
			return 1 // beyond the limit: DAPO's overlong punishment
		}
		if T > d-b {
			return (T - (d - b)) / b
		}
	case PenaltyGroupRelative:
		lambda := 0.0
		if maxT > minT {
			lambda = 0.5 - (T-minT)/(maxT-minT)
		}
		if !m.Acceptable {
			lambda = math.Min(0, lambda)
		}
		return -lambda
	case PenaltyCriticalSteps:
		return float64(m.CriticalSteps) / r.steps()
	}
	return 0
}
