package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Dist is a probability distribution over non-negative float64 values:
// seconds for durations, plain numbers otherwise. The zero Dist is the
// constant 0. Dist is a small comparable value type, safe to copy; two Dists
// are equal (==) exactly when they have the same kind and parameters.
//
// A Dist is written as text in scenario files; see ParseDist for the grammar.
// Every Dist obtained from a constructor or from ParseDist is valid: its
// parameters are finite, non-negative and at most 1e15.
type Dist struct {
	kind   distKind
	a, b   float64 // parameters; their meaning depends on kind (see distSpecs)
	a2, b2 float64 // a mixture's second component (mean, cv)
	w      float64 // a mixture's weight of the first component
}

type distKind uint8

const (
	kindConst     distKind = iota // a = value
	kindExp                       // a = mean
	kindUniform                   // a = lo, b = hi
	kindLogNormal                 // a = mean, b = cv
	kindGamma                     // a = mean, b = cv
	kindNormal                    // a = mean, b = sd (of the normal before truncation)
	kindPoisson                   // a = mean; integer values
	kindMixture                   // two log-normals: a, b the first's mean and cv, a2, b2 the second's, w the first's weight
)

// distSpec describes one kind of distribution for the parser and printer.
type distSpec struct {
	name  string
	args  []string // parameter names, in positional order
	named bool     // String writes the arguments with their names
}

var distSpecs = [...]distSpec{
	kindConst:     {name: "const", args: []string{"value"}},
	kindExp:       {name: "exp", args: []string{"mean"}},
	kindUniform:   {name: "uniform", args: []string{"lo", "hi"}},
	kindLogNormal: {name: "lognormal", args: []string{"mean", "cv"}, named: true},
	kindGamma:     {name: "gamma", args: []string{"mean", "cv"}, named: true},
	kindNormal:    {name: "normal", args: []string{"mean", "sd"}, named: true},
	kindPoisson:   {name: "poisson", args: []string{"mean"}},
	kindMixture:   {name: "lognormal2", args: []string{"mean", "cv", "mean2", "cv2", "w"}, named: true},
}

// maxDistParam bounds every parameter, so that samples stay finite.
const maxDistParam = 1e15

// ErrBadDist is wrapped by the errors of ParseDist and UnmarshalText.
var ErrBadDist = errors.New("invalid distribution")

// newDist checks the parameters of a distribution of the given kind and
// returns it. It is the single place where validity is decided.
func newDist(k distKind, params ...float64) (Dist, error) {
	spec := distSpecs[k]
	// A constant is written as a bare value: its kind's name would be
	// jargon the text never showed.
	prefix := spec.name + ": "
	if k == kindConst {
		prefix = ""
	}
	for i, v := range params {
		name := spec.args[i]
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return Dist{}, fmt.Errorf("%s%s (%v) must be finite", prefix, name, v)
		case v < 0:
			return Dist{}, fmt.Errorf("%snegative %s (%s); values must be non-negative", prefix, name, formatFloat(v))
		case v > maxDistParam:
			return Dist{}, fmt.Errorf("%s%s (%s) exceeds the limit %g", prefix, name, formatFloat(v), float64(maxDistParam))
		}
		if v == 0 {
			params[i] = 0 // turn -0 into +0, so that == and String agree
		}
	}
	d := Dist{kind: k, a: params[0]}
	if len(params) > 1 {
		d.b = params[1]
	}
	if k == kindMixture {
		d.a2, d.b2, d.w = params[2], params[3], params[4]
		if d.w > 1 {
			return Dist{}, fmt.Errorf("lognormal2: w (%s) is the first component's weight, at most 1", formatFloat(d.w))
		}
	}
	if k == kindUniform && d.a > d.b {
		return Dist{}, fmt.Errorf("uniform: lo (%s) must not exceed hi (%s)", formatFloat(d.a), formatFloat(d.b))
	}
	return d, nil
}

func mustDist(k distKind, params ...float64) Dist {
	d, err := newDist(k, params...)
	if err != nil {
		panic("sim: " + err.Error())
	}
	return d
}

// Const returns the distribution that always yields v.
// It panics if v is negative, NaN, infinite or above 1e15.
func Const(v float64) Dist { return mustDist(kindConst, v) }

// Exponential returns the exponential distribution with the given mean.
// It panics if mean is negative, NaN, infinite or above 1e15.
func Exponential(mean float64) Dist { return mustDist(kindExp, mean) }

// Uniform returns the continuous uniform distribution on [lo, hi).
// It panics if lo > hi or either bound is negative, NaN, infinite or above 1e15.
func Uniform(lo, hi float64) Dist { return mustDist(kindUniform, lo, hi) }

// LogNormal returns the log-normal distribution with the given mean and
// coefficient of variation cv (standard deviation divided by mean).
// It panics if a parameter is negative, NaN, infinite or above 1e15.
func LogNormal(mean, cv float64) Dist { return mustDist(kindLogNormal, mean, cv) }

// LogNormalMixture returns the mixture that draws from LogNormal(mean, cv)
// with probability w and from LogNormal(mean2, cv2) otherwise: a latency
// with a body and a separate heavy tail (calls that were retried or
// queued), which one log-normal cannot follow. It panics if w is outside
// [0, 1] or a parameter is negative, NaN, infinite or above 1e15.
func LogNormalMixture(mean, cv, mean2, cv2, w float64) Dist {
	return mustDist(kindMixture, mean, cv, mean2, cv2, w)
}

// Gamma returns the gamma distribution with the given mean and coefficient
// of variation cv (shape 1/cv², scale mean·cv²); cv = 1 is the exponential.
// It panics if a parameter is negative, NaN, infinite or above 1e15.
func Gamma(mean, cv float64) Dist { return mustDist(kindGamma, mean, cv) }

// TruncNormal returns the normal distribution with location mean and standard
// deviation sd, truncated at 0: draws below 0 are rejected and redrawn (not
// clamped), so no mass piles up at 0. Because mean must be non-negative, at
// least half of the draws are accepted. Mean reports the mean of the
// truncated distribution, which exceeds the mean parameter when sd > 0.
// It panics if a parameter is negative, NaN, infinite or above 1e15.
func TruncNormal(mean, sd float64) Dist { return mustDist(kindNormal, mean, sd) }

// Poisson returns the Poisson distribution of the given mean: counts such
// as tool calls per attempt. Its values are whole numbers.
// It panics if mean is negative, NaN, infinite or above 1e15.
func Poisson(mean float64) Dist { return mustDist(kindPoisson, mean) }

// MustParseDist is like ParseDist but panics if s cannot be parsed.
// It is meant for tests, examples and package-level variables.
func MustParseDist(s string) Dist {
	d, err := ParseDist(s)
	if err != nil {
		panic("sim: " + err.Error())
	}
	return d
}

// ParseDist parses the text form of a distribution. The grammar is
// case-sensitive and tolerates white space around every token:
//
//	0.3, 5m, 90s, 1h30m             a constant (a bare number or a duration)
//	const(X)                        a constant
//	exp(MEAN)                       exponential
//	uniform(LO, HI)                 uniform on [LO, HI)
//	lognormal(mean=M, cv=C)         log-normal by mean and coefficient of variation
//	gamma(mean=M, cv=C)             gamma by mean and coefficient of variation
//	normal(mean=M, sd=S)            normal truncated at 0 (see TruncNormal)
//	poisson(MEAN)                   Poisson: whole numbers (counts)
//	lognormal2(mean=M, cv=C, mean2=M2, cv2=C2, w=W)
//	                                a mixture of two log-normals: with
//	                                probability W the first, else the second
//	                                (a heavy tail of retried or queued calls)
//
// Arguments may be positional, in the order shown, or named (value=, mean=,
// cv=, sd=, lo=, hi=); positional arguments come before named ones. Every
// value is a number or a duration such as 90s, 12m or 1h30m; durations are
// converted to seconds. Values must be finite, non-negative and at most 1e15.
// The errors wrap ErrBadDist and say what is allowed.
func ParseDist(s string) (Dist, error) {
	d, err := parseDist(s)
	if err != nil {
		return Dist{}, fmt.Errorf("%w %q: %w", ErrBadDist, s, err)
	}
	return d, nil
}

func parseDist(s string) (Dist, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if s == "" {
			return Dist{}, errors.New("empty (want a number, a duration such as 90s, or a form such as exp(5m))")
		}
		if _, err := strconv.ParseFloat(s, 64); err != nil && isIdent(s) {
			// A word that is not a number ("Inf" and "NaN" are numbers): a misspelt or bare kind.
			if _, ok := lookupKind(s); ok {
				return Dist{}, fmt.Errorf("%s needs arguments in parentheses, as in %s", s, exampleOf(s))
			}
			return Dist{}, unknownKindError(s)
		}
		v, err := parseDistValue(s)
		if err != nil {
			return Dist{}, err
		}
		return newDist(kindConst, v)
	}

	name := strings.TrimSpace(s[:open])
	k, ok := lookupKind(name)
	if !ok {
		return Dist{}, unknownKindError(name)
	}
	spec := distSpecs[k]
	if !strings.HasSuffix(s, ")") {
		return Dist{}, fmt.Errorf("%s: missing closing parenthesis", name)
	}
	inner := s[open+1 : len(s)-1]

	params := make([]float64, len(spec.args))
	set := make([]bool, len(spec.args))
	if strings.TrimSpace(inner) != "" {
		sawNamed := false
		for i, arg := range strings.Split(inner, ",") {
			arg = strings.TrimSpace(arg)
			if arg == "" {
				return Dist{}, fmt.Errorf("%s: empty argument %d (want %s)", name, i+1, spec.usage())
			}
			idx := i
			if key, val, isNamed := strings.Cut(arg, "="); isNamed {
				key = strings.TrimSpace(key)
				idx = spec.argIndex(key)
				if idx < 0 {
					return Dist{}, fmt.Errorf("%s: unknown argument %q (allowed: %s)", name, key, strings.Join(spec.args, ", "))
				}
				arg = strings.TrimSpace(val)
				sawNamed = true
			} else if sawNamed {
				return Dist{}, fmt.Errorf("%s: positional argument %q after a named one (want %s)", name, arg, spec.usage())
			} else if idx >= len(spec.args) {
				return Dist{}, fmt.Errorf("%s: too many arguments (want %s)", name, spec.usage())
			}
			if set[idx] {
				return Dist{}, fmt.Errorf("%s: argument %q given twice", name, spec.args[idx])
			}
			v, err := parseDistValue(arg)
			if err != nil {
				return Dist{}, fmt.Errorf("%s: %s: %w", name, spec.args[idx], err)
			}
			params[idx], set[idx] = v, true
		}
	}
	for i, ok := range set {
		if !ok {
			return Dist{}, fmt.Errorf("%s: missing argument %q (want %s)", name, spec.args[i], spec.usage())
		}
	}
	if k == kindMixture {
		// A weight of 0 or 1 never draws one of the two components, whose
		// parameters the text then gives for nothing (LogNormalMixture
		// still takes them, as a fit's weight may end there).
		switch params[4] {
		case 0:
			return Dist{}, fmt.Errorf("%s: w 0 never draws the first component (mean, cv): give w above 0, or lognormal(mean=M2, cv=C2) for the second alone", name)
		case 1:
			return Dist{}, fmt.Errorf("%s: w 1 never draws the second component (mean2, cv2): give w below 1, or lognormal(mean=M, cv=C) for the first alone", name)
		}
	}
	return newDist(k, params...)
}

// parseDistValue parses a number or a duration (converted to seconds).
func parseDistValue(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("empty value (want a number such as 0.3 or a duration such as 90s)")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("value %q must be finite", s)
		}
		return v, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("value %q is out of range", s)
	}
	t, terr := ParseTime(s)
	if terr != nil {
		return 0, fmt.Errorf("invalid value %q (want a number such as 0.3 or a duration such as 90s)", s)
	}
	return t.Seconds(), nil
}

func lookupKind(name string) (distKind, bool) {
	for k, spec := range distSpecs {
		if spec.name == name {
			return distKind(k), true
		}
	}
	return 0, false
}

// DistNames returns the names of the distributions that ParseDist reads,
// such as "exp" and "lognormal2".
func DistNames() []string {
	names := make([]string, len(distSpecs))
	for k, spec := range distSpecs {
		names[k] = spec.name
	}
	return names
}

func unknownKindError(name string) error { return &UnknownDistError{Name: name} }

// An UnknownDistError is the error of a distribution whose name ParseDist
// does not know; a caller may suggest the nearest of DistNames.
type UnknownDistError struct{ Name string }

func (e *UnknownDistError) Error() string {
	return fmt.Sprintf("unknown distribution %q (allowed: %s, or a bare number or duration)", e.Name, strings.Join(DistNames(), ", "))
}

func exampleOf(name string) string {
	k, _ := lookupKind(name)
	return distSpecs[k].name + "(" + distSpecs[k].usage() + ")"
}

// isIdent reports whether s looks like a name (letters only), not a value.
func isIdent(s string) bool {
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return s != ""
}

func (spec distSpec) argIndex(key string) int {
	for i, a := range spec.args {
		if a == key {
			return i
		}
	}
	return -1
}

func (spec distSpec) usage() string {
	parts := make([]string, len(spec.args))
	for i, a := range spec.args {
		parts[i] = a + "=" + strings.ToUpper(a[:1])
	}
	return strings.Join(parts, ", ")
}

// formatFloat writes v in the shortest form that parses back to v exactly.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// String returns the canonical text of d, which ParseDist reads back to a Dist
// equal to d. Values are written in seconds (or plain numbers) in the shortest
// exact form: Const(300) is "300", LogNormal(300, 0.5) is
// "lognormal(mean=300, cv=0.5)".
func (d Dist) String() string {
	if d.kind == kindConst {
		return formatFloat(d.a)
	}
	spec := distSpecs[d.kind]
	var sb strings.Builder
	sb.WriteString(spec.name)
	sb.WriteByte('(')
	params := [5]float64{d.a, d.b, d.a2, d.b2, d.w}
	for i, v := range params[:len(spec.args)] {
		if i > 0 {
			sb.WriteString(", ")
		}
		if spec.named {
			sb.WriteString(spec.args[i])
			sb.WriteByte('=')
		}
		sb.WriteString(formatFloat(v))
	}
	sb.WriteByte(')')
	return sb.String()
}

// MarshalText returns the String form of d.
func (d Dist) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses text written as for ParseDist. On error d is unchanged.
func (d *Dist) UnmarshalText(text []byte) error {
	v, err := ParseDist(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// IsZero reports whether d is the zero Dist, the constant 0.
func (d Dist) IsZero() bool { return d == Dist{} }

// Mean returns the expected value of d. For TruncNormal it is the mean of the
// distribution truncated at 0, not the location parameter.
func (d Dist) Mean() float64 {
	switch d.kind {
	case kindUniform:
		return (d.a + d.b) / 2
	case kindNormal:
		if d.b == 0 {
			return d.a
		}
		// Mean of a normal truncated below at 0: mu + sigma·φ(α)/(1−Φ(α)), α = −mu/sigma.
		alpha := -d.a / d.b
		return d.a + d.b*distuv.UnitNormal.Prob(alpha)/distuv.UnitNormal.Survival(alpha)
	case kindMixture:
		return float64(d.w*d.a) + float64((1-d.w)*d.a2)
	default: // const, exp, lognormal, gamma, poisson: a is the mean
		return d.a
	}
}

// Support returns the smallest and largest values d can draw: lo = hi for
// a constant or a degenerate distribution, hi = +Inf for an unbounded one.
// A value's allowed range is checked against it, so that a distribution
// cannot draw what a constant would not be allowed to be.
func (d Dist) Support() (lo, hi float64) {
	switch d.kind {
	case kindConst:
		return d.a, d.a
	case kindUniform:
		return d.a, d.b
	case kindExp, kindPoisson:
		if d.a == 0 {
			return 0, 0
		}
	case kindLogNormal, kindGamma:
		if d.a == 0 || d.b == 0 {
			return d.a, d.a
		}
	case kindNormal:
		if d.b == 0 {
			return d.a, d.a
		}
	}
	return 0, math.Inf(1)
}

// Sample draws one value from d using r, never the global generator; the
// result is finite and non-negative. Given the state of r the result is
// deterministic. Constants and degenerate distributions (zero mean, zero cv
// or zero sd) return their value without drawing from r. Sampling a gamma
// distribution allocates a little (gonum's distuv wraps r in a new rand.Rand
// on every draw); the others allocate nothing.
func (d Dist) Sample(r *rand.Rand) float64 {
	switch d.kind {
	case kindConst:
		return d.a
	case kindExp:
		return r.ExpFloat64() * d.a
	case kindUniform:
		if d.a == d.b {
			return d.a
		}
		return d.a + float64((d.b-d.a)*r.Float64())
	case kindLogNormal:
		return logNormal(r, d.a, d.b)
	case kindMixture:
		if r.Float64() < d.w {
			return logNormal(r, d.a, d.b)
		}
		return logNormal(r, d.a2, d.b2)
	case kindGamma:
		shape := 1 / (d.b * d.b)
		if d.a == 0 || shape > 1e300 {
			// cv is 0 or below 1e-150, far under float64 resolution: a point
			// mass (and a larger shape could overflow the sampler).
			return d.a
		}
		// Draw with unit rate and scale afterwards, so that a tiny mean cannot
		// overflow the rate: X = G(shape, 1)·mean/shape.
		g := distuv.Gamma{Alpha: shape, Beta: 1, Src: r}
		return g.Rand() / shape * d.a
	case kindNormal:
		if d.b == 0 {
			return d.a
		}
		for {
			if x := d.a + float64(d.b*r.NormFloat64()); x >= 0 {
				return x
			}
		}
	case kindPoisson:
		return poisson(r, d.a)
	}
	panic("sim: invalid Dist kind") // unreachable: kind is unexported
}

// logNormal draws from the log-normal distribution with the given mean and
// cv: the draw distuv.LogNormal makes, without the rand.Rand it allocates
// around r on every call.
func logNormal(r *rand.Rand, mean, cv float64) float64 {
	l := newLogNormalDraw(mean, cv)
	return l.sample(r)
}

// logNormalDraw is a log-normal distribution's draw with its constants
// worked out: a point mass (zero mean or cv) draws nothing from r.
type logNormalDraw struct {
	mean, mu, sigma float64
	point           bool
}

func newLogNormalDraw(mean, cv float64) logNormalDraw {
	if mean == 0 || cv == 0 {
		return logNormalDraw{mean: mean, point: true}
	}
	// mean = exp(mu + sigma²/2), cv² = exp(sigma²) − 1.
	s2 := math.Log1p(cv * cv)
	return logNormalDraw{mean: mean, mu: math.Log(mean) - float64(s2/2), sigma: math.Sqrt(s2)}
}

func (l *logNormalDraw) sample(r *rand.Rand) float64 {
	if l.point {
		return l.mean
	}
	return math.Exp(float64(r.NormFloat64()*l.sigma) + l.mu)
}

// Scale returns the distribution of k·X where X is distributed as d: means,
// bounds and standard deviations are multiplied by k, coefficients of
// variation are kept. A Poisson distribution stays Poisson, with k times
// the mean: the count over an interval k times as long. It is used to calibrate amounts of work. Scale panics
// if k is not positive and finite or if a scaled parameter would exceed 1e15.
func (d Dist) Scale(k float64) Dist {
	if !(k > 0) || math.IsInf(k, 1) {
		panic(fmt.Sprintf("sim: Dist.Scale: factor %v must be positive and finite", k))
	}
	switch d.kind {
	case kindConst, kindExp:
		return mustDist(d.kind, d.a*k)
	case kindPoisson:
		// k·X is not a count; the count over a k times longer interval is.
		return mustDist(d.kind, d.a*k)
	case kindUniform, kindNormal:
		return mustDist(d.kind, d.a*k, d.b*k)
	case kindMixture:
		return mustDist(d.kind, d.a*k, d.b, d.a2*k, d.b2, d.w)
	default: // lognormal, gamma: (mean, cv)
		return mustDist(d.kind, d.a*k, d.b)
	}
}

// poissonSmall is the mean below which poisson multiplies uniforms (cost
// proportional to the mean) instead of rejecting (constant cost).
const poissonSmall = 10

// poisson draws a Poisson count of mean lambda from r without allocating:
// Knuth's product of uniforms for small means, and Hörmann's transformed
// rejection with squeeze (PTRS, 1993) for the rest.
func poisson(r *rand.Rand, lambda float64) float64 {
	if lambda == 0 {
		return 0
	}
	if lambda < poissonSmall {
		limit := math.Exp(-lambda)
		k, p := 0.0, r.Float64()
		for p > limit {
			k++
			p *= r.Float64()
		}
		return k
	}
	slam, loglam := math.Sqrt(lambda), math.Log(lambda)
	b := 0.931 + float64(2.53*slam)
	a := -0.059 + float64(0.02483*b)
	invAlpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := float64(r.Float64()) - 0.5
		v := r.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor(float64((float64(2*a/us)+b)*u) + lambda + 0.43)
		if us >= 0.07 && v <= vr {
			return k
		}
		if k < 0 || us < 0.013 && v > us {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v)+math.Log(invAlpha)-math.Log(float64(a/(us*us))+b) <= -lambda+float64(k*loglam)-lg {
			return k
		}
	}
}
