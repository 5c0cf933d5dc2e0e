package env_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/experiment/env"
	"github.com/swarmsim/swarmsim/models/policy"
)

// Step four rows of tiny, in two groups of two, with the choices of the
// team organization until every row has finished its episode: the rows
// of a group work on one task instance with the same draws, so with the
// same choices they finish alike.
func Example() {
	team, err := policy.Organization("team")
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 4, Group: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := e.Reset(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	actions := make([]int32, e.NumEnvs())
	for steps := 0; ; steps++ {
		active := false
		for i := range actions {
			if p, ok := e.Pending(i); ok {
				actions[i], active = int32(team.Decide(p.Obs, p.Mask, p.U)), true
			}
		}
		if !active {
			fmt.Println("steps:", steps)
			return
		}
		if out, err = e.Step(actions); err != nil {
			fmt.Println(err)
			return
		}
		for i := range actions {
			if out.Terminated[i]+out.Truncated[i] > 0 {
				r, _ := e.Finished(i)
				fmt.Printf("row %d: episode %d, finished at %.0f s, reward %v\n", i, r.Episode, r.Metrics.Finish.Seconds(), out.Reward[i])
			}
		}
	}
	// Output:
	// row 0: episode 0, finished at 1097 s, reward 1
	// row 1: episode 0, finished at 1097 s, reward 1
	// row 2: episode 1, finished at 3221 s, reward 1
	// row 3: episode 1, finished at 3221 s, reward 1
	// steps: 11
}
