package task_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/task"
)

func TestIDQueueSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var q task.IDQueue
		var want []task.ID
		for range r.IntN(50) {
			v := task.ID(r.IntN(20))
			q.Push(v)
			want = append(want, v)
		}
		slices.Sort(want)
		var got []task.ID
		for q.Len() > 0 {
			require.Equal(t, want[len(got)], q.Min())
			got = append(got, q.Pop())
		}
		require.Equal(t, want, got)
	}
}
