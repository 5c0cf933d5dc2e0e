package rlcr

import (
	"math"
	"slices"
)

// adam is the Adam optimiser, ascending: step moves params along grad.
// Adam divides each coordinate by a running estimate of its own scale, so
// multiplying every gradient by a constant changes nothing: the reason a
// latency weight that only rescales the advantage cannot change what is
// learned (see docs/rlcr.md).
type adam struct {
	beta1, beta2, eps float64
	m, v              []float64
	t                 int
}

func newAdam(n int, beta1, beta2, eps float64) *adam {
	return &adam{beta1: beta1, beta2: beta2, eps: eps, m: make([]float64, n), v: make([]float64, n)}
}

func (o *adam) step(params, grad []float64, lr float64) {
	o.t++
	c1 := 1 - math.Pow(o.beta1, float64(o.t))
	c2 := 1 - math.Pow(o.beta2, float64(o.t))
	for i, g := range grad {
		o.m[i] = float64(o.beta1*o.m[i]) + float64((1-o.beta1)*g)
		o.v[i] = float64(o.beta2*o.v[i]) + float64((1-o.beta2)*g*g)
		params[i] += lr * (o.m[i] / c1) / (math.Sqrt(o.v[i]/c2) + o.eps)
	}
}

// state returns a copy of the optimiser's moments and step count.
func (o *adam) state() AdamState {
	return AdamState{M: slices.Clone(o.m), V: slices.Clone(o.v), T: o.t}
}

// restore sets the moments and step count from st.
func (o *adam) restore(st AdamState) {
	copy(o.m, st.M)
	copy(o.v, st.V)
	o.t = st.T
}

// clipNorm scales grad down to a Euclidean norm of at most limit (if limit
// > 0) and returns the norm before clipping.
func clipNorm(grad []float64, limit float64) float64 {
	var ss float64
	for _, g := range grad {
		ss += float64(g * g)
	}
	norm := math.Sqrt(ss)
	if limit > 0 && norm > limit {
		k := limit / norm
		for i := range grad {
			grad[i] *= k
		}
	}
	return norm
}

// Schedule names how a coefficient moves from its start to its end value
// over training.
type Schedule string

// Schedules.
const (
	Constant Schedule = "constant"
	Linear   Schedule = "linear"
	Cosine   Schedule = "cosine"
)

// at returns the value at iteration i of n.
func (s Schedule) at(start, end float64, i, n int) float64 {
	if n <= 1 {
		return start
	}
	f := float64(i) / float64(n-1)
	switch s {
	case Linear:
		return start + float64((end-start)*f)
	case Cosine:
		return end + float64((start-end)*0.5*(1+math.Cos(float64(math.Pi*f))))
	}
	return start
}
