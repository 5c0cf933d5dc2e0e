package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// endTicks are tidyTicks for an axis of whole numbers (iterations, team
// sizes) that also label the axis maximum: a learning curve of iterations
// 0 to 149 is labelled to 149, not left at 120 as if it stopped there.
// The last tidy label gives way when it sits closer to the end than a
// quarter of the labels' spacing, where the two would crowd each other,
// unless it is one of two: an axis keeps a label between its ends.
type endTicks struct{}

func (endTicks) Ticks(min, max float64) []plot.Tick {
	ticks := tidyTicks{}.Ticks(min, max)
	var labelled []int
	for i, t := range ticks {
		if !t.IsMinor() {
			labelled = append(labelled, i)
		}
	}
	if len(labelled) < 2 || ticks[labelled[len(labelled)-1]].Value >= max || max != math.Trunc(max) {
		return ticks
	}
	last, prev := ticks[labelled[len(labelled)-1]], ticks[labelled[len(labelled)-2]]
	if len(labelled) > 2 && max-last.Value < (last.Value-prev.Value)/4 {
		ticks[labelled[len(labelled)-1]].Label = ""
	}
	return append(ticks, plot.Tick{Value: max, Label: strconv.FormatFloat(max, 'f', 0, 64)})
}

// wholeX reports whether every x of every series is a whole number.
func wholeX(series []Series) bool {
	for _, s := range series {
		for _, x := range s.X {
			if x != math.Trunc(x) {
				return false
			}
		}
	}
	return true
}

// logTicks are the ticks of a log axis: a tick at each power of ten and
// minor ticks at its multiples 2 to 9, the powers labelled where their
// exponent is a multiple of every (1: every decade). They are
// plot.LogTicks (with Prec -1) but for two things: each power is math.Pow10's, exact,
// where LogTicks multiplies by ten decade after decade and labels 1e-05
// as 9.999999999999999e-06; and a wide range may be labelled every
// other decade or fewer (see thinLogTicks), where LogTicks labels each
// and the labels of six decades overlap.
type logTicks struct{ every int }

func (t logTicks) Ticks(min, max float64) []plot.Tick {
	// The decades are LogTicks': from the power of ten of log10(min)
	// truncated to the power above max.
	lo, hi := int(math.Log10(min)), int(math.Ceil(math.Log10(max)))
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Pow10(e)
		label := ""
		if e%t.every == 0 {
			label = strconv.FormatFloat(v, 'g', -1, 64)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
		if e < hi {
			for i := 2; i < 10; i++ {
				ticks = append(ticks, plot.Tick{Value: float64(i) * v})
			}
		}
	}
	return ticks
}
