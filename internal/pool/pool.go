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
	if workers <= 1 || n <= 1 {
		return serial(parent, n, fn)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	errs := make([]error, n)
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
	var cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
		case isCancellation(err):
			cancelled = cmp.Or(cancelled, err)
		default:
			return err
		}
	}
	return cmp.Or(parent.Err(), cancelled)
}

// serial is Run on the caller's goroutine. A failure ends the loop, so no
// job ever runs after another failed and the jobs need no context of their
// own, nor a slice of errors: a training runs a pool at every iteration,
// and those were most of its steady allocations.
func serial(ctx context.Context, n int, fn func(ctx context.Context, w, i int) error) error {
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		if err := fn(ctx, 0, i); err != nil {
			if isCancellation(err) {
				return cmp.Or(ctx.Err(), err)
			}
			return err
		}
	}
	return ctx.Err()
}

func isCancellation(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
