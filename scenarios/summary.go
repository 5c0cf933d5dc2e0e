package scenarios

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/swarmsim/swarmsim/models/collective"
)

// Interval is an estimate with its 95% confidence interval [Lo, Hi].
// Undefined parts are NaN: everything when there is no data, the bounds
// when there is a single value.
type Interval struct {
	Value, Lo, Hi float64
}

// Contains reports whether x lies in [Lo, Hi].
func (iv Interval) Contains(x float64) bool { return iv.Lo <= x && x <= iv.Hi }

// Summary aggregates the rows of one variant. Times are in seconds of
// virtual time; means come with t-based 95% intervals.
type Summary struct {
	Variant    string
	N          int // episodes
	Acceptable int // acceptable episodes
	// Success is the fraction of acceptable episodes with its Wilson score
	// interval.
	Success Interval
	// Finish is the mean finish time of all episodes (an episode that ran
	// out of time finishes at the limit).
	Finish Interval
	// FinishAcceptable is the mean finish time of acceptable episodes
	// only; NaN when none was acceptable.
	FinishAcceptable Interval
	// Reward is the mean collective reward (Row.Reward).
	Reward        Interval
	ModelCalls    Interval
	Tokens        Interval // prompt plus output tokens
	AgentTime     Interval // total busy time of all agents: the cost
	Messages      Interval
	Parallelism   Interval // mean parallelism: agent time over finish time
	CriticalSteps Interval
	// CostPerAcceptable is the total agent time of all episodes divided by
	// the number of acceptable ones, in seconds: what one acceptable result
	// costs. It is +Inf when no episode was acceptable (print it as "inf",
	// as strconv does) and NaN when there are no episodes.
	CostPerAcceptable float64
	// CommChanged counts the episodes whose acceptability changed when
	// messages were dropped (see Row.CommChanged).
	CommChanged int
}

// Summarize aggregates rows per variant, in the order in which variants
// first appear.
func Summarize(rows []Row) []Summary {
	var order []string
	groups := map[string][]*Row{}
	for i := range rows {
		r := &rows[i]
		if _, ok := groups[r.Variant]; !ok {
			order = append(order, r.Variant)
		}
		groups[r.Variant] = append(groups[r.Variant], r)
	}
	out := make([]Summary, len(order))
	for i, name := range order {
		out[i] = summarize(name, groups[name])
	}
	return out
}

func summarize(name string, rows []*Row) Summary {
	s := Summary{Variant: name, N: len(rows)}
	col := func(f func(m *collective.Metrics) float64) Interval {
		xs := make([]float64, len(rows))
		for i, r := range rows {
			xs[i] = f(&r.Metrics)
		}
		return MeanCI(xs)
	}
	var finishOK []float64
	var agentTime float64
	for _, r := range rows {
		if r.Metrics.Acceptable {
			s.Acceptable++
			finishOK = append(finishOK, r.Metrics.Finish.Seconds())
		}
		if r.CommChanged {
			s.CommChanged++
		}
		agentTime += r.Metrics.AgentTime.Seconds()
	}
	s.Success = Wilson(s.Acceptable, s.N)
	s.Finish = col(func(m *collective.Metrics) float64 { return m.Finish.Seconds() })
	s.FinishAcceptable = MeanCI(finishOK)
	rewards := make([]float64, len(rows))
	for i, r := range rows {
		rewards[i] = r.Reward
	}
	s.Reward = MeanCI(rewards)
	s.ModelCalls = col(func(m *collective.Metrics) float64 { return float64(m.ModelCalls) })
	s.Tokens = col(func(m *collective.Metrics) float64 { return float64(m.Tokens()) })
	s.AgentTime = col(func(m *collective.Metrics) float64 { return m.AgentTime.Seconds() })
	s.Messages = col(func(m *collective.Metrics) float64 { return float64(m.Messages) })
	s.Parallelism = col(func(m *collective.Metrics) float64 { return m.ParallelismMean })
	s.CriticalSteps = col(func(m *collective.Metrics) float64 { return float64(m.CriticalSteps) })
	switch {
	case s.N == 0:
		s.CostPerAcceptable = math.NaN()
	case s.Acceptable == 0:
		s.CostPerAcceptable = math.Inf(1)
	default:
		s.CostPerAcceptable = agentTime / float64(s.Acceptable)
	}
	return s
}

// z975 is the 0.975 quantile of the standard normal distribution.
const z975 = 1.959963984540054

// Wilson returns the proportion k/n with its 95% Wilson score interval,
// which stays inside [0, 1] and is sound for small n and for proportions
// near 0 or 1. All fields are NaN when n is 0.
func Wilson(k, n int) Interval {
	if n <= 0 {
		return Interval{math.NaN(), math.NaN(), math.NaN()}
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z975 * z975
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z975 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return Interval{p, math.Max(0, center-half), math.Min(1, center+half)}
}

// MeanCI returns the mean of xs with its 95% confidence interval from
// Student's t distribution with len(xs)-1 degrees of freedom. The mean is
// NaN for no values; the bounds are NaN for fewer than two.
func MeanCI(xs []float64) Interval {
	n := len(xs)
	if n == 0 {
		return Interval{math.NaN(), math.NaN(), math.NaN()}
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(n)
	if n == 1 {
		return Interval{mean, math.NaN(), math.NaN()}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	se := math.Sqrt(ss / float64(n-1) / float64(n))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	return Interval{mean, mean - t*se, mean + t*se}
}
