package replay_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// A recorded run of one agent: a model call, a tool call 50 ms after it,
// and a second model call 20 ms after that, replayed as three sessions at
// an API that serves one call at a time and takes a second per call. The
// first calls take 0–1, 1–2 and 2–3 s; each session's second call, sent
// 1.57 s after its first ended, queues behind the others' first calls
// and waits 1.43 s, so the sessions end at 4, 5 and 6 s.
func Example() {
	run := replay.Run{ID: "run", Duration: 3 * sim.Second, Root: replay.Agent{Name: "agent", Steps: []replay.Step{
		{Kind: replay.ModelCall, Name: "m", Recorded: sim.Second},
		{Kind: replay.ToolCall, Name: "search", Recorded: 500 * sim.Millisecond, After: []int{0}, Gap: 50 * sim.Millisecond},
		{Kind: replay.ModelCall, Name: "m", Recorded: sim.Second, After: []int{1}, Gap: 20 * sim.Millisecond},
	}}}
	dep := replay.Deployment{APIs: []serving.API{{TTFT: sim.Const(1), OutputRate: 1e9, Concurrency: 1}}}
	res, err := replay.Replay([]replay.Run{run}, replay.Config{Deployment: dep, Load: replay.Load{Sessions: 3, Runs: 3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("session %d: %v recorded, %v replayed, %v waiting\n", r.Session, r.Recorded, r.Replayed(), r.Delay)
	}
	// Output:
	// session 0: 3s recorded, 4s replayed, 1.43s waiting
	// session 1: 3s recorded, 5s replayed, 2.43s waiting
	// session 2: 3s recorded, 6s replayed, 3.43s waiting
}
