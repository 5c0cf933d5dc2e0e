package sim

import "math/rand/v2"

// Sampler draws from a Dist with the constants of its draws worked out
// once: for a distribution sampled on every event (a latency drawn per
// call), a log-normal's logarithm and square root are paid when the
// Sampler is made instead of on every draw. Its draws are bit for bit
// those of Dist.Sample given the same state of r. The zero Sampler draws
// the constant 0, like the zero Dist.
type Sampler struct {
	d  Dist
	ln [2]logNormalDraw // a log-normal's draw, or a mixture's two
}

// Sampler returns the sampler of d.
func (d Dist) Sampler() Sampler {
	s := Sampler{d: d}
	switch d.kind {
	case kindLogNormal:
		s.ln[0] = newLogNormalDraw(d.a, d.b)
	case kindMixture:
		s.ln[0], s.ln[1] = newLogNormalDraw(d.a, d.b), newLogNormalDraw(d.a2, d.b2)
	}
	return s
}

// Dist returns the distribution s draws from.
func (s *Sampler) Dist() Dist { return s.d }

// Sample is Dist.Sample.
func (s *Sampler) Sample(r *rand.Rand) float64 {
	switch s.d.kind {
	case kindLogNormal:
		return s.ln[0].sample(r)
	case kindMixture:
		if r.Float64() < s.d.w {
			return s.ln[0].sample(r)
		}
		return s.ln[1].sample(r)
	}
	return s.d.Sample(r)
}
