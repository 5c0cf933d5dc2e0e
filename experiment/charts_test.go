package experiment

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/plots"
)

// TestTimelineRowsFit draws timelines of every team size a run may chart,
// with the widest row labels, at the size timelineSpec picks: each must
// fit, and a page must be too short for the first team drawn tall, or the
// tall size is not needed there.
func TestTimelineRowsFit(t *testing.T) {
	draw := func(rows int, size string) error {
		var spans []plots.Span
		for a := range rows {
			spans = append(spans, plots.Span{Row: agentRow(a), Start: float64(a), End: float64(a + 100), Kind: "work"})
		}
		spec := timelineSpec("timeline_agents", "agents-32", rows)
		if size != "" {
			spec.Size = size
		}
		_, err := plots.Draw(&spec, plots.TimelineTable(spans, nil))
		return err
	}
	for _, rows := range []int{1, pageTimelineRows, pageTimelineRows + 1, 32, maxTimelineRows} {
		assert.NoError(t, draw(rows, ""), "%d rows", rows)
	}
	assert.Equal(t, "page", timelineSpec("x", "v", pageTimelineRows).Size)
	assert.Equal(t, "tall", timelineSpec("x", "v", pageTimelineRows+1).Size)
	err := draw(maxTimelineRows, "page")
	require.Error(t, err, "%d rows fit a page: no timeline of a run needs the tall size", maxTimelineRows)
	assert.Contains(t, err.Error(), "overlaps")
}
