package experiments

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/sweep"
	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// scalingDir, when set, makes TestScaling read the trials of a finished
// exp-scaling sweep (simulate sweep exp-scaling --out DIR) instead of
// running its own: the figures docs/experiments.md reports come from the
// sweep on seeds 1..10 through the same analysis and claims.
var scalingDir = flag.String("scaling.dir", "", "read exp-scaling's trials from this sweep directory instead of running them")

// The axes of exp-scaling and the values the analysis singles out.
const (
	kindPath     = "task.kind"
	orgPath      = "policy.organization"
	agentsPath   = "collective.agents"
	strengthPath = "collective.strength"

	single        = "single"
	independent   = "independent"
	centralized   = "centralized"
	decentralized = "decentralized"
	hybrid        = "hybrid"
	// paperTeam is the team size of Kim et al.'s per-benchmark figures
	// (three agents, with an orchestrator where there is one).
	paperTeam = 3
)

// The metrics the analysis reads.
const (
	successMetric = "success_rate"
	turnsMetric   = "turns_mean"
	densityMetric = "message_density"
)

// A scalingPoint is a configuration of exp-scaling: a grid point without
// its seed.
type scalingPoint struct {
	kind, org string
	agents    int
	strength  float64
}

// scalingRuns holds exp-scaling's trial metrics by point and seed.
type scalingRuns struct {
	at    map[scalingPoint]map[uint64]map[string]float64
	seeds []uint64
}

// add records one trial from its swept parameters.
func (r *scalingRuns) add(t *testing.T, params []scenarios.Param, seed uint64, metrics map[string]float64) {
	t.Helper()
	var p scalingPoint
	for _, prm := range params {
		var err error
		switch prm.Path {
		case kindPath:
			p.kind = prm.Value
		case orgPath:
			p.org = prm.Value
		case agentsPath:
			p.agents, err = strconv.Atoi(prm.Value)
		case strengthPath:
			p.strength, err = strconv.ParseFloat(prm.Value, 64)
		}
		require.NoError(t, err, "%s = %s", prm.Path, prm.Value)
	}
	if p.org == single {
		// Single uses one agent whatever collective.agents says: its
		// trials at every size are the same episodes, one reference.
		p.agents = 1
		if prev, ok := r.at[p][seed]; ok {
			require.Equal(t, prev, metrics, "single at %s, seed %d: the same episodes at every team size", p.kind, seed)
		}
	}
	if r.at == nil {
		r.at = map[scalingPoint]map[uint64]map[string]float64{}
	}
	if r.at[p] == nil {
		r.at[p] = map[uint64]map[string]float64{}
	}
	r.at[p][seed] = metrics
	if !slices.Contains(r.seeds, seed) {
		r.seeds = append(r.seeds, seed)
		slices.Sort(r.seeds)
	}
}

// points returns the multi-agent points (not single) that keep selects,
// in a fixed order.
func (r *scalingRuns) points(keep func(scalingPoint) bool) []scalingPoint {
	var ps []scalingPoint
	for p := range r.at {
		if p.org != single && keep(p) {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b scalingPoint) int {
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a.org, b.org); c != 0 {
			return c
		}
		if a.agents != b.agents {
			return a.agents - b.agents
		}
		return cmp.Compare(a.strength, b.strength)
	})
	return ps
}

// reference returns the single agent's point for p's kind and strength
// (at n = 1, its own team size: see add).
func reference(p scalingPoint) scalingPoint {
	return scalingPoint{kind: p.kind, org: single, agents: 1, strength: p.strength}
}

// value returns metric m at point p for seed s (NaN if absent).
func (r *scalingRuns) value(p scalingPoint, s uint64, m string) float64 {
	if v, ok := r.at[p][s][m]; ok {
		return v
	}
	return math.NaN()
}

// gain returns the multi-agent gain at p for seed s: its success rate
// minus the single agent's at the same kind, strength and seed (the same
// task draws). The sign is the paper's relative change's sign; the
// difference stays finite where the single agent never succeeds.
func (r *scalingRuns) gain(p scalingPoint, s uint64) float64 {
	return r.value(p, s, successMetric) - r.value(reference(p), s, successMetric)
}

// mean returns the mean of f over the points ps and the seeds idx (by
// index into r.seeds), leaving out values that are not finite.
func (r *scalingRuns) mean(ps []scalingPoint, idx []int, f func(scalingPoint, uint64) float64) float64 {
	var xs []float64
	for _, i := range idx {
		for _, p := range ps {
			xs = append(xs, f(p, r.seeds[i]))
		}
	}
	return stats.Mean(stats.Finite(xs))
}

// perSeed returns, for each seed, the mean of f over the points ps.
func (r *scalingRuns) perSeed(ps []scalingPoint, f func(scalingPoint, uint64) float64) []float64 {
	var out []float64
	for i := range r.seeds {
		out = append(out, r.mean(ps, []int{i}, f))
	}
	return out
}

// over returns stat over every seed with its 95% bootstrap interval over
// seeds (every point of a seed resampled with it).
func (r *scalingRuns) over(stat func(idx []int) float64) stats.Interval {
	return stats.Default.Units(len(r.seeds), stat)
}

// metric returns a function of (point, seed) reading metric m.
func (r *scalingRuns) metric(m string) func(scalingPoint, uint64) float64 {
	return func(p scalingPoint, s uint64) float64 { return r.value(p, s, m) }
}

// ofReference returns a function reading metric m at the single agent's
// point for the same kind and strength.
func (r *scalingRuns) ofReference(m string) func(scalingPoint, uint64) float64 {
	return func(p scalingPoint, s uint64) float64 { return r.value(reference(p), s, m) }
}

// relative returns a relative metric of package metric (its formula of
// the value and the reference's value) of the mean of metric m over the
// points ps against the mean of the single agent's at the same kinds,
// strengths and seeds, with its interval over seeds: the paper's figures
// are of means over configurations, such as the relative gain
// S_MAS/S_SAS − 1 of "+80.9%" (metric.SuccessGain) or the error
// amplification (metric.ErrorAmplification).
func (r *scalingRuns) relative(ps []scalingPoint, m string, formula func(v, ref float64) float64) stats.Interval {
	return r.over(func(idx []int) float64 {
		return formula(r.mean(ps, idx, r.metric(m)), r.mean(ps, idx, r.ofReference(m)))
	})
}

// gainLine fits the gain against the single agent's success rate over
// the points ps and the seeds idx: a least-squares line through every
// point and seed, whose Zero is where the gain changes sign.
func (r *scalingRuns) gainLine(ps []scalingPoint, idx []int) stats.Line {
	var x, y []float64
	for _, i := range idx {
		s := r.seeds[i]
		for _, p := range ps {
			base, g := r.value(reference(p), s, successMetric), r.gain(p, s)
			if !math.IsNaN(base) && !math.IsNaN(g) {
				x, y = append(x, base), append(y, g)
			}
		}
	}
	return stats.LeastSquares(x, y)
}

// turnFit fits turns = a·(n + 0.5)^b over the points ps (single agent
// included when given) and the seeds idx, as the paper fits its turns.
func (r *scalingRuns) turnFit(ps []scalingPoint, idx []int) stats.PowerLaw {
	var x, y []float64
	for _, i := range idx {
		for _, p := range ps {
			if v := r.value(p, r.seeds[i], turnsMetric); !math.IsNaN(v) {
				x, y = append(x, float64(p.agents)+0.5), append(y, v)
			}
		}
	}
	return stats.FitPowerLaw(x, y)
}

// allSeeds returns the indices of every seed.
func (r *scalingRuns) allSeeds() []int {
	idx := make([]int, len(r.seeds))
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// loadScaling returns exp-scaling's trials: those of the sweep directory
// given with -scaling.dir, or else the trials that keep selects, run on
// n seeds from testSeed with the overrides sets.
func loadScaling(t *testing.T, n int, keep func(*scenarios.Trial) bool, sets ...string) *scalingRuns {
	t.Helper()
	r := &scalingRuns{}
	if *scalingDir != "" {
		m, err := sweep.Merge([]string{*scalingDir})
		require.NoError(t, err)
		require.Equal(t, "exp-scaling", m.Plan.Scenario, "%s holds another sweep", *scalingDir)
		require.Empty(t, m.Missing, "%s: trials without a record", *scalingDir)
		for _, rec := range m.Records {
			metrics := map[string]float64{}
			for k, v := range rec.Metrics {
				metrics[k] = float64(v)
			}
			r.add(t, rec.Params, rec.Seed, metrics)
		}
		return r
	}
	sc := load(t, "exp-scaling", sets...)
	trials, metrics := sweepTrials(t, sc, n, keep)
	for i := range trials {
		r.add(t, trials[i].Params, trials[i].Seed, metrics[i])
	}
	return r
}

// fmtIv prints an interval as "v [lo, hi]".
func fmtIv(iv stats.Interval, verb string) string {
	f := "%" + verb
	return fmt.Sprintf(f+" ["+f+", "+f+"]", iv.Value, iv.Lo, iv.Hi)
}

// A signClaim is a claimed sign of the multi-agent gain on one task kind:
// the mean over the named architectures at the paper's team size and the
// given strengths, per seed.
type signClaim struct {
	kind      string
	orgs      []string
	strengths []float64
	sign      float64
}

// paperBase are the strengths whose single-agent success brackets the
// paper's single agent on the benchmark a kind stands for (v2 §4.2:
// Finance-Agent 0.349, PlanCraft 0.568): on seeds 1–10 the single agent
// succeeds 0.15 and 0.51 of the time at them on decomposable work, 0.41
// and 0.75 on sequential work. The paper's per-benchmark signs are
// measured there, not over every base.
var paperBase = []float64{0.1, 0.2}

// signClaims are the per-kind claims, with the paper's figure each stands
// for.
var signClaims = []signClaim{
	// Finance-Agent: centralized +80.8%.
	{"decomposable", []string{centralized}, paperBase, +1},
	// PlanCraft: centralized −50.3%, every architecture −39% to −70%.
	{"sequential", []string{centralized}, paperBase, -1},
	{"sequential", []string{independent, centralized, decentralized, hybrid}, paperBase, -1},
	// As found on seeds 1–10, against the paper: BrowseComp-Plus's
	// decentralized +9.2%.
	{"navigation", []string{decentralized}, paperBase, -1},
}

// TestScaling checks exp-scaling's findings against Kim et al. (2025), by
// Wilcoxon's signed-rank test over 10 seeds, one-sided, α = 0.01 (the
// architectures of one seed share its task draws):
//
//   - the sign of the multi-agent gain on each kind of signClaims: the
//     success rate minus the single agent's at the same strength and
//     seed, averaged per seed over the claim's architectures at three
//     agents and the claim's strengths;
//   - error amplification (metric.ErrorAmplification of the mean success
//     rates per seed) is larger for independent agents than for a
//     centralized team;
//   - capability saturation: a centralized team's gain falls with the
//     single agent's success (each seed's least-squares slope of the gain
//     against it is negative), from positive for a weak single agent (the
//     line at S = 0) to negative for a strong one (at S = 1), so that it
//     crosses zero inside [0, 1];
//   - turns grow sub-linearly with the team: each seed's exponent b of
//     turns = a·(n + 0.5)^b (every architecture, the single agent at
//     n = 1) is below 1, where the paper's is 1.724.
//
// It logs, with 95% bootstrap intervals over seeds, the figures
// docs/experiments.md sets beside the paper's, among them where the gain's
// line crosses zero (the paper's ~45%). The trials are the sweep's at 3
// and 9 agents (the single agent's at 3) and strengths 0.1, 0.2, 0.35, 1
// and 2, with 40 episodes each.
func TestScaling(t *testing.T) {
	t.Parallel()
	episodes := "episodes=40"
	if race.Enabled {
		episodes = "episodes=2" // the race run checks concurrency, not claims
	}
	r := loadScaling(t, 10, func(tr *scenarios.Trial) bool {
		n, org := param(tr, agentsPath), param(tr, orgPath)
		return (n == "3" || n == "9" && org != single) &&
			slices.Contains([]string{"0.1", "0.2", "0.35", "1", "2"}, param(tr, strengthPath))
	}, episodes)
	reportScaling(t, r)

	for _, c := range signClaims {
		d := r.perSeed(r.points(func(p scalingPoint) bool {
			return p.kind == c.kind && slices.Contains(c.orgs, p.org) && p.agents == paperTeam && slices.Contains(c.strengths, p.strength)
		}), r.gain)
		t.Logf("%s, %s at strengths %g: gain per seed %.3f", c.kind, c.orgs, c.strengths, d)
		what := "positive"
		if c.sign < 0 {
			d, what = negate(d), "negative"
		}
		claim(t, fmt.Sprintf("%s: the gain of %s at the paper's base is %s", c.kind, strings.Join(c.orgs, ", "), what), signedRankP(d))
	}

	var amp []float64
	ind := r.points(func(p scalingPoint) bool { return p.org == independent })
	cen := r.points(func(p scalingPoint) bool { return p.org == centralized })
	for i := range r.seeds {
		ea := func(ps []scalingPoint) float64 {
			return metric.ErrorAmplification(r.mean(ps, []int{i}, r.metric(successMetric)), r.mean(ps, []int{i}, r.ofReference(successMetric)))
		}
		amp = append(amp, ea(ind)-ea(cen))
	}
	t.Logf("error amplification, independent − centralized, per seed: %.2f", amp)
	claim(t, "error amplification: independent > centralized", signedRankP(amp))

	var slopes, weak, strong, exps []float64
	for i := range r.seeds {
		line := r.gainLine(cen, []int{i})
		slopes = append(slopes, line.Slope)
		weak = append(weak, line.Intercept)
		strong = append(strong, line.Intercept+line.Slope)
		exps = append(exps, r.turnFit(r.withSingle(), []int{i}).Exponent-1)
	}
	t.Logf("centralized gain against the single agent's success, per seed: slope %.3f, at S = 0 %.3f, at S = 1 %.3f", slopes, weak, strong)
	claim(t, "a centralized team's gain falls with the single agent's success", signedRankP(negate(slopes)))
	claim(t, "a centralized team gains over a weak single agent (the line at S = 0)", signedRankP(weak))
	claim(t, "a centralized team loses against a strong single agent (the line at S = 1)", signedRankP(negate(strong)))
	t.Logf("turn-growth exponent − 1, per seed: %.3f", exps)
	claim(t, "turns grow sub-linearly with the team (exponent < 1)", signedRankP(negate(exps)))
}

// withSingle returns every multi-agent point and the single agent's.
func (r *scalingRuns) withSingle() []scalingPoint {
	ps := r.points(func(scalingPoint) bool { return true })
	for p := range r.at {
		if p.org == single && p.agents == 1 {
			ps = append(ps, p)
		}
	}
	return ps
}

// sizes returns the team sizes of the multi-agent points, ascending.
func (r *scalingRuns) sizes() []int {
	var ns []int
	for _, p := range r.points(func(scalingPoint) bool { return true }) {
		if !slices.Contains(ns, p.agents) {
			ns = append(ns, p.agents)
		}
	}
	slices.Sort(ns)
	return ns
}

// reportScaling logs exp-scaling's figures beside the paper's, with 95%
// bootstrap intervals over seeds.
func reportScaling(t *testing.T, r *scalingRuns) {
	t.Helper()
	kinds, orgs := map[string]bool{}, map[string]bool{}
	for p := range r.at {
		kinds[p.kind] = true
		if p.org != single {
			orgs[p.org] = true
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		var refs []scalingPoint
		for p := range r.at {
			if p.kind == kind && p.org == single && p.agents == 1 {
				refs = append(refs, p)
			}
		}
		slices.SortFunc(refs, func(a, b scalingPoint) int { return cmp.Compare(a.strength, b.strength) })
		var line []string
		for _, p := range refs {
			line = append(line, fmt.Sprintf("%g: %.2f", p.strength, r.mean([]scalingPoint{p}, r.allSeeds(), r.metric(successMetric))))
		}
		t.Logf("%s: single-agent success by strength %s", kind, strings.Join(line, ", "))
		for _, org := range slices.Sorted(maps.Keys(orgs)) {
			ps := r.points(func(p scalingPoint) bool { return p.kind == kind && p.org == org && p.agents == paperTeam })
			base := r.points(func(p scalingPoint) bool {
				return p.kind == kind && p.org == org && p.agents == paperTeam && slices.Contains(paperBase, p.strength)
			})
			t.Logf("  %s at %d agents: relative gain %s, gain %s; at the paper's base %s, gain %s", org, paperTeam,
				fmtIv(r.relative(ps, successMetric, metric.SuccessGain), "+.3f"),
				fmtIv(r.over(func(idx []int) float64 { return r.mean(ps, idx, r.gain) }), "+.3f"),
				fmtIv(r.relative(base, successMetric, metric.SuccessGain), "+.3f"),
				fmtIv(r.over(func(idx []int) float64 { return r.mean(base, idx, r.gain) }), "+.3f"))
		}
	}
	for _, org := range slices.Sorted(maps.Keys(orgs)) {
		ps := r.points(func(p scalingPoint) bool { return p.org == org })
		team := r.points(func(p scalingPoint) bool { return p.org == org && p.agents == paperTeam })
		t.Logf("%s: error amplification %s, overhead at %d agents %s, message density at %d agents %s", org,
			fmtIv(r.relative(ps, successMetric, metric.ErrorAmplification), ".2f"),
			paperTeam, fmtIv(r.relative(team, turnsMetric, metric.CoordinationOverhead), ".2f"),
			paperTeam, fmtIv(r.over(func(idx []int) float64 { return r.mean(team, idx, r.metric(densityMetric)) }), ".3f"))
	}
	all := r.points(func(scalingPoint) bool { return true })
	cen := r.points(func(p scalingPoint) bool { return p.org == centralized })
	var rel []float64
	for _, p := range all {
		rel = append(rel, r.relative([]scalingPoint{p}, successMetric, metric.SuccessGain).Value)
	}
	rel = stats.Finite(rel)
	m, sd := stats.Mean(rel), 0.0
	for _, x := range rel {
		sd += float64((x - m) * (x - m))
	}
	t.Logf("relative gain over %d configurations with a successful single agent: mean %+.3f, σ %.3f (paper: −0.035, σ 0.452)", len(rel), m, math.Sqrt(sd/float64(len(rel)-1)))
	for _, c := range []struct {
		name string
		ps   []scalingPoint
	}{{"every architecture", all}, {centralized, cen}} {
		line := r.gainLine(c.ps, r.allSeeds())
		zero := r.over(func(idx []int) float64 { return r.gainLine(c.ps, idx).Zero() })
		t.Logf("gain of %s against the single agent's success: %+.3f %+.3f·S, zero at S = %s (paper: ~0.45)", c.name, line.Intercept, line.Slope, fmtIv(zero, ".2f"))
	}
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		var line []string
		for _, n := range r.sizes() {
			ps := r.points(func(p scalingPoint) bool { return p.kind == kind && p.org == centralized && p.agents == n })
			line = append(line, fmt.Sprintf("%d: %s", n, fmtIv(r.over(func(idx []int) float64 { return r.mean(ps, idx, r.gain) }), "+.3f")))
		}
		t.Logf("%s: centralized gain by team size %s", kind, strings.Join(line, ", "))
	}
	var strengths []float64
	for _, p := range cen {
		if !slices.Contains(strengths, p.strength) {
			strengths = append(strengths, p.strength)
		}
	}
	slices.Sort(strengths)
	var hump []string
	for _, st := range strengths {
		ps := r.points(func(p scalingPoint) bool { return p.org == centralized && p.strength == st })
		hump = append(hump, fmt.Sprintf("%g (single %.2f): %s", st, r.mean(ps, r.allSeeds(), r.ofReference(successMetric)),
			fmtIv(r.over(func(idx []int) float64 { return r.mean(ps, idx, r.gain) }), "+.3f")))
	}
	t.Logf("centralized gain by strength: %s", strings.Join(hump, ", "))
	b := r.over(func(idx []int) float64 { return r.turnFit(r.withSingle(), idx).Exponent })
	a := r.turnFit(r.withSingle(), r.allSeeds()).Scale
	t.Logf("turns ≈ %.1f·(n + 0.5)^b, b = %s (paper: 2.72·(n + 0.5)^1.724)", a, fmtIv(b, ".3f"))
	for _, org := range slices.Sorted(maps.Keys(orgs)) {
		ps := r.points(func(p scalingPoint) bool { return p.org == org })
		for p := range r.at {
			if p.org == single && p.agents == 1 {
				ps = append(ps, p)
			}
		}
		t.Logf("  %s with the single agent at n = 1: b = %s", org, fmtIv(r.over(func(idx []int) float64 { return r.turnFit(ps, idx).Exponent }), ".3f"))
	}
}
