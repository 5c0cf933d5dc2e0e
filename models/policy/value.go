package policy

// Value is a learned state value (a baseline for PPO-GAE): linear in the
// features, v(x) = w · x. Like a policy, it may be read by many goroutines
// at once while nobody writes to Params.
type Value struct {
	w []float64
}

// NewValue returns a value with zero weights.
func NewValue() *Value { return &Value{w: make([]float64, NumFeatures)} }

// Params returns the weights (one per feature), aliased: an optimizer
// updates the value by writing into it.
func (v *Value) Params() []float64 { return v.w }

// Clone returns an independent copy.
func (v *Value) Clone() *Value { return &Value{w: append([]float64(nil), v.w...)} }

// Predict returns the value of features x.
func (v *Value) Predict(x *[NumFeatures]float64) float64 { return dot(v.w, x[:]) }

// AddGrad adds scale·∇θ ½(v(x) − target)² to grad and returns v(x). It
// panics if len(grad) differs from len(Params()).
func (v *Value) AddGrad(x *[NumFeatures]float64, target, scale float64, grad []float64) float64 {
	checkGrad(len(grad), len(v.w))
	pred := v.Predict(x)
	d := scale * (pred - target)
	for k, xk := range x {
		grad[k] += float64(d * xk)
	}
	return pred
}
