package pool_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/internal/race"
)

func TestRunCallsEveryJobOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 8, 100} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			const n = 57
			var calls [n]atomic.Int32
			var maxWorker atomic.Int32
			err := pool.Run(context.Background(), n, workers, func(_ context.Context, w, i int) error {
				calls[i].Add(1)
				for {
					m := maxWorker.Load()
					if int32(w) <= m || maxWorker.CompareAndSwap(m, int32(w)) {
						break
					}
				}
				return nil
			})
			require.NoError(t, err)
			for i := range calls {
				assert.Equal(t, int32(1), calls[i].Load(), "job %d", i)
			}
			assert.Less(t, int(maxWorker.Load()), max(workers, 1), "worker index out of range")
		})
	}
}

func TestRunOneWorkerRunsInOrder(t *testing.T) {
	var order []int
	require.NoError(t, pool.Run(context.Background(), 5, 1, func(_ context.Context, w, i int) error {
		assert.Zero(t, w)
		order = append(order, i)
		return nil
	}))
	assert.Equal(t, []int{0, 1, 2, 3, 4}, order)
}

// A failure cancels the jobs after it, and Run reports the failure, not the
// cancellations it caused, whatever the number of workers.
func TestRunReportsTheFailureNotTheCancellations(t *testing.T) {
	boom := errors.New("boom")
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			var started atomic.Int32
			err := pool.Run(context.Background(), 100, workers, func(ctx context.Context, _, i int) error {
				started.Add(1)
				if i == 3 {
					return boom
				}
				if i > 3 {
					<-ctx.Done() // a long job, stopped by the failure
					return ctx.Err()
				}
				return nil
			})
			assert.ErrorIs(t, err, boom)
			assert.Less(t, started.Load(), int32(100), "jobs kept starting after the failure")
		})
	}
}

// A job cancelled by a later job's failure is not the failure Run reports,
// though its number is lower.
func TestRunReportsTheFailureBeforeAnEarlierCancellation(t *testing.T) {
	boom := errors.New("boom")
	err := pool.Run(context.Background(), 2, 2, func(ctx context.Context, _, i int) error {
		if i == 1 {
			return boom
		}
		<-ctx.Done() // job 0 runs until job 1 fails
		return ctx.Err()
	})
	assert.ErrorIs(t, err, boom)
}

func TestRunReportsTheLowestFailure(t *testing.T) {
	err := pool.Run(context.Background(), 10, 1, func(_ context.Context, _, i int) error {
		if i >= 2 {
			return fmt.Errorf("job %d", i)
		}
		return nil
	})
	require.EqualError(t, err, "job 2")
}

func TestRunStopsWhenTheCallerCancels(t *testing.T) {
	for _, workers := range []int{1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		// Job 4 cancels; the jobs after it wait until it has, so that
		// the bound does not rest on how the goroutines are scheduled
		// (a job 4 paused before its cancel() while the others ran on
		// once let every job run under the race detector). Jobs 0 to 4
		// run, and the workers−1 others waiting with them and the one
		// whose hand-out had begun: at most 5+workers.
		cancelled := make(chan struct{})
		var ran atomic.Int32
		err := pool.Run(ctx, 1000, workers, func(_ context.Context, _, i int) error {
			ran.Add(1)
			switch {
			case i == 4:
				cancel()
				close(cancelled)
			case i > 4:
				<-cancelled
			}
			return nil
		})
		assert.ErrorIs(t, err, context.Canceled, "workers %d", workers)
		assert.LessOrEqual(t, ran.Load(), int32(5+workers), "workers %d", workers)
		assert.GreaterOrEqual(t, ran.Load(), int32(5), "workers %d", workers)
	}
}

// A job that fails for a reason of its own is reported even when the
// caller cancelled while it ran.
func TestRunReportsAFailureAfterTheCallerCancels(t *testing.T) {
	boom := errors.New("boom")
	for _, workers := range []int{1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		err := pool.Run(ctx, 5, workers, func(_ context.Context, _, i int) error {
			if i == 2 {
				cancel()
				return boom
			}
			return nil
		})
		assert.ErrorIs(t, err, boom, "workers %d", workers)
	}
}

func TestRunWithNoJobs(t *testing.T) {
	require.NoError(t, pool.Run(context.Background(), 0, 4, func(context.Context, int, int) error {
		t.Fatal("called")
		return nil
	}))
}

// With two workers, two jobs run at once: each waits for the other to
// start, which never happens if the pool runs them one after the other.
func TestRunRunsJobsAtOnce(t *testing.T) {
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	err := pool.Run(context.Background(), 2, 2, func(_ context.Context, _, i int) error {
		started.Done()
		select {
		case <-both:
			return nil
		case <-time.After(10 * time.Second):
			return fmt.Errorf("job %d ran alone", i)
		}
	})
	require.NoError(t, err)
}

// One worker, or one job, runs on the caller's goroutine with nothing to
// allocate: a training runs a pool at every iteration.
func TestRunSeriallyAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	ctx := context.Background()
	fn := func(context.Context, int, int) error { return nil }
	for _, c := range []struct{ n, workers int }{{32, 1}, {32, 0}, {1, 4}} {
		assert.Zero(t, testing.AllocsPerRun(20, func() { _ = pool.Run(ctx, c.n, c.workers, fn) }), "%d jobs, %d workers", c.n, c.workers)
	}
	// Two workers start goroutines: the test can tell the paths apart.
	assert.NotZero(t, testing.AllocsPerRun(20, func() { _ = pool.Run(ctx, 32, 2, fn) }))
}
