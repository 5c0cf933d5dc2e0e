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
