package stats_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/stats"
)

// Success over three seeds: the IQM with its bootstrap interval, which
// stays inside [0, 1] because it is made of values the IQM takes on
// resamples of the seeds.
func ExampleBootstrap_Aggregate() {
	a := stats.Default.Aggregate([]float64{0.9, 1, 1})
	fmt.Printf("n=%d IQM %.3f [%.3f, %.3f]\n", a.N, a.IQM.Value, a.IQM.Lo, a.IQM.Hi)
	// Output: n=3 IQM 0.983 [0.900, 1.000]
}

// A success rate of 30 out of 30 episodes: the Wilson interval ends at 1
// exactly.
func ExampleWilson() {
	iv := stats.Wilson(30, 30)
	fmt.Printf("%.3f [%.3f, %g]\n", iv.Value, iv.Lo, iv.Hi)
	// Output: 1.000 [0.886, 1]
}

// The probability that a seed of B beats a seed of A.
func ExampleProbImprovement() {
	a := []float64{0.2, 0.4, 0.5}
	b := []float64{0.45, 0.6, 0.7}
	fmt.Printf("%.3f\n", stats.ProbImprovement(a, b))
	// Output: 0.889
}

// A training's final value is the mean over its last tenth of
// iterations: the last two of twenty, the last one of nine.
func ExampleLastTenth() {
	rewards := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0}
	fmt.Println(stats.LastTenth(rewards), stats.LastTenth(rewards[:9]))
	// Output: [1.9 2] [0.9]
}

// The growth exponent of turns with team size, fitted on log–log axes
// to turns at n = 1, 2, 4 agents, against n + 0.5 as Kim et al. (2025)
// write their law T = 2.72·(n + 0.5)^1.724.
func ExampleFitPowerLaw() {
	n := []float64{1.5, 2.5, 4.5}
	turns := []float64{5, 12, 35}
	fit := stats.FitPowerLaw(n, turns)
	fmt.Printf("T ≈ %.2f·(n + 0.5)^%.3f\n", fit.Scale, fit.Exponent)
	// Output: T ≈ 2.41·(n + 0.5)^1.772
}

// Where a gain that falls with the baseline crosses zero.
func ExampleLine_Zero() {
	baseline := []float64{0.1, 0.3, 0.5, 0.7, 0.9}
	gain := []float64{0.30, 0.12, -0.02, -0.20, -0.35}
	fmt.Printf("%.3f\n", stats.LeastSquares(baseline, gain).Zero())
	// Output: 0.463
}
