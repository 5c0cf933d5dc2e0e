package metric

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPaperFormulas checks each coordination metric on cases worked by
// hand, among them the paper's own turns (7.2 for the single agent, 11.4
// for independent agents: the 58% overhead of its Table 5).
func TestPaperFormulas(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"turns", Turns(17), 17},
		{"density", MessageDensity(39, 100), 0.39},
		{"density without turns", MessageDensity(0, 0), nan},
		{"density without turns but messages", MessageDensity(3, 0), inf},
		{"redundancy of a single agent", Redundancy(0, 0, 0), 0},
		{"redundancy of 4 attempts", Redundancy(4, 0, 4), 0.75},
		{"redundancy of one attempt", Redundancy(1, 0, 1), 0},
		{"redundancy of duplicates", Redundancy(0, 1, 4), 0.25},
		{"redundancy of both", Redundancy(3, 1, 5), 0.6},
		{"amplification: as often", ErrorAmplification(0.6, 0.6), 1},
		{"amplification: twice", ErrorAmplification(0.2, 0.6), 2},
		{"amplification: half", ErrorAmplification(0.8, 0.6), 0.5},
		{"amplification: perfect reference", ErrorAmplification(0.5, 1), inf},
		{"amplification: neither fails", ErrorAmplification(1, 1), nan},
		{"overhead: paper's independent", CoordinationOverhead(11.4, 7.2), 4.2 / 7.2},
		{"overhead: none", CoordinationOverhead(7.2, 7.2), 0},
		{"overhead: fewer turns", CoordinationOverhead(5, 10), -0.5},
		{"efficiency: the reference's is its success", Efficiency(0.466, 7.2, 7.2), 0.466},
		{"efficiency: four times the turns", Efficiency(0.8, 40, 10), 0.2},
		{"gain", SuccessGain(0.6, 0.4), 0.5},
		{"loss", SuccessGain(0.2, 0.4), -0.5},
		{"gain over nothing", SuccessGain(0.2, 0), inf},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if math.IsNaN(tt.want) {
				assert.True(t, math.IsNaN(tt.got), "got %v, want NaN", tt.got)
				return
			}
			assert.InDelta(t, tt.want, tt.got, 1e-12)
		})
	}
}
