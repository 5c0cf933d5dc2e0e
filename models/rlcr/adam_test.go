package rlcr

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Adam's update written out for two steps (Kingma & Ba, Algorithm 1, with
// ascent): m ← β1 m + (1−β1) g, v ← β2 v + (1−β2) g², θ ← θ + α m̂/(√v̂ + ε)
// with m̂ = m/(1−β1^t), v̂ = v/(1−β2^t). A gradient far below ε shows that ε
// is added, not subtracted.
func TestAdamStep(t *testing.T) {
	const b1, b2, eps, lr = 0.9, 0.99, 1e-3, 0.1
	g1 := []float64{0.5, -2, 1e-5}
	g2 := []float64{-0.5, 1, 1e-5}
	o := newAdam(3, b1, b2, eps)
	params := []float64{1, 1, 1}
	o.step(params, g1, lr)
	o.step(params, g2, lr)
	for i := range params {
		want := 1.0
		m, v := 0.0, 0.0
		for k, g := range []float64{g1[i], g2[i]} {
			m = b1*m + (1-b1)*g
			v = b2*v + (1-b2)*g*g
			mh := m / (1 - math.Pow(b1, float64(k+1)))
			vh := v / (1 - math.Pow(b2, float64(k+1)))
			want += lr * mh / (math.Sqrt(vh) + eps)
		}
		assert.InDelta(t, want, params[i], 1e-12, "parameter %d", i)
	}
	assert.Less(t, params[2]-1, 2*lr*1e-5/eps, "a tiny gradient moves its parameter by about lr·g/ε")
	assert.Positive(t, params[2]-1)
	// The first step moves every coordinate by lr·sign(g), whatever the
	// gradient's scale: the invariance the docs warn about.
	o = newAdam(2, b1, b2, 1e-12)
	params = []float64{0, 0}
	o.step(params, []float64{1000, -0.001}, lr)
	assert.InDelta(t, lr, params[0], 1e-9)
	assert.InDelta(t, -lr, params[1], 1e-6)
}

func TestClipNorm(t *testing.T) {
	g := []float64{3, 4}
	assert.Equal(t, 5.0, clipNorm(g, 0), "no limit")
	assert.Equal(t, []float64{3, 4}, g)
	assert.Equal(t, 5.0, clipNorm(g, 10), "under the limit")
	assert.Equal(t, []float64{3, 4}, g)
	assert.Equal(t, 5.0, clipNorm(g, 5), "at the limit")
	assert.Equal(t, []float64{3, 4}, g)
	assert.Equal(t, 5.0, clipNorm(g, 1), "the norm before clipping")
	assert.InDelta(t, 0.6, g[0], 1e-15)
	assert.InDelta(t, 0.8, g[1], 1e-15)
}

func TestSchedules(t *testing.T) {
	// From 1 to 0.2 over 5 iterations: f = i/4.
	cases := []struct {
		s    Schedule
		want []float64
	}{
		{Constant, []float64{1, 1, 1, 1, 1}},
		{Linear, []float64{1, 0.8, 0.6, 0.4, 0.2}},
		// 0.2 + 0.8·(1 + cos(π f))/2
		{Cosine, []float64{1, 0.2 + 0.4*(1+math.Sqrt(0.5)), 0.6, 0.2 + 0.4*(1-math.Sqrt(0.5)), 0.2}},
	}
	for _, tc := range cases {
		for i, w := range tc.want {
			assert.InDelta(t, w, tc.s.at(1, 0.2, i, 5), 1e-12, "%s at %d", tc.s, i)
		}
		assert.Equal(t, 1.0, tc.s.at(1, 0.2, 0, 1), "%s: one iteration keeps the start", tc.s)
	}
}
