package policy

import (
	"fmt"
	"math"
	"math/bits"

	c "github.com/swarmsim/swarmsim/models/collective"
)

// Softmax is a learnable stochastic policy: features of the observation
// give one logit per action, a softmax over the valid actions gives their
// probabilities, and Decide samples from them. *Linear and *MLP implement
// it.
//
// Decide, Probs and AddGrad only read the parameters and keep no scratch
// in the policy, so any number of goroutines may call them at once, as
// long as nobody writes to Params meanwhile.
type Softmax interface {
	// Decide computes the features of obs and samples an action from the
	// masked softmax by inverse CDF with u in [0, 1): it walks the valid
	// actions in action order and returns the first whose cumulative
	// probability exceeds u, or the last valid one if rounding leaves u
	// beyond it. The same u gives the same action. With an empty mask it
	// returns Submit, as the fixed policies do.
	c.Policy
	// Kind is "linear" or "mlp".
	Kind() string
	// Params is the flat parameter vector. It aliases the policy: an
	// optimizer updates the policy by writing into it.
	Params() []float64
	// Probs writes the masked softmax into out: actions outside mask get
	// exactly 0; with one valid action it gets exactly 1.
	Probs(x *[NumFeatures]float64, mask c.Mask, out *[c.NumActions]float64)
	// AddGrad adds the gradient of the term t, t.Scale·∇θ log π(a|x) +
	// t.EntCoef·∇θ H(π(·|x)), to grad and returns log π(a|x) and the
	// entropy H. Parameters that only touch actions outside t.Mask get
	// nothing. It panics if len(grad) differs from len(Params()) or
	// t.Action is not in t.Mask.
	AddGrad(t Term, grad []float64) (logp, entropy float64)
	// ProbsLog is Probs that also writes log π(·|x) into logp (0 outside
	// mask), computed from the logits so that it stays finite.
	ProbsLog(x *[NumFeatures]float64, mask c.Mask, out, logp *[c.NumActions]float64)
	// AddGradProbs is AddGrad for a decision whose probabilities p and
	// their logarithms logp ProbsLog wrote at the current parameters. The
	// result is AddGrad's, to the bit; the linear policy gets it without
	// computing the logits again, a learner's largest saving in its update.
	AddGradProbs(t Term, p, logp *[c.NumActions]float64, grad []float64) (logpA, entropy float64)
	// Clone returns an independent copy.
	Clone() Softmax
}

// Term is one decision's term of a policy-gradient objective,
// Scale·log π(Action|X) + EntCoef·H(π(·|X)) with π masked to Mask: what
// AddGrad adds the gradient of. A learner's Scale is the decision's
// advantage times its weight in the loss, and EntCoef the entropy bonus's
// coefficient times that weight.
type Term struct {
	X       *[NumFeatures]float64
	Mask    c.Mask
	Action  c.Action
	Scale   float64
	EntCoef float64
}

// Linear is a softmax policy whose logits are linear in the features:
// logit_a = W_a · x. Params holds W row by row, one row of NumFeatures
// weights per action in action order (the bias is the "bias" feature).
type Linear struct {
	w []float64
}

// NewLinear returns a linear policy with zero weights: uniform over the
// valid actions.
func NewLinear() *Linear { return &Linear{w: make([]float64, c.NumActions*NumFeatures)} }

// Kind returns "linear".
func (l *Linear) Kind() string { return "linear" }

// Params returns the weights, aliased; see Linear for the layout.
func (l *Linear) Params() []float64 { return l.w }

// Clone returns an independent copy.
func (l *Linear) Clone() Softmax { return &Linear{w: append([]float64(nil), l.w...)} }

// logits computes the logits of the valid actions; the others are left 0.
// Each is dot's sum, in feature order, but up to four valid actions' sums
// run side by side: a single sum waits on each of its additions, and several
// fill the time instead of queueing behind one another. One or two valid
// actions, the common case, take the pair's loop.
func (l *Linear) logits(x *[NumFeatures]float64, m c.Mask, z *[c.NumActions]float64) {
	v := m & allActions
	for v != 0 {
		a0 := bits.TrailingZeros8(uint8(v))
		v &= v - 1
		if v&(v-1) == 0 { // one or two left
			if v == 0 {
				z[a0], _ = dot2(l.row(a0), &zeroRow, x)
				return
			}
			a1 := bits.TrailingZeros8(uint8(v))
			z[a0], z[a1] = dot2(l.row(a0), l.row(a1), x)
			return
		}
		// Three or more: four side by side, a zero row padding the fourth.
		a1 := bits.TrailingZeros8(uint8(v))
		v &= v - 1
		a2 := bits.TrailingZeros8(uint8(v))
		v &= v - 1
		r3, a3 := &zeroRow, -1
		if v != 0 {
			a3 = bits.TrailingZeros8(uint8(v))
			r3 = l.row(a3)
			v &= v - 1
		}
		s0, s1, s2, s3 := dot4(l.row(a0), l.row(a1), l.row(a2), r3, x)
		z[a0], z[a1], z[a2] = s0, s1, s2
		if a3 >= 0 {
			z[a3] = s3
		}
	}
}

// row is action a's weights.
func (l *Linear) row(a int) *[NumFeatures]float64 {
	return (*[NumFeatures]float64)(l.w[a*NumFeatures:])
}

// dot2 is dot of r0 and of r1 with x, side by side. The rows and x are
// arrays, so that the loop checks no bounds, and it takes four features a
// turn, so that the loop's own count and branch are paid a quarter as
// often; each sum still adds its products in feature order.
func dot2(r0, r1, x *[NumFeatures]float64) (s0, s1 float64) {
	k := 0
	for ; k <= NumFeatures-4; k += 4 {
		x0, x1, x2, x3 := x[k], x[k+1], x[k+2], x[k+3]
		s0 += float64(r0[k] * x0)
		s1 += float64(r1[k] * x0)
		s0 += float64(r0[k+1] * x1)
		s1 += float64(r1[k+1] * x1)
		s0 += float64(r0[k+2] * x2)
		s1 += float64(r1[k+2] * x2)
		s0 += float64(r0[k+3] * x3)
		s1 += float64(r1[k+3] * x3)
	}
	for ; k < NumFeatures; k++ {
		s0 += float64(r0[k] * x[k])
		s1 += float64(r1[k] * x[k])
	}
	return s0, s1
}

// dot4 is dot2 for four rows, a feature a turn.
func dot4(r0, r1, r2, r3, x *[NumFeatures]float64) (s0, s1, s2, s3 float64) {
	for k, xk := range x {
		s0 += float64(r0[k] * xk)
		s1 += float64(r1[k] * xk)
		s2 += float64(r2[k] * xk)
		s3 += float64(r3[k] * xk)
	}
	return s0, s1, s2, s3
}

// allActions is the mask of every action: a Mask's bits above it name
// none.
const allActions c.Mask = 1<<c.NumActions - 1

// zeroRow pads the rows of logits.
var zeroRow [NumFeatures]float64

// Probs implements Softmax. Cost O(NumActions·NumFeatures).
func (l *Linear) Probs(x *[NumFeatures]float64, m c.Mask, out *[c.NumActions]float64) {
	var logp [c.NumActions]float64
	l.ProbsLog(x, m, out, &logp)
}

// ProbsLog implements Softmax.
func (l *Linear) ProbsLog(x *[NumFeatures]float64, m c.Mask, out, logp *[c.NumActions]float64) {
	var z [c.NumActions]float64
	l.logits(x, m, &z)
	maskedSoftmax(&z, m, out, logp)
}

// Decide implements collective.Policy; see Softmax.
func (l *Linear) Decide(o *c.Observation, m c.Mask, u float64) c.Action {
	var x [NumFeatures]float64
	var p [c.NumActions]float64
	Features(o, &x)
	l.Probs(&x, m, &p)
	return Sample(&p, m, u)
}

// AddGrad implements Softmax.
func (l *Linear) AddGrad(t Term, grad []float64) (logp, entropy float64) {
	checkGrad(len(grad), len(l.w))
	var z [c.NumActions]float64
	l.logits(t.X, t.Mask, &z)
	gz, logp, entropy := logitGrad(&z, t)
	l.addOuter(t.X, t.Mask, &gz, grad)
	return logp, entropy
}

// AddGradProbs implements Softmax: the gradient from p and logp, with no
// logits computed.
func (l *Linear) AddGradProbs(t Term, p, logp *[c.NumActions]float64, grad []float64) (logpA, entropy float64) {
	checkGrad(len(grad), len(l.w))
	gz, logpA, entropy := logitGradFrom(p, logp, t)
	l.addOuter(t.X, t.Mask, &gz, grad)
	return logpA, entropy
}

// addOuter adds the logits' gradient gz times the features to grad. Each
// element of grad gets one product, as a row at a time would add it, but
// two rows go side by side, so that they share the loads of x and the
// loop.
func (l *Linear) addOuter(x *[NumFeatures]float64, m c.Mask, gz *[c.NumActions]float64, grad []float64) {
	var r0 *[NumFeatures]float64 // a row waiting for its pair
	var g0 float64
	for v := m & allActions; v != 0; v &= v - 1 {
		b := bits.TrailingZeros8(uint8(v))
		g := gz[b]
		if g == 0 {
			continue // a zero row adds exactly nothing
		}
		r := (*[NumFeatures]float64)(grad[b*NumFeatures:])
		if r0 == nil {
			r0, g0 = r, g
			continue
		}
		axpy2(r0, r, g0, g, x)
		r0 = nil
	}
	if r0 != nil {
		for k, xk := range x {
			r0[k] += float64(g0 * xk)
		}
	}
}

// axpy2 adds g0·x to r0 and g1·x to r1, four features a turn, as dot2
// goes.
func axpy2(r0, r1 *[NumFeatures]float64, g0, g1 float64, x *[NumFeatures]float64) {
	k := 0
	for ; k <= NumFeatures-4; k += 4 {
		x0, x1, x2, x3 := x[k], x[k+1], x[k+2], x[k+3]
		r0[k] += float64(g0 * x0)
		r1[k] += float64(g1 * x0)
		r0[k+1] += float64(g0 * x1)
		r1[k+1] += float64(g1 * x1)
		r0[k+2] += float64(g0 * x2)
		r1[k+2] += float64(g1 * x2)
		r0[k+3] += float64(g0 * x3)
		r1[k+3] += float64(g1 * x3)
	}
	for ; k < NumFeatures; k++ {
		r0[k] += float64(g0 * x[k])
		r1[k] += float64(g1 * x[k])
	}
}

// maskedSoftmax writes the softmax of the valid logits into p and their
// logarithms into logp; invalid actions get p = 0 and logp = 0 (unused).
// The maximum is subtracted first, and logp is computed from the logits,
// so it stays finite when p underflows to 0.
func maskedSoftmax(z *[c.NumActions]float64, m c.Mask, p, logp *[c.NumActions]float64) {
	*p, *logp = [c.NumActions]float64{}, [c.NumActions]float64{}
	// The loops visit the valid actions only, in action order, as the sums
	// need.
	m &= allActions
	if r := m & (m - 1); r != 0 && r&(r-1) == 0 { // two valid actions
		softmax2(z, bits.TrailingZeros8(uint8(m)), bits.TrailingZeros8(uint8(r)), p, logp)
		return
	}
	zmax := math.Inf(-1)
	for v := m; v != 0; v &= v - 1 {
		if a := bits.TrailingZeros8(uint8(v)); z[a] > zmax {
			zmax = z[a]
		}
	}
	var sum float64
	for v := m; v != 0; v &= v - 1 {
		a := bits.TrailingZeros8(uint8(v))
		// The largest logit's term is exp(0) = 1, without the call; a
		// difference that is not 0 (NaN among them) goes to Exp.
		e := 1.0
		if d := z[a] - zmax; d != 0 {
			e = math.Exp(d)
		}
		p[a] = e
		sum += e
	}
	if sum == 0 { // empty mask (or non-finite logits)
		return
	}
	lsum := math.Log(sum)
	for v := m; v != 0; v &= v - 1 {
		a := bits.TrailingZeros8(uint8(v))
		p[a] /= sum
		logp[a] = z[a] - zmax - lsum
	}
}

// softmax2 is maskedSoftmax for two valid actions a0 < a1, the common
// case, without its loops: the same operations in the same order.
func softmax2(z *[c.NumActions]float64, a0, a1 int, p, logp *[c.NumActions]float64) {
	z0, z1 := z[a0], z[a1]
	zmax := math.Inf(-1)
	if z0 > zmax {
		zmax = z0
	}
	if z1 > zmax {
		zmax = z1
	}
	e0, e1 := 1.0, 1.0
	if d := z0 - zmax; d != 0 {
		e0 = math.Exp(d)
	}
	if d := z1 - zmax; d != 0 {
		e1 = math.Exp(d)
	}
	p[a0], p[a1] = e0, e1
	var sum float64
	sum += e0
	sum += e1
	if sum == 0 { // non-finite logits
		return
	}
	lsum := math.Log(sum)
	p[a0], logp[a0] = e0/sum, z0-zmax-lsum
	p[a1], logp[a1] = e1/sum, z1-zmax-lsum
}

// logitGrad returns g = scale·∂log π(a)/∂z + entCoef·∂H/∂z of the term t
// for the valid logits z (0 for invalid actions), with log π(a) and H:
//
//	∂log π(a)/∂z_j = [j = a] − p_j,   ∂H/∂z_j = −p_j (log p_j + H).
//
// With one valid action both terms are exactly 0.
func logitGrad(z *[c.NumActions]float64, t Term) (g [c.NumActions]float64, logpA, entropy float64) {
	var p, logp [c.NumActions]float64
	maskedSoftmax(z, t.Mask, &p, &logp)
	return logitGradFrom(&p, &logp, t)
}

// logitGradFrom is logitGrad given the masked softmax p of the logits and
// its logarithm logp.
func logitGradFrom(p, logp *[c.NumActions]float64, t Term) (g [c.NumActions]float64, logpA, entropy float64) {
	m, a, scale, entCoef := t.Mask, t.Action, t.Scale, t.EntCoef
	if int(a) >= c.NumActions || !m.Has(a) {
		panic(fmt.Sprintf("policy: AddGrad for action %v outside its mask", a))
	}
	// The entropy's sum over the valid actions, in order: the others'
	// terms are 0·0 = +0, and subtracting +0 changes no sum.
	for v := m & allActions; v != 0; v &= v - 1 {
		j := bits.TrailingZeros8(uint8(v))
		entropy -= float64(p[j] * logp[j])
	}
	for v := m & allActions; v != 0; v &= v - 1 {
		j := c.Action(bits.TrailingZeros8(uint8(v)))
		d := -p[j]
		if j == a {
			d += 1
		}
		g[j] = float64(scale*d) - float64(entCoef*p[j]*(logp[j]+entropy))
	}
	return g, logp[a], entropy
}

// Sample picks an action from the masked probabilities p by inverse CDF
// with u in [0, 1), as Softmax.Decide does: a caller that computes the
// features and probabilities itself (to keep them) samples the same action
// with the same u.
func Sample(p *[c.NumActions]float64, m c.Mask, u float64) c.Action {
	last := c.Submit
	var cum float64
	for a := range c.Action(c.NumActions) {
		if !m.Has(a) {
			continue
		}
		cum += p[a]
		if u < cum {
			return a
		}
		last = a
	}
	return last
}

func dot(w, x []float64) float64 {
	var s float64
	for i, v := range w {
		s += float64(v * x[i])
	}
	return s
}

func checkGrad(got, want int) {
	if got != want {
		panic(fmt.Sprintf("policy: gradient of length %d for %d parameters", got, want))
	}
}
