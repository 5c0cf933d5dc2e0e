package policy

import (
	"math"
	"math/rand/v2"
	"testing"

	c "github.com/swarmsim/swarmsim/models/collective"
)

// TestLinearLogitsAreDots checks that the linear policy's logits, summed
// side by side, are each the plain sum in feature order to the bit, for
// every mask: weights of mixed magnitudes make any other order of the
// additions round differently.
func TestLinearLogitsAreDots(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	l := NewLinear()
	for trial := range 50 {
		for i := range l.w {
			l.w[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6))
		}
		var x [NumFeatures]float64
		for k := range x {
			x[k] = rng.Float64() * math.Pow(10, float64(rng.IntN(6)-3))
		}
		for m := range c.Mask(1 << c.NumActions) {
			var z [c.NumActions]float64
			l.logits(&x, m, &z)
			for a := range c.Action(c.NumActions) {
				want := 0.0
				if m.Has(a) {
					want = dot(l.w[int(a)*NumFeatures:(int(a)+1)*NumFeatures], x[:])
				}
				if math.Float64bits(z[a]) != math.Float64bits(want) {
					t.Fatalf("trial %d, mask %b, action %v: logit %v, want %v", trial, m, a, z[a], want)
				}
			}
		}
	}
}

// TestLinearAddOuterIsRowByRow checks that the gradient's outer product,
// two rows side by side, adds to every element of the gradient what one
// row at a time adds, to the bit, for every mask (the bit above the
// actions included) and with zero coefficients among the others.
func TestLinearAddOuterIsRowByRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	l := NewLinear()
	for trial := range 50 {
		var x [NumFeatures]float64
		for k := range x {
			x[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(6)-3))
		}
		var gz [c.NumActions]float64
		for b := range gz {
			if rng.IntN(4) > 0 {
				gz[b] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(6)-3))
			}
		}
		start := make([]float64, len(l.w))
		for i := range start {
			start[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6))
		}
		for m := range c.Mask(1<<(c.NumActions+1) - 1) {
			got := append([]float64(nil), start...)
			l.addOuter(&x, m, &gz, got)
			want := append([]float64(nil), start...)
			for b := range c.Action(c.NumActions) {
				if m.Has(b) && gz[b] != 0 {
					for k, xk := range x {
						want[int(b)*NumFeatures+k] += float64(gz[b] * xk) // as addOuter rounds it
					}
				}
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("trial %d, mask %b, parameter %d: %v, want %v", trial, m, i, got[i], want[i])
				}
			}
		}
	}
}

// TestMaskedSoftmaxVisitsValidActions checks maskedSoftmax, which visits
// the valid actions only, against the softmax over all actions in order
// with the invalid ones skipped, to the bit, for every mask.
func TestMaskedSoftmaxVisitsValidActions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 50 {
		var z [c.NumActions]float64
		for a := range z {
			z[a] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(4)-1))
		}
		for m := range c.Mask(1<<(c.NumActions+1) - 1) {
			p, logp := [c.NumActions]float64{9, 9, 9, 9, 9, 9, 9}, [c.NumActions]float64{9, 9, 9, 9, 9, 9, 9}
			maskedSoftmax(&z, m, &p, &logp)
			var wp, wlogp [c.NumActions]float64
			zmax, sum := math.Inf(-1), 0.0
			for a := range c.Action(c.NumActions) {
				if m.Has(a) {
					zmax = max(zmax, z[a])
				}
			}
			for a := range c.Action(c.NumActions) {
				if m.Has(a) {
					wp[a] = math.Exp(z[a] - zmax)
					sum += wp[a]
				}
			}
			for a := range c.Action(c.NumActions) {
				if m.Has(a) && sum > 0 {
					wp[a] /= sum
					wlogp[a] = z[a] - zmax - math.Log(sum)
				}
			}
			for a := range c.Action(c.NumActions) {
				if math.Float64bits(p[a]) != math.Float64bits(wp[a]) || math.Float64bits(logp[a]) != math.Float64bits(wlogp[a]) {
					t.Fatalf("trial %d, mask %b, action %v: p %v, log p %v, want %v, %v", trial, m, a, p[a], logp[a], wp[a], wlogp[a])
				}
			}
		}
	}
}
