package pool

import (
	"cmp"
	"context"
	"errors"
	"sync"
)

// Run calls fn(w, i) for every i in [0, n), on at most workers goroutines
// (one, in the caller's goroutine, when workers <= 1). Jobs are handed out
// in order of i; w, in [0, workers), names the goroutine that runs the job,
// so that a caller can keep one scratch state per worker without locking.
//
// The first job to fail cancels the context that the others see, and no
// job starts after that. Run returns the error of the lowest-numbered job
// that failed for a reason of its own, not a cancellation that another
// job's failure caused; if every failure is a cancellation (or nothing
// failed) and ctx was cancelled, it returns ctx's error. A result never
// depends on the number of workers unless fn makes it so.
func Run(parent context.Context, n, workers int, fn func(ctx context.Context, w, i int) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	errs := make([]error, n)
	if workers <= 1 || n <= 1 {
		for i := range n {
			if ctx.Err() != nil {
				break
			}
			if errs[i] = fn(ctx, 0, i); errs[i] != nil {
				cancel()
			}
		}
	} else {
		next := make(chan int)
		var wg sync.WaitGroup
		for w := range min(workers, n) {
			wg.Go(func() {
				for i := range next {
					if errs[i] = fn(ctx, w, i); errs[i] != nil {
						cancel()
					}
				}
			})
		}
		for i := range n {
			if ctx.Err() != nil {
				break
			}
			next <- i
		}
		close(next)
		wg.Wait()
	}
	var cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			cancelled = cmp.Or(cancelled, err)
		default:
			return err
		}
	}
	return cmp.Or(parent.Err(), cancelled)
}
