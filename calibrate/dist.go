package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/swarmsim/swarmsim/sim"
	"github.com/swarmsim/swarmsim/stats"
)

// Family names a fitted distribution family.
type Family string

// The families Fit tries on positive continuous data, and Poisson for
// counts.
const (
	LogNormal Family = "lognormal"
	Gamma     Family = "gamma"
	Mixture   Family = "lognormal-mixture" // two lognormal components
	Poisson   Family = "poisson"
	// Uniform counts are round(U(Lo, Hi)): a spread narrower than
	// Poisson's, as a workflow that makes 3 to 5 calls has.
	Uniform Family = "uniform-rounded"
)

// Dist is one fitted distribution.
type Dist struct {
	Family Family
	// Parameters: lognormal Mu, Sigma (of log x); gamma Shape, Scale;
	// mixture W (weight of the first component), Mu, Sigma, Mu2,
	// Sigma2; poisson Mu (the mean).
	// uniform-rounded Lo, Hi.
	Mu, Sigma, Shape, Scale, W, Mu2, Sigma2, Lo, Hi float64
	// LogLik is the log-likelihood of the data it was fitted to; BIC is
	// k·ln n − 2·LogLik for its k parameters.
	LogLik, BIC float64
	// KS is the Kolmogorov–Smirnov distance between the data's empirical
	// CDF and the fitted CDF.
	KS float64
}

// CDF returns P(X <= x).
func (d Dist) CDF(x float64) float64 {
	switch d.Family {
	case LogNormal:
		return lnCDF(x, d.Mu, d.Sigma)
	case Gamma:
		if x <= 0 {
			return 0
		}
		return mathext.GammaIncReg(d.Shape, x/d.Scale)
	case Mixture:
		return float64(d.W*lnCDF(x, d.Mu, d.Sigma)) + float64((1-d.W)*lnCDF(x, d.Mu2, d.Sigma2))
	case Poisson:
		if x < 0 {
			return 0
		}
		return distuv.Poisson{Lambda: d.Mu}.CDF(math.Floor(x))
	case Uniform:
		if d.Hi == d.Lo {
			return b2f(x >= math.Round(d.Lo))
		}
		return math.Min(math.Max((math.Floor(x)+0.5-d.Lo)/(d.Hi-d.Lo), 0), 1)
	}
	return math.NaN()
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func lnCDF(x, mu, sigma float64) float64 {
	if x <= 0 {
		return 0
	}
	return 0.5 * math.Erfc(-(math.Log(x)-mu)/(sigma*math.Sqrt2))
}

func lnLogPDF(x, mu, sigma float64) float64 {
	z := (math.Log(x) - mu) / sigma
	return float64(-0.5*z*z) - math.Log(x*sigma*math.Sqrt(2*math.Pi))
}

// Mean returns the distribution's mean.
func (d Dist) Mean() float64 {
	switch d.Family {
	case LogNormal:
		return math.Exp(d.Mu + float64(d.Sigma*d.Sigma/2))
	case Gamma:
		return d.Shape * d.Scale
	case Mixture:
		return float64(d.W*math.Exp(d.Mu+float64(d.Sigma*d.Sigma/2))) + float64((1-d.W)*math.Exp(d.Mu2+float64(d.Sigma2*d.Sigma2/2)))
	case Poisson:
		return d.Mu
	case Uniform:
		return roundedMean(d.Lo, d.Hi)
	}
	return math.NaN()
}

// roundedMean returns the mean of round(U(lo, hi)), the integers' weights
// summed: it is (lo+hi)/2 only for whole widths, and a narrower interval
// can round to one integer whatever its centre.
func roundedMean(lo, hi float64) float64 {
	if hi <= lo {
		return math.Round(lo)
	}
	m := 0.0
	for k := math.Round(lo); k <= math.Round(hi); k++ {
		p := (math.Min(k+0.5, hi) - math.Max(k-0.5, lo)) / (hi - lo)
		m += float64(k * max(p, 0))
	}
	return m
}

// Params writes the parameters as "name=value" pairs.
func (d Dist) Params() string {
	g := func(v float64) string { return fmt.Sprintf("%.6g", v) }
	switch d.Family {
	case LogNormal:
		return "mu=" + g(d.Mu) + " sigma=" + g(d.Sigma)
	case Gamma:
		return "shape=" + g(d.Shape) + " scale=" + g(d.Scale)
	case Mixture:
		return fmt.Sprintf("w=%s mu=%s sigma=%s mu2=%s sigma2=%s", g(d.W), g(d.Mu), g(d.Sigma), g(d.Mu2), g(d.Sigma2))
	case Poisson:
		return "mean=" + g(d.Mu)
	case Uniform:
		return "lo=" + g(d.Lo) + " hi=" + g(d.Hi)
	}
	return ""
}

// Sim returns the distribution in the scenario grammar (sim.Dist), and
// false for a Poisson count (whose grammar form is poisson(MEAN)).
func (d Dist) Sim() (sim.Dist, bool) {
	lnMean := func(mu, sigma float64) float64 { return round4(math.Exp(mu + float64(sigma*sigma/2))) }
	lnCV := func(sigma float64) float64 { return round4(math.Sqrt(math.Expm1(sigma * sigma))) }
	switch d.Family {
	case LogNormal:
		return sim.LogNormal(lnMean(d.Mu, d.Sigma), lnCV(d.Sigma)), true
	case Mixture:
		w := round4(d.W)
		if w == 1 {
			// A weight just below 1 (a fit to many calls) rounds to 1,
			// which never draws the second component: a scenario refuses
			// it (sim.ParseDist), so the first is written alone. (Rounding
			// keeps a small weight above 0.)
			return sim.LogNormal(lnMean(d.Mu, d.Sigma), lnCV(d.Sigma)), true
		}
		return sim.LogNormalMixture(lnMean(d.Mu, d.Sigma), lnCV(d.Sigma), lnMean(d.Mu2, d.Sigma2), lnCV(d.Sigma2), w), true
	case Gamma:
		return sim.Gamma(round4(d.Mean()), round4(1/math.Sqrt(d.Shape))), true
	case Uniform:
		return sim.Uniform(round4(d.Lo), round4(d.Hi)), true
	}
	return sim.Dist{}, false
}

// round4 rounds v to 4 significant digits, which is more than a fit from
// tens or hundreds of calls can tell apart and keeps scenarios readable.
func round4(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// Choice is the fits tried on one sample and the one chosen.
type Choice struct {
	Fits   []Dist // in the order tried
	Chosen int    // index into Fits
	Why    string
}

// Best returns the chosen fit.
func (c Choice) Best() Dist { return c.Fits[c.Chosen] }

// BestSim returns the chosen fit of positive data in the scenario grammar.
func (c Choice) BestSim() sim.Dist {
	d, _ := c.Best().Sim()
	return d
}

// minPositive replaces values below it, so that logs stay finite: a span
// of 0 ns happens when a clock ticks coarsely.
const minPositive = 1e-6

// minMixture is the smallest sample a two-component mixture is tried on:
// with five parameters, fewer points would fit noise.
const minMixture = 20

// FitPositive fits lognormal, gamma and, for at least minMixture points, a
// two-component lognormal mixture to xs (values below 1 µs count as
// 1 µs), and chooses by the Bayesian information criterion: heavy tails
// make lognormal or a mixture win where gamma's exponential tail cannot
// follow, and BIC charges the mixture for its three extra parameters.
func FitPositive(xs []float64) (Choice, error) {
	if len(xs) < 2 {
		return Choice{}, fmt.Errorf("%w: %d values, need at least 2", errNoData, len(xs))
	}
	x := make([]float64, len(xs))
	for i, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Choice{}, fmt.Errorf("value %d is %v", i, v)
		}
		x[i] = max(v, minPositive)
	}
	slices.Sort(x)
	fits := []Dist{fitLogNormal(x), fitGamma(x)}
	if len(x) >= minMixture {
		if m, ok := fitMixture(x); ok {
			fits = append(fits, m)
		}
	}
	n := float64(len(x))
	k := map[Family]float64{LogNormal: 2, Gamma: 2, Mixture: 5}
	best := 0
	for i := range fits {
		fits[i].BIC = float64(k[fits[i].Family]*math.Log(n)) - float64(2*fits[i].LogLik)
		fits[i].KS = stats.KSDistance(x, fits[i].CDF)
		if fits[i].BIC < fits[best].BIC {
			best = i
		}
	}
	var parts []string
	for _, f := range fits {
		parts = append(parts, fmt.Sprintf("%s %.4g", f.Family, f.BIC))
	}
	why := fmt.Sprintf("lowest BIC (%s)", strings.Join(parts, ", "))
	return Choice{Fits: fits, Chosen: best, Why: why}, nil
}

// FitCount fits the count per part when each of ns is the sum of per
// parts' counts: per = 1 fits Poisson (by its mean) and rounded-uniform
// (by its mean and variance) distributions and chooses the one with the
// smaller Kolmogorov–Smirnov distance (both have two or fewer parameters,
// and a uniform has no likelihood outside its range); per > 1 fits a
// Poisson per part, whose sum over the parts is Poisson too, and its KS
// distance is that of the sums against ns.
func FitCount(ns []int, per int) (Choice, error) {
	if len(ns) == 0 {
		return Choice{}, errNoData
	}
	if per < 1 {
		return Choice{}, fmt.Errorf("%d parts per count, need at least 1", per)
	}
	x := make([]float64, len(ns))
	for i, n := range ns {
		if n < 0 {
			return Choice{}, fmt.Errorf("count %d is negative (%d)", i, n)
		}
		x[i] = float64(n)
	}
	slices.Sort(x)
	m, sd := meanSD(x)
	p := Dist{Family: Poisson, Mu: m / float64(per)}
	sum := Dist{Family: Poisson, Mu: m}
	pp := distuv.Poisson{Lambda: m}
	for _, v := range x {
		p.LogLik += pp.LogProb(v)
	}
	p.KS = stats.KSDistance(x, sum.CDF)
	if per > 1 {
		why := fmt.Sprintf("Poisson per part, so that %d parts sum to the counts' mean; KS of the sums %.3g", per, p.KS)
		return Choice{Fits: []Dist{p}, Why: why}, nil
	}
	// round(U(lo, hi)) has variance ≈ (hi−lo)²/12 + 1/12, but only from a
	// width of 1: narrower, it can round to one integer whatever the data
	// (U(2.92, 3.29) for 3 calls and 4 in a tenth of runs always makes 3),
	// while at width 1 its mean is the centre's and its variance that of
	// counts on two neighbouring integers.
	half := max(float64(math.Sqrt(max(float64(12*sd*sd)-1, 0))/2), 0.5)
	if x[len(x)-1]-x[0] <= 1 {
		// Counts on two neighbouring integers k and k+1, a share q on the
		// upper: U(k+q−½, k+q+½), width 1 about the mean, rounds to k+1
		// with probability q exactly, where the moment fit widens past 1
		// once q(1−q) > 1/6 (a split nearer even than 21:79).
		half = 0.5
	}
	lo, hi := max(m-half, 0), m+half
	if x[len(x)-1] <= 1 && m < 0.5 {
		// 0 or 1, a share q = m < ½ on 1: the window cannot start below
		// 0, and U(0, ½/(1−q)) rounds to 1 with probability q.
		lo, hi = 0, 0.5/(1-m)
	}
	u := Dist{Family: Uniform, Lo: lo, Hi: hi}
	u.KS = stats.KSDistance(x, u.CDF)
	fits := []Dist{p, u}
	best := 0
	if u.KS < p.KS {
		best = 1
	}
	why := fmt.Sprintf("smaller KS distance (poisson %.3g, uniform-rounded %.3g)", p.KS, u.KS)
	return Choice{Fits: fits, Chosen: best, Why: why}, nil
}

func fitLogNormal(x []float64) Dist {
	mu, sigma := logMoments(x)
	d := Dist{Family: LogNormal, Mu: mu, Sigma: sigma}
	for _, v := range x {
		d.LogLik += lnLogPDF(v, mu, sigma)
	}
	return d
}

// logMoments returns the mean and (maximum-likelihood) standard deviation
// of log x; the deviation is at least 1e-3, so that equal values still fit.
func logMoments(x []float64) (mu, sigma float64) {
	for _, v := range x {
		mu += math.Log(v)
	}
	mu /= float64(len(x))
	for _, v := range x {
		d := math.Log(v) - mu
		sigma += float64(d * d)
	}
	return mu, max(math.Sqrt(sigma/float64(len(x))), 1e-3)
}

// fitGamma finds the maximum-likelihood shape k from s = ln(mean) −
// mean(ln x) (Minka's starting point, then Newton on ln k − ψ(k) = s).
func fitGamma(x []float64) Dist {
	mean, meanLog := 0.0, 0.0
	for _, v := range x {
		mean += v
		meanLog += math.Log(v)
	}
	n := float64(len(x))
	mean /= n
	meanLog /= n
	s := max(math.Log(mean)-meanLog, 1e-9)
	k := (3 - s + math.Sqrt(float64((s-3)*(s-3))+float64(24*s))) / (12 * s)
	for range 20 {
		f := math.Log(k) - mathext.Digamma(k) - s
		h := float64(1e-6 * k)
		fp := 1/k - (mathext.Digamma(k+h)-mathext.Digamma(k-h))/(2*h)
		next := k - f/fp
		if !(next > 0) {
			next = k / 2
		}
		if math.Abs(next-k) < 1e-10*k {
			k = next
			break
		}
		k = next
	}
	d := Dist{Family: Gamma, Shape: k, Scale: mean / k}
	g := distuv.Gamma{Alpha: k, Beta: 1 / d.Scale}
	for _, v := range x {
		d.LogLik += g.LogProb(v)
	}
	return d
}

// fitMixture fits two normal components to log x by expectation
// maximisation, started from the lower and upper halves of the sorted
// data. It reports false when a component collapses.
func fitMixture(x []float64) (Dist, bool) {
	n := len(x)
	y := make([]float64, n)
	for i, v := range x {
		y[i] = math.Log(v)
	}
	h := n / 2
	m1, s1 := meanSD(y[:h])
	m2, s2 := meanSD(y[h:])
	w := 0.5
	resp := make([]float64, n)
	prev := math.Inf(-1)
	ll := 0.0
	for range 500 {
		ll = 0
		for i, v := range y {
			a := float64(w * normPDF(v, m1, s1))
			b := float64((1 - w) * normPDF(v, m2, s2))
			resp[i] = a / (a + b)
			if a+b == 0 {
				resp[i] = 0.5
			}
			ll += math.Log(a + b)
		}
		var r, sy1, sy2 float64
		for i, v := range y {
			r += resp[i]
			sy1 += float64(resp[i] * v)
			sy2 += float64((1 - resp[i]) * v)
		}
		if r < 2 || float64(n)-r < 2 {
			return Dist{}, false
		}
		m1, m2 = sy1/r, sy2/(float64(n)-r)
		var v1, v2 float64
		for i, v := range y {
			v1 += float64(resp[i] * (v - m1) * (v - m1))
			v2 += float64((1 - resp[i]) * (v - m2) * (v - m2))
		}
		s1 = max(math.Sqrt(v1/r), 1e-3)
		s2 = max(math.Sqrt(v2/(float64(n)-r)), 1e-3)
		w = r / float64(n)
		if math.Abs(ll-prev) < float64(1e-10*math.Abs(ll))+1e-12 {
			break
		}
		prev = ll
	}
	if m1 > m2 { // the first component is the faster one
		m1, m2, s1, s2, w = m2, m1, s2, s1, 1-w
	}
	d := Dist{Family: Mixture, W: w, Mu: m1, Sigma: s1, Mu2: m2, Sigma2: s2}
	for _, v := range x {
		d.LogLik += math.Log(float64(w*math.Exp(lnLogPDF(v, m1, s1))) + float64((1-w)*math.Exp(lnLogPDF(v, m2, s2))))
	}
	return d, !math.IsNaN(d.LogLik) && !math.IsInf(d.LogLik, 0)
}

func meanSD(y []float64) (float64, float64) {
	m := 0.0
	for _, v := range y {
		m += v
	}
	m /= float64(len(y))
	s := 0.0
	for _, v := range y {
		s += float64((v - m) * (v - m))
	}
	return m, max(math.Sqrt(s/float64(len(y))), 1e-3)
}

func normPDF(v, m, s float64) float64 {
	z := (v - m) / s
	return math.Exp(-0.5*z*z) / (s * math.Sqrt(2*math.Pi))
}

// Line is a least-squares fit y = Intercept + Slope·x with its R².
type Line struct {
	Intercept, Slope, R2 float64
	N                    int
}

// FitLine fits y against x by ordinary least squares.
func FitLine(x, y []float64) Line {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxx, sxy, syy float64
	for i := range x {
		sxx += float64((x[i] - mx) * (x[i] - mx))
		sxy += float64((x[i] - mx) * (y[i] - my))
		syy += float64((y[i] - my) * (y[i] - my))
	}
	l := Line{N: len(x)}
	if sxx == 0 || syy == 0 {
		l.Intercept = my
		return l
	}
	l.Slope = sxy / sxx
	l.Intercept = my - float64(l.Slope*mx)
	l.R2 = sxy * sxy / (sxx * syy)
	return l
}
