package report_test

import (
	"fmt"
	"math"

	"github.com/swarmsim/swarmsim/report"
)

// Format writes the numbers of the page's tables: three significant
// digits, whole numbers from 1000 on, and signs for what is not a number.
func ExampleFormat() {
	for _, v := range []float64{0.421875, 2467.1067, 0.0001668, math.NaN(), math.Inf(1)} {
		fmt.Println(report.Format(v))
	}
	// Output:
	// 0.422
	// 2467
	// 0.000167
	// –
	// ∞
}
