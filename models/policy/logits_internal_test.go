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
