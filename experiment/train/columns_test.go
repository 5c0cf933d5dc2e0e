package train

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/rlcr"
)

func TestIterationValueReadsItsColumn(t *testing.T) {
	it := rlcr.Iteration{RewardMean: 1, LatencyP90: 2, DuplicatesMean: 3}
	it.ActionProbs[1] = 4
	assert.Equal(t, 1.0, IterationValue("reward_mean")(&it))
	assert.Equal(t, 2.0, IterationValue("latency_p90")(&it))
	assert.Equal(t, 3.0, IterationValue("duplicates_mean")(&it), "a hand-off column")
	assert.Equal(t, 4.0, IterationValue("prob_"+collective.Action(1).String())(&it))
	for _, name := range ColumnNames() {
		assert.NotNil(t, IterationValue(name), name)
	}
	assert.Panics(t, func() { IterationValue("no_such_column") })
}
