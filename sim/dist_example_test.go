package sim_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/sim"
)

func ExampleParseDist() {
	for _, s := range []string{
		"90s",
		"exp(5m)",
		"uniform(lo=30s, hi=1m30s)",
		"lognormal(mean=2m, cv=0.5)",
		"normal(mean=0, sd=1)",
		"expo(5m)",
	} {
		d, err := sim.ParseDist(s)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("%-28s → %-28s mean %.4g\n", s, d, d.Mean())
	}
	// Output:
	// 90s                          → 90                           mean 90
	// exp(5m)                      → exp(300)                     mean 300
	// uniform(lo=30s, hi=1m30s)    → uniform(30, 90)              mean 60
	// lognormal(mean=2m, cv=0.5)   → lognormal(mean=120, cv=0.5)  mean 120
	// normal(mean=0, sd=1)         → normal(mean=0, sd=1)         mean 0.7979
	// error: invalid distribution "expo(5m)": unknown distribution "expo" (allowed: const, exp, uniform, lognormal, gamma, normal, poisson, lognormal2, or a bare number or duration)
}
