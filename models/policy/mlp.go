package policy

import (
	"fmt"
	"math"
	"math/rand/v2"

	c "github.com/swarmsim/swarmsim/models/collective"
)

// MaxHidden bounds the hidden layer of an MLP (Load rejects larger ones).
const MaxHidden = 1024

// MLP is a softmax policy with one tanh hidden layer:
//
//	h = tanh(W1 x),   logit = W2 h + b2.
//
// (W1 needs no bias: the features include one.) Params holds W1 row by
// row (Hidden rows of NumFeatures), then W2 row by row (NumActions rows of
// Hidden), then b2 (NumActions).
type MLP struct {
	hidden int
	p      []float64
}

// NewMLP returns an MLP policy with the given hidden width. W1's weights
// on the features before the kind features are drawn from r, row by row,
// normal with standard deviation 1/sqrt(of their number); its weights on
// the kinds, W2 and b2 are zero, so the initial policy is uniform over the
// valid actions. A kind's weights start at 0 and stay there on tasks
// without a kind, and the draws are those of a policy without kind
// features: such tasks train the same MLP as before the kinds existed. It
// panics unless 1 ≤ hidden ≤ MaxHidden and r is not nil.
func NewMLP(hidden int, r *rand.Rand) *MLP {
	if r == nil {
		panic("policy: NewMLP needs a random source")
	}
	m := newMLP(hidden)
	sd := 1 / math.Sqrt(numBase)
	w1 := m.w1()
	for j := range hidden {
		for k := range numBase {
			w1[j*NumFeatures+k] = sd * r.NormFloat64()
		}
	}
	return m
}

// newMLP returns an MLP with all parameters zero.
func newMLP(hidden int) *MLP {
	if hidden < 1 || hidden > MaxHidden {
		panic(fmt.Sprintf("policy: MLP hidden width %d outside [1, %d]", hidden, MaxHidden))
	}
	return &MLP{hidden: hidden, p: make([]float64, mlpParams(hidden))}
}

func mlpParams(hidden int) int { return hidden*NumFeatures + c.NumActions*hidden + c.NumActions }

// Hidden returns the width of the hidden layer.
func (m *MLP) Hidden() int { return m.hidden }

// Kind returns "mlp".
func (m *MLP) Kind() string { return "mlp" }

// Params returns the parameters, aliased; see MLP for the layout.
func (m *MLP) Params() []float64 { return m.p }

// Clone returns an independent copy.
func (m *MLP) Clone() Softmax { return &MLP{hidden: m.hidden, p: append([]float64(nil), m.p...)} }

func (m *MLP) w1() []float64 { return m.p[:m.hidden*NumFeatures] }
func (m *MLP) w2() []float64 {
	return m.p[m.hidden*NumFeatures : m.hidden*NumFeatures+c.NumActions*m.hidden]
}
func (m *MLP) b2() []float64 { return m.p[m.hidden*NumFeatures+c.NumActions*m.hidden:] }

// scratch returns a hidden-layer buffer: buf when it is large enough.
func (m *MLP) scratch(buf []float64) []float64 {
	if m.hidden <= len(buf) {
		return buf[:m.hidden]
	}
	return make([]float64, m.hidden)
}

// forward computes the hidden layer into h and the logits of the valid
// actions into z (the others are left 0).
func (m *MLP) forward(x *[NumFeatures]float64, mask c.Mask, h []float64, z *[c.NumActions]float64) {
	w1, w2, b2 := m.w1(), m.w2(), m.b2()
	for j := range h {
		h[j] = math.Tanh(dot(w1[j*NumFeatures:(j+1)*NumFeatures], x[:]))
	}
	for a := range c.Action(c.NumActions) {
		if mask.Has(a) {
			z[a] = b2[a] + dot(w2[int(a)*m.hidden:(int(a)+1)*m.hidden], h)
		}
	}
}

// Probs implements Softmax. Cost O(Hidden·(NumFeatures+NumActions)).
func (m *MLP) Probs(x *[NumFeatures]float64, mask c.Mask, out *[c.NumActions]float64) {
	var logp [c.NumActions]float64
	m.ProbsLog(x, mask, out, &logp)
}

// ProbsLog implements Softmax.
func (m *MLP) ProbsLog(x *[NumFeatures]float64, mask c.Mask, out, logp *[c.NumActions]float64) {
	var buf [128]float64
	var z [c.NumActions]float64
	m.forward(x, mask, m.scratch(buf[:]), &z)
	maskedSoftmax(&z, mask, out, logp)
}

// AddGradProbs implements Softmax. Backpropagation needs the hidden layer,
// so it is AddGrad.
func (m *MLP) AddGradProbs(t Term, _, _ *[c.NumActions]float64, grad []float64) (logpA, entropy float64) {
	return m.AddGrad(t, grad)
}

// Decide implements collective.Policy; see Softmax.
func (m *MLP) Decide(o *c.Observation, mask c.Mask, u float64) c.Action {
	var x [NumFeatures]float64
	var p [c.NumActions]float64
	Features(o, &x)
	m.Probs(&x, mask, &p)
	return Sample(&p, mask, u)
}

// AddGrad implements Softmax, by backpropagation through both layers.
func (m *MLP) AddGrad(t Term, grad []float64) (logp, entropy float64) {
	x, mask := t.X, t.Mask
	checkGrad(len(grad), len(m.p))
	var buf, dbuf [128]float64
	var z [c.NumActions]float64
	h := m.scratch(buf[:])
	m.forward(x, mask, h, &z)
	gz, logp, entropy := logitGrad(&z, t)

	w2 := m.w2()
	nh := m.hidden
	g1 := grad[:nh*NumFeatures]
	g2 := grad[nh*NumFeatures : nh*NumFeatures+c.NumActions*nh]
	gb := grad[nh*NumFeatures+c.NumActions*nh:]
	dh := m.scratch(dbuf[:])
	clear(dh)
	for b := range c.Action(c.NumActions) {
		if !mask.Has(b) || gz[b] == 0 {
			continue
		}
		gb[b] += gz[b]
		row, grow := w2[int(b)*nh:(int(b)+1)*nh], g2[int(b)*nh:(int(b)+1)*nh]
		for j, hj := range h {
			grow[j] += float64(gz[b] * hj)
			dh[j] += float64(gz[b] * row[j])
		}
	}
	for j, hj := range h {
		d := dh[j] * (1 - float64(hj*hj)) // tanh'
		if d == 0 {
			continue
		}
		grow := g1[j*NumFeatures : (j+1)*NumFeatures]
		for k, xk := range x {
			grow[k] += float64(d * xk)
		}
	}
	return logp, entropy
}
