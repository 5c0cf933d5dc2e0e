package policy_test

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/race"
	c "github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
)

// softmaxCase builds a policy with random parameters; spread is roughly
// the standard deviation of the logits.
type softmaxCase struct {
	name string
	make func(r *rand.Rand, spread float64) policy.Softmax
}

func softmaxCases() []softmaxCase {
	fill := func(ps []float64, r *rand.Rand, sd float64) {
		for i := range ps {
			ps[i] = sd * r.NormFloat64()
		}
	}
	linear := func(r *rand.Rand, spread float64) policy.Softmax {
		p := policy.NewLinear()
		fill(p.Params(), r, spread/math.Sqrt(policy.NumFeatures/3))
		return p
	}
	mlp := func(hidden int) func(r *rand.Rand, spread float64) policy.Softmax {
		return func(r *rand.Rand, spread float64) policy.Softmax {
			p := policy.NewMLP(hidden, r)
			w1 := hidden * policy.NumFeatures
			fill(p.Params()[:w1], r, 2/math.Sqrt(policy.NumFeatures))
			fill(p.Params()[w1:], r, spread/math.Sqrt(float64(hidden)/2))
			return p
		}
	}
	return []softmaxCase{
		{"linear", linear},
		{"mlp8", mlp(8)},
		{"mlp130", mlp(130)}, // wider than the MLP's stack scratch: exercises the allocating path
	}
}

func randFeatures(r *rand.Rand) *[policy.NumFeatures]float64 {
	var x [policy.NumFeatures]float64
	x[0] = 1
	for k := 1; k < len(x); k++ {
		x[k] = 2*r.Float64() - 1
	}
	return &x
}

// randMask returns a random mask with at least minValid valid actions.
func randMask(r *rand.Rand, minValid int) c.Mask {
	for {
		m := c.Mask(r.IntN(1 << c.NumActions))
		if bits.OnesCount8(uint8(m)) >= minValid {
			return m
		}
	}
}

func randAction(r *rand.Rand, m c.Mask) c.Action {
	for {
		if a := c.Action(r.IntN(c.NumActions)); m.Has(a) {
			return a
		}
	}
}

func randObservation(r *rand.Rand) *c.Observation {
	return &c.Observation{
		Main: r.IntN(2) == 0, Alone: r.IntN(4) == 0,
		TimeUsed: r.Float64() * 1.2, Elapsed: r.ExpFloat64() * 300, Progress: r.Float64(),
		Ready: r.IntN(10), Busy: r.IntN(8), Idle: r.IntN(4), Free: r.IntN(6), Unread: r.IntN(3),
		Attempts: r.IntN(4), Pending: r.IntN(3), Unchecked: r.IntN(2) == 0, Unshared: r.IntN(2) == 0,
		Coupling: r.Float64(), NextWork: r.ExpFloat64(), Retries: r.IntN(3), Complete: r.IntN(3) == 0,
	}
}

// relErr is ‖g − fd‖ / (‖g‖ + ‖fd‖), 0 when both are 0.
func relErr(g, fd []float64) float64 {
	var d, n1, n2 float64
	for i := range g {
		d += (g[i] - fd[i]) * (g[i] - fd[i])
		n1 += g[i] * g[i]
		n2 += fd[i] * fd[i]
	}
	if n1+n2 == 0 {
		return 0
	}
	return math.Sqrt(d) / (math.Sqrt(n1) + math.Sqrt(n2))
}

// centralDiff returns the central finite-difference gradient of f at params.
func centralDiff(params []float64, f func() float64) []float64 {
	const h = 1e-6
	fd := make([]float64, len(params))
	for i, v := range params {
		params[i] = v + h
		fp := f()
		params[i] = v - h
		fm := f()
		params[i] = v
		fd[i] = (fp - fm) / (2 * h)
	}
	return fd
}

func TestSoftmaxAddGradMatchesFiniteDifferences(t *testing.T) {
	skipUnderRace(t)
	terms := []struct {
		name           string
		scale, entCoef float64
	}{
		{"logp", 1, 0},
		{"entropy", 0, 1},
		{"both", -1.7, 0.3},
	}
	for _, pc := range softmaxCases() {
		for _, term := range terms {
			t.Run(pc.name+"/"+term.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(11, uint64(len(pc.name)+len(term.name))))
				var worst float64
				trials := 15
				if pc.name == "mlp130" {
					trials = 3 // 4557 parameters, each differenced twice
				}
				for range trials {
					p := pc.make(r, 1.5)
					x, m := randFeatures(r), randMask(r, 2)
					a := randAction(r, m)
					grad := make([]float64, len(p.Params()))
					logp, ent := p.AddGrad(policy.Term{X: x, Mask: m, Action: a, Scale: term.scale, EntCoef: term.entCoef}, grad)

					var probs [c.NumActions]float64
					p.Probs(x, m, &probs)
					assert.InDelta(t, math.Log(probs[a]), logp, 1e-12)
					var h float64
					for _, q := range probs {
						if q > 0 {
							h -= q * math.Log(q)
						}
					}
					assert.InDelta(t, h, ent, 1e-12)

					scratch := make([]float64, len(grad))
					fd := centralDiff(p.Params(), func() float64 {
						lp, e := p.AddGrad(policy.Term{X: x, Mask: m, Action: a}, scratch)
						return term.scale*lp + term.entCoef*e
					})
					e := relErr(grad, fd)
					worst = max(worst, e)
					require.Less(t, e, 1e-5, "relative error")
					for i := range grad {
						require.InDelta(t, fd[i], grad[i], 1e-5*max(math.Abs(fd[i]), 1e-3), "param %d", i)
					}
					assertMaskedGradZero(t, p, m, grad)
				}
				t.Logf("worst relative error %.2g", worst)
			})
		}
	}
}

// assertMaskedGradZero checks that parameters that only feed invalid
// actions get exactly zero gradient.
func assertMaskedGradZero(t *testing.T, p policy.Softmax, m c.Mask, grad []float64) {
	t.Helper()
	for a := range c.Action(c.NumActions) {
		if m.Has(a) {
			continue
		}
		switch p := p.(type) {
		case *policy.Linear:
			for k := range policy.NumFeatures {
				require.Zero(t, grad[int(a)*policy.NumFeatures+k])
			}
		case *policy.MLP:
			nh := p.Hidden()
			off := nh * policy.NumFeatures
			for j := range nh {
				require.Zero(t, grad[off+int(a)*nh+j])
			}
			require.Zero(t, grad[off+c.NumActions*nh+int(a)])
		}
	}
}

func TestSoftmaxAddGradAccumulates(t *testing.T) {
	for _, pc := range softmaxCases() {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			p := pc.make(r, 0.5)
			x, m := randFeatures(r), randMask(r, 2)
			a := randAction(r, m)
			once := make([]float64, len(p.Params()))
			p.AddGrad(policy.Term{X: x, Mask: m, Action: a, Scale: 0.8, EntCoef: 0.1}, once)
			twice := make([]float64, len(p.Params()))
			for i := range twice {
				twice[i] = 1
			}
			p.AddGrad(policy.Term{X: x, Mask: m, Action: a, Scale: 0.8, EntCoef: 0.1}, twice)
			p.AddGrad(policy.Term{X: x, Mask: m, Action: a, Scale: 0.8, EntCoef: 0.1}, twice)
			for i := range once {
				require.InDelta(t, 1+2*once[i], twice[i], 1e-12)
			}
		})
	}
}

func TestSoftmaxAddGradPanics(t *testing.T) {
	p := policy.NewLinear()
	x := randFeatures(rand.New(rand.NewPCG(1, 1)))
	m := c.Mask(0).With(c.Work).With(c.Wait)
	grad := make([]float64, len(p.Params()))
	assert.Panics(t, func() { p.AddGrad(policy.Term{X: x, Mask: m, Action: c.Submit, Scale: 1}, grad) }, "action outside mask")
	assert.Panics(t, func() { p.AddGrad(policy.Term{X: x, Mask: m, Action: c.Work, Scale: 1}, grad[1:]) }, "short gradient")
	assert.Panics(t, func() { policy.NewMLP(0, rand.New(rand.NewPCG(1, 1))) })
	assert.Panics(t, func() { policy.NewMLP(policy.MaxHidden+1, rand.New(rand.NewPCG(1, 1))) })
	assert.NotPanics(t, func() { policy.NewMLP(1, rand.New(rand.NewPCG(1, 1))) })
	assert.NotPanics(t, func() { policy.NewMLP(policy.MaxHidden, rand.New(rand.NewPCG(1, 1))) })
	assert.Panics(t, func() { policy.NewMLP(4, nil) })
	// An action beyond the last, even where its mask bit is set, is
	// refused by the check, not by an index out of range.
	assert.PanicsWithValue(t, "policy: AddGrad for action Action(7) outside its mask", func() {
		p.AddGrad(policy.Term{X: x, Mask: c.Mask(0xff), Action: c.Action(c.NumActions), Scale: 1}, grad)
	})
}

// NewMLP draws every first-layer weight on a feature before the kinds,
// normal with standard deviation 1/√(their number), and leaves the kinds'
// weights and the output layer at zero.
func TestNewMLPInitialisation(t *testing.T) {
	const hidden = policy.MaxHidden
	m := policy.NewMLP(hidden, rand.New(rand.NewPCG(3, 3)))
	p := m.Params()
	w1 := p[:hidden*policy.NumFeatures]
	base := slices.Index(policy.FeatureNames(), "kind_decomposable")
	require.Positive(t, base)
	sum, ss := 0.0, 0.0
	for i, w := range w1 {
		if i%policy.NumFeatures >= base {
			require.Zero(t, w, "W1[%d] is a kind's weight", i)
			continue
		}
		require.NotZero(t, w, "W1[%d] is drawn", i)
		sum += w
		ss += w * w
	}
	n := float64(hidden * base)
	sd := math.Sqrt(ss/n - (sum/n)*(sum/n))
	// The sample sd of n normal draws has a standard error of about sd/√(2n).
	want := 1 / math.Sqrt(float64(base))
	assert.InDelta(t, want, sd, 5*want/math.Sqrt(2*n))
	assert.InDelta(t, 0, sum/n, 5*want/math.Sqrt(n))
	for i, w := range p[len(w1):] {
		require.Zero(t, w, "output parameter %d starts at 0", i)
	}
}

func TestSoftmaxSingleValidAction(t *testing.T) {
	for _, pc := range softmaxCases() {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			p := pc.make(r, 2)
			for a := range c.Action(c.NumActions) {
				m := c.Mask(0).With(a)
				x := randFeatures(r)
				var probs [c.NumActions]float64
				p.Probs(x, m, &probs)
				for b, q := range probs {
					if c.Action(b) == a {
						require.Equal(t, 1.0, q)
					} else {
						require.Zero(t, q)
					}
				}
				grad := make([]float64, len(p.Params()))
				logp, ent := p.AddGrad(policy.Term{X: x, Mask: m, Action: a, Scale: 1, EntCoef: 1}, grad)
				require.Zero(t, logp)
				require.Zero(t, ent)
				for _, g := range grad {
					require.Zero(t, g)
				}
				for _, u := range []float64{0, 0.5, 0.999999} {
					require.Equal(t, a, p.Decide(randObservation(r), m, u))
				}
			}
		})
	}
}

func TestSoftmaxProbsSumToOneOverMask(t *testing.T) {
	for _, pc := range softmaxCases() {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			for _, spread := range []float64{0.1, 1, 30} {
				p := pc.make(r, spread)
				for range 200 {
					x, m := randFeatures(r), randMask(r, 1)
					var probs [c.NumActions]float64
					p.Probs(x, m, &probs)
					var sum float64
					for a, q := range probs {
						if m.Has(c.Action(a)) {
							require.True(t, q >= 0 && q <= 1, "p=%v", q)
						} else {
							require.Zero(t, q, "action %v outside the mask", c.Action(a))
						}
						sum += q
					}
					require.InDelta(t, 1, sum, 1e-12)
				}
			}
		})
	}
}

func TestSoftmaxUniformAtInit(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, p := range []policy.Softmax{policy.NewLinear(), policy.NewMLP(16, r)} {
		t.Run(p.Kind(), func(t *testing.T) {
			for m := c.Mask(1); m < 1<<c.NumActions; m++ {
				var probs [c.NumActions]float64
				p.Probs(randFeatures(r), m, &probs)
				n := float64(bits.OnesCount8(uint8(m)))
				for a, q := range probs {
					if m.Has(c.Action(a)) {
						require.InDelta(t, 1/n, q, 1e-15)
					} else {
						require.Zero(t, q)
					}
				}
			}
		})
	}
}

func TestSoftmaxDecideMatchesProbs(t *testing.T) {
	skipUnderRace(t)
	const n = 20000 // grid of u values: frequencies are exact to 1/n
	for _, pc := range softmaxCases() {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(10, 10))
			for range 8 {
				p := pc.make(r, 1)
				obs, m := randObservation(r), randMask(r, 2)
				var x [policy.NumFeatures]float64
				policy.Features(obs, &x)
				var probs [c.NumActions]float64
				p.Probs(&x, m, &probs)
				var freq [c.NumActions]float64
				for i := range n {
					freq[p.Decide(obs, m, (float64(i)+0.5)/n)] += 1.0 / n
				}
				for a := range probs {
					require.InDelta(t, probs[a], freq[a], 1e-3, "action %v", c.Action(a))
				}
			}
		})
	}
}

func TestSoftmaxDecideStaysInMask(t *testing.T) {
	us := []float64{0, 1e-300, 0.5, math.Nextafter(1, 0), 1, 1.5, -0.1, math.NaN()}
	for _, pc := range softmaxCases() {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(12, 12))
			for _, spread := range []float64{1, 1e3} { // 1e3: probabilities underflow to 0
				p := pc.make(r, spread)
				for range 300 {
					obs, m := randObservation(r), randMask(r, 1)
					for _, u := range us {
						a := p.Decide(obs, m, u)
						require.True(t, m.Has(a), "u=%v chose %v outside the mask", u, a)
					}
					// u at or past 1 picks the last valid action
					last := c.Action(7 - bits.LeadingZeros8(uint8(m)))
					require.Equal(t, last, p.Decide(obs, m, 1))
				}
				assert.Equal(t, c.Submit, p.Decide(randObservation(r), 0, 0.3), "empty mask")
			}
		})
	}
}

func TestSoftmaxClone(t *testing.T) {
	for _, pc := range softmaxCases() {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(13, 13))
			p := pc.make(r, 1)
			q := p.Clone()
			require.Equal(t, p.Kind(), q.Kind())
			require.Equal(t, p.Params(), q.Params())
			q.Params()[0]++
			require.NotEqual(t, p.Params()[0], q.Params()[0], "clone shares parameters")
		})
	}
}

// TestSoftmaxSolvesBandit checks the sign and scale of the gradient: REINFORCE
// with a moving-average baseline and plain gradient ascent must find the
// best of three Bernoulli arms.
func TestSoftmaxSolvesBandit(t *testing.T) {
	mean := map[c.Action]float64{c.Work: 0.2, c.Check: 0.9, c.Wait: 0.5}
	m := c.Mask(0).With(c.Work).With(c.Check).With(c.Wait)
	obs := &c.Observation{Main: true, Ready: 2, Free: 1, Unchecked: true, Coupling: 0.5, TimeUsed: 0.3}
	var x [policy.NumFeatures]float64
	policy.Features(obs, &x)
	for _, pc := range []struct {
		name string
		p    policy.Softmax
		lr   float64
	}{
		{"linear", policy.NewLinear(), 0.05},
		{"mlp", policy.NewMLP(8, rand.New(rand.NewPCG(1, 2))), 0.05},
	} {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(21, 22))
			p := pc.p
			grad := make([]float64, len(p.Params()))
			var baseline float64
			for range 3000 {
				a := p.Decide(obs, m, r.Float64())
				reward := 0.0
				if r.Float64() < mean[a] {
					reward = 1
				}
				clear(grad)
				p.AddGrad(policy.Term{X: &x, Mask: m, Action: a, Scale: reward - baseline}, grad)
				for i, g := range grad {
					p.Params()[i] += pc.lr * g // ascent
				}
				baseline += 0.05 * (reward - baseline)
			}
			var probs [c.NumActions]float64
			p.Probs(&x, m, &probs)
			t.Logf("p = work %.3f, check %.3f, wait %.3f", probs[c.Work], probs[c.Check], probs[c.Wait])
			require.Greater(t, probs[c.Check], 0.95)
		})
	}
}

func TestSoftmaxConcurrentDecide(t *testing.T) {
	for _, pc := range softmaxCases() {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(30, 30))
			p := pc.make(r, 1)
			type query struct {
				obs *c.Observation
				m   c.Mask
				u   float64
			}
			qs := make([]query, 500)
			want := make([]c.Action, len(qs))
			for i := range qs {
				qs[i] = query{randObservation(r), randMask(r, 1), r.Float64()}
				want[i] = p.Decide(qs[i].obs, qs[i].m, qs[i].u)
			}
			x, m := randFeatures(r), randMask(r, 2)
			wantGrad := make([]float64, len(p.Params()))
			p.AddGrad(policy.Term{X: x, Mask: m, Action: randAction(rand.New(rand.NewPCG(1, 1)), m), Scale: 1, EntCoef: 0.1}, wantGrad)

			var wg sync.WaitGroup
			got := make([][]c.Action, 8)
			grads := make([][]float64, len(got))
			for g := range got {
				wg.Go(func() {
					got[g] = make([]c.Action, len(qs))
					for i, q := range qs {
						got[g][i] = p.Decide(q.obs, q.m, q.u)
					}
					grads[g] = make([]float64, len(p.Params()))
					p.AddGrad(policy.Term{X: x, Mask: m, Action: randAction(rand.New(rand.NewPCG(1, 1)), m), Scale: 1, EntCoef: 0.1}, grads[g])
				})
			}
			wg.Wait()
			for g := range got {
				require.Equal(t, want, got[g])
				require.Equal(t, wantGrad, grads[g])
			}
		})
	}
}

func TestValueAddGradMatchesFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 40))
	var worst float64
	for _, scale := range []float64{1, 0.25, -2} {
		for range 10 {
			v := policy.NewValue()
			for i := range v.Params() {
				v.Params()[i] = r.NormFloat64()
			}
			x, target := randFeatures(r), 3*r.NormFloat64()
			grad := make([]float64, len(v.Params()))
			pred := v.AddGrad(x, target, scale, grad)
			require.Equal(t, v.Predict(x), pred)
			fd := centralDiff(v.Params(), func() float64 {
				d := v.Predict(x) - target
				return scale * 0.5 * d * d
			})
			e := relErr(grad, fd)
			worst = max(worst, e)
			require.Less(t, e, 1e-5)
		}
	}
	t.Logf("worst relative error %.2g", worst)
}

func TestValueFitsTargets(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	v := policy.NewValue()
	xs := make([]*[policy.NumFeatures]float64, 20)
	for i := range xs {
		xs[i] = randFeatures(r)
	}
	target := func(x *[policy.NumFeatures]float64) float64 { return 0.5 + x[1] - 2*x[3] }
	grad := make([]float64, len(v.Params()))
	for range 4000 {
		clear(grad)
		for _, x := range xs {
			v.AddGrad(x, target(x), 1.0/float64(len(xs)), grad)
		}
		for i, g := range grad {
			v.Params()[i] -= 0.1 * g // descent on the squared error
		}
	}
	for _, x := range xs {
		require.InDelta(t, target(x), v.Predict(x), 1e-3)
	}
	w := v.Clone()
	w.Params()[0]++
	require.NotEqual(t, v.Params()[0], w.Params()[0])
}

// TestSoftmaxDecideDoesNotAllocate: a decision and its gradient allocate
// nothing for the linear policy and for an MLP whose hidden layer fits its
// 128-value stack buffer, up to and including that width (mlp130 of
// softmaxCases allocates its hidden layer).
func TestSoftmaxDecideDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 31))
	type named struct {
		name string
		p    policy.Softmax
	}
	var policies []named
	for _, pc := range softmaxCases()[:2] {
		policies = append(policies, named{pc.name, pc.make(r, 1)})
	}
	for _, hidden := range []int{1, 127, 128} {
		policies = append(policies, named{fmt.Sprintf("mlp%d", hidden), policy.NewMLP(hidden, r)})
	}
	for _, np := range policies {
		name, p := np.name, np.p
		obs, m := randObservation(r), randMask(r, 2)
		x, a := randFeatures(r), randAction(r, m)
		grad := make([]float64, len(p.Params()))
		allocs := testing.AllocsPerRun(100, func() {
			p.Decide(obs, m, 0.3)
			p.AddGrad(policy.Term{X: x, Mask: m, Action: a, Scale: 1, EntCoef: 0.01}, grad)
		})
		assert.Zero(t, allocs, name)
	}
}

func BenchmarkSoftmaxDecide(b *testing.B) {
	r := rand.New(rand.NewPCG(32, 32))
	for _, pc := range softmaxCases() {
		b.Run(pc.name, func(b *testing.B) {
			p := pc.make(r, 1)
			obs, m := randObservation(r), randMask(r, 3)
			for b.Loop() {
				p.Decide(obs, m, 0.3)
			}
		})
	}
}

// TestSoftmaxAddGradProbsIsAddGrad checks that the gradient from the
// probabilities ProbsLog wrote is AddGrad's, bit for bit, with the same
// log π(a) and entropy, and that ProbsLog's probabilities are Probs'.
func TestSoftmaxAddGradProbsIsAddGrad(t *testing.T) {
	for _, pc := range softmaxCases() {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			for k := range 200 {
				p := pc.make(r, []float64{0.1, 2, 30}[k%3])
				x, m := randFeatures(r), randMask(r, 1)
				a := randAction(r, m)
				var probs, again, logp [c.NumActions]float64
				p.ProbsLog(x, m, &probs, &logp)
				p.Probs(x, m, &again)
				require.Equal(t, again, probs)
				want := make([]float64, len(p.Params()))
				got := make([]float64, len(p.Params()))
				wl, we := p.AddGrad(policy.Term{X: x, Mask: m, Action: a, Scale: 0.7, EntCoef: 0.05}, want)
				gl, ge := p.AddGradProbs(policy.Term{X: x, Mask: m, Action: a, Scale: 0.7, EntCoef: 0.05}, &probs, &logp, got)
				require.Equal(t, want, got, "case %d", k)
				require.Equal(t, wl, gl)
				require.Equal(t, we, ge)
			}
		})
	}
}

// skipUnderRace skips a long test of the policy's arithmetic under the race
// detector: package policy starts no goroutine, so the detector can find
// nothing there, and it makes these tests ten times slower (the plain pass
// of CI runs them).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if race.Enabled {
		t.Skip("arithmetic on one goroutine: nothing for the race detector (go test ./models/policy runs it)")
	}
}
