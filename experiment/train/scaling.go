package train

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/stats"
)

// scalingCharts returns the charts against team size that a training
// whose variants differ in collective.agents gets, one curve per
// estimator (the variants with the same train section): the final reward
// (the IQM over seeds of the last tenth's mean reward) and the iterations
// to a target reward. The target of a team size and seed is
// rlcr.TargetFraction of the way from the mean reward of its variants'
// iteration 0 to the best of their final rewards; a run that never
// reaches it counts as one past its last iteration (rlcr.IterationsToTarget),
// and the chart's note says how many did not. They are a page wide: a
// curve per estimator, and the note. Nothing is returned when
// fewer than two team sizes are trained or no estimator has two.
func scalingCharts(variants []*scenarios.Variant, jobs []*Job, stat, interval string) ([]plots.Spec, [][]plots.Series) {
	type key struct {
		size int
		seed uint64
	}
	var sizes []int
	var groups []string // the estimators' train sections, in variant order
	label := map[string]string{}
	at := map[*scenarios.Variant][2]int{} // estimator and team size indices
	for _, v := range variants {
		b, err := json.Marshal(v.Spec.Train)
		if err != nil {
			return nil, nil // a train section is plain data: this does not happen
		}
		g := string(b)
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
			label[g] = estimatorName(&v.Spec.Train)
			for _, o := range groups[:len(groups)-1] {
				if label[o] == label[g] {
					label[g] += fmt.Sprintf(" (%d)", len(groups))
				}
			}
		}
		if !slices.Contains(sizes, v.Spec.Collective.Agents) {
			sizes = append(sizes, v.Spec.Collective.Agents)
		}
		at[v] = [2]int{slices.Index(groups, g), v.Spec.Collective.Agents}
	}
	slices.Sort(sizes)
	if len(sizes) < 2 || len(groups) == len(variants) {
		return nil, nil
	}
	// The initial and best rewards of each team size and seed.
	initial, count, best := map[key]float64{}, map[key]int{}, map[key]float64{}
	final := map[*Job]float64{}
	for _, j := range jobs {
		k := key{j.Variant.Spec.Collective.Agents, j.Seed}
		initial[k] += j.Rows[0].RewardMean
		count[k]++
		last := stats.LastTenth(j.Rows)
		sum := 0.0
		for _, r := range last {
			sum += r.RewardMean
		}
		final[j] = sum / float64(len(last))
		if b, ok := best[k]; !ok || final[j] > b {
			best[k] = final[j]
		}
	}
	// Values by estimator and team size, over seeds.
	finals := make([]map[int][]float64, len(groups))
	iters := make([]map[int][]float64, len(groups))
	for g := range groups {
		finals[g], iters[g] = map[int][]float64{}, map[int][]float64{}
	}
	missed := 0
	for _, j := range jobs {
		k := key{j.Variant.Spec.Collective.Agents, j.Seed}
		rewards := make([]float64, len(j.Rows))
		for i := range j.Rows {
			rewards[i] = j.Rows[i].RewardMean
		}
		it, ok := rlcr.IterationsToTarget(rewards, rlcr.Target(initial[k]/float64(count[k]), best[k], rlcr.TargetFraction))
		if !ok {
			missed++
		}
		g, n := at[j.Variant][0], at[j.Variant][1]
		finals[g][n] = append(finals[g][n], final[j])
		iters[g][n] = append(iters[g][n], float64(it))
	}
	curves := func(values []map[int][]float64) []plots.Series {
		var out []plots.Series
		for g, byN := range values {
			sr := plots.Series{Name: label[groups[g]]}
			for _, n := range sizes {
				xs, ok := byN[n]
				if !ok {
					continue
				}
				iv := stats.Default.CI(xs, stats.IQM)
				if !experiment.Finite(iv.Lo) || !experiment.Finite(iv.Hi) {
					iv.Lo, iv.Hi = iv.Value, iv.Value
				}
				sr.X, sr.Y = append(sr.X, float64(n)), append(sr.Y, iv.Value)
				sr.Lo, sr.Hi = append(sr.Lo, iv.Lo), append(sr.Hi, iv.Hi)
			}
			if len(sr.X) > 1 {
				out = append(out, sr)
			}
		}
		return out
	}
	note := ""
	if missed > 0 {
		note = fmt.Sprintf("%d of %d runs never reached it (counted as %d)", missed, len(jobs), len(jobs[0].Rows))
	}
	specs := []plots.Spec{
		{Name: "scaling_final_reward", Kind: "scaling", XLabel: "team size (agents)", YLabel: "final mean reward", Stat: stat, Interval: interval, Size: "page"},
		{Name: "scaling_iterations_to_target", Kind: "scaling", XLabel: "team size (agents)",
			YLabel: fmt.Sprintf("iterations to %.0f%% of the best gain", 100*rlcr.TargetFraction), Stat: stat, Interval: interval, Note: note, Size: "page"},
	}
	return specs, [][]plots.Series{curves(finals), curves(iters)}
}

// estimatorName names an estimator's curve by its advantage, ÷std and
// per-agent counterfactual (estimators that differ only elsewhere in their
// train sections are told apart by their number).
func estimatorName(c *rlcr.Config) string {
	name := string(c.Advantage)
	if c.Advantage == rlcr.PerAgent {
		name += " (" + string(c.Credit) + ")"
	}
	if c.StdNorm {
		name += " ÷std"
	}
	return name
}
