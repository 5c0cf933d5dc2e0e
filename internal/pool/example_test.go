package pool_test

import (
	"context"
	"fmt"

	"github.com/swarmsim/swarmsim/internal/pool"
)

// Each worker keeps its own scratch state, indexed by w; results go to the
// job's own slot, so they do not depend on the number of workers.
func ExampleRun() {
	squares := make([]int, 6)
	scratch := make([]int, 3) // one per worker: calls made
	err := pool.Run(context.Background(), len(squares), len(scratch), func(_ context.Context, w, i int) error {
		scratch[w]++
		squares[i] = i * i
		return nil
	})
	fmt.Println(squares, err)
	// Output: [0 1 4 9 16 25] <nil>
}
