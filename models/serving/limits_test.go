package serving_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// TestTokenBucketCapacityLimit: the bucket counts capacity·scale
// fractions, scale = per/gcd(rate, per), in an int64, so a capacity is
// accepted exactly when that product fits: up to and including
// MaxInt64/scale, not one more.
func TestTokenBucketCapacityLimit(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rate      int64
		per       sim.Time
		capacity  int64
		wantError bool
	}{
		{"scale 1, the largest int64", 1, 1, math.MaxInt64, false},
		{"scale 3, the largest that fits", 1, 3, math.MaxInt64 / 3, false},
		{"scale 3, one more", 1, 3, math.MaxInt64/3 + 1, true},
		{"scale 2 (4 per 8 ns), the largest that fits", 4, 8, math.MaxInt64 / 2, false},
		{"scale 2, one more", 4, 8, math.MaxInt64/2 + 1, true},
	} {
		b, err := serving.NewTokenBucket(tc.rate, tc.per, tc.capacity)
		if tc.wantError {
			assert.Error(t, err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.True(t, b.Holds(tc.capacity), tc.name)
		assert.True(t, b.Take(0, tc.capacity), "%s: it starts full", tc.name)
	}
}

// TestTokenBucketTakeNothing: every bucket holds zero tokens, full or
// empty, so taking none always succeeds and changes nothing; taking a
// negative number is refused.
func TestTokenBucketTakeNothing(t *testing.T) {
	b, err := serving.NewTokenBucket(60, sim.Minute, 10)
	require.NoError(t, err)
	assert.True(t, b.Take(0, 0), "full")
	require.True(t, b.Take(0, 10))
	assert.True(t, b.Take(0, 0), "empty")
	assert.Equal(t, 0.0, b.Level(0))
	assert.False(t, b.Take(0, -1))
	assert.Equal(t, 0.0, b.Level(0), "a refused take leaves the level")
}

// TestSharingNeverEnds: a job whose departure would fall past sim.MaxTime
// never departs (Next reports sim.MaxTime) rather than wrapping around to a
// time in the past. Added at 2^62 ns with 2^62 units of 1 ns alone, it
// would end at exactly 2^63 ns, one past MaxTime = 2^63 − 1; both numbers
// are exact in a float64.
func TestSharingNeverEnds(t *testing.T) {
	s, err := serving.NewSharing(1, 0)
	require.NoError(t, err)
	const from = sim.Time(1) << 62
	s.Add(from, 1, math.Ldexp(1, 62), 0)
	due, ok := s.Next()
	require.True(t, ok)
	assert.Equal(t, sim.MaxTime, due)

	// 1024 units less (still exact) ends 1024 ns before MaxTime, and does.
	s2, err := serving.NewSharing(1, 0)
	require.NoError(t, err)
	s2.Add(from, 1, math.Ldexp(1, 62)-1024, 0)
	due, ok = s2.Next()
	require.True(t, ok)
	assert.Equal(t, sim.MaxTime-1023, due)
}
