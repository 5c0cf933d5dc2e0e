package policy_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	c "github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
)

// logPolicyFromLayout computes log π(·|x) over the valid actions and the
// entropy H straight from the parameter layouts the types document
// (Linear: one row of NumFeatures weights per action; MLP: W1, W2, b2),
// with plain loops and a log-sum-exp: a forward pass that shares no code
// with the policies'. Invalid actions get −Inf.
func logPolicyFromLayout(kind string, hidden int, th []float64, x *[policy.NumFeatures]float64, m c.Mask) (logp [c.NumActions]float64, entropy float64) {
	const nf, na = policy.NumFeatures, c.NumActions
	var z [na]float64
	switch kind {
	case "linear":
		for a := range na {
			for k := range nf {
				z[a] += th[a*nf+k] * x[k]
			}
		}
	case "mlp":
		h := make([]float64, hidden)
		for j := range hidden {
			s := 0.0
			for k := range nf {
				s += th[j*nf+k] * x[k]
			}
			h[j] = math.Tanh(s)
		}
		w2, b2 := th[hidden*nf:], th[hidden*nf+na*hidden:]
		for a := range na {
			z[a] = b2[a]
			for j := range hidden {
				z[a] += w2[a*hidden+j] * h[j]
			}
		}
	}
	zmax := math.Inf(-1)
	for a := range na {
		if m.Has(c.Action(a)) {
			zmax = math.Max(zmax, z[a])
		}
	}
	sum := 0.0
	for a := range na {
		if m.Has(c.Action(a)) {
			sum += math.Exp(z[a] - zmax)
		}
	}
	for a := range na {
		logp[a] = math.Inf(-1)
		if m.Has(c.Action(a)) {
			logp[a] = z[a] - zmax - math.Log(sum)
			entropy -= math.Exp(logp[a]) * logp[a]
		}
	}
	return logp, entropy
}

// TestAddGradAgainstTheDocumentedLayout checks log π, H and the gradient
// of Scale·log π(a|x) + EntCoef·H that AddGrad returns against central
// differences (h = 1e-6) of logPolicyFromLayout, for both policies, on
// random parameters, features and masks, one valid action among them
// (whose gradient must be exactly 0). Finite differences of the policy's
// own forward pass (TestSoftmaxAddGradMatchesFiniteDifferences) cannot
// see a forward pass that reads its parameters in another order than the
// documented one, which a saved policy file relies on.
func TestAddGradAgainstTheDocumentedLayout(t *testing.T) {
	skipUnderRace(t)
	r := rand.New(rand.NewPCG(99, 7))
	for _, tc := range []struct {
		kind   string
		hidden int
	}{{"linear", 0}, {"mlp", 5}} {
		t.Run(tc.kind, func(t *testing.T) {
			for trial := range 20 {
				var p policy.Softmax = policy.NewLinear()
				if tc.kind == "mlp" {
					p = policy.NewMLP(tc.hidden, r)
				}
				th := p.Params()
				for i := range th {
					th[i] = 0.7 * r.NormFloat64()
				}
				x := randFeatures(r)
				m := randMask(r, 2)
				if trial%5 == 4 {
					m = c.Mask(1) << r.IntN(c.NumActions)
				}
				a := randAction(r, m)
				const scale, entCoef = -0.8, 0.35
				grad := make([]float64, len(th))
				logp, ent := p.AddGrad(policy.Term{X: x, Mask: m, Action: a, Scale: scale, EntCoef: entCoef}, grad)

				wantLogp, wantEnt := logPolicyFromLayout(tc.kind, tc.hidden, th, x, m)
				require.InDelta(t, wantLogp[a], logp, 1e-12, "trial %d: log π(a|x)", trial)
				require.InDelta(t, wantEnt, ent, 1e-12, "trial %d: H", trial)
				var probs [c.NumActions]float64
				p.Probs(x, m, &probs)
				for b := range c.Action(c.NumActions) {
					require.InDelta(t, math.Exp(wantLogp[b]), probs[b], 1e-14, "trial %d: π(%v|x)", trial, b)
				}

				if m.Single() {
					for i, g := range grad {
						require.Zero(t, g, "trial %d: one valid action, parameter %d", trial, i)
					}
					continue
				}
				fd := centralDiff(th, func() float64 {
					lp, h := logPolicyFromLayout(tc.kind, tc.hidden, th, x, m)
					return scale*lp[a] + entCoef*h
				})
				for i := range grad {
					require.InDelta(t, fd[i], grad[i], 1e-8, "trial %d: parameter %d", trial, i)
				}
				assertMaskedGradZero(t, p, m, grad)
			}
		})
	}
}
