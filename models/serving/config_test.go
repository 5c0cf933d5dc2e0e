package serving_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// TestDefaultDeployment checks the defaults against the figures
// DefaultDeployment's documentation gives (BLIS's fit for Llama-3.1-8B on
// one H100, vLLM's max_num_seqs), parsed from their decimal writing: a step
// of β0 + β2 = 5.753 ms + 6 µs with one sequence, 6 µs more per sequence,
// 17.25 µs of prefill per prompt token, at most 256 sequences, and no
// replicas, so that it is no deployment until some are set.
func TestDefaultDeployment(t *testing.T) {
	dur := func(s string) sim.Time {
		d, err := time.ParseDuration(s)
		require.NoError(t, err)
		return sim.Time(d.Nanoseconds())
	}
	d := serving.DefaultDeployment()
	assert.Equal(t, dur("5.753ms")+dur("6us"), d.Step)
	assert.Equal(t, dur("6us"), d.StepPerSeq)
	assert.Equal(t, dur("17.25us"), d.PrefillToken)
	assert.Equal(t, 256, d.MaxBatch)
	assert.Zero(t, d.Replicas)
	assert.True(t, d.IsZero())
	d.Replicas = 1
	assert.False(t, d.IsZero(), "one replica is a deployment")
	assert.False(t, serving.Deployment{Replicas: 2}.IsZero())
}
