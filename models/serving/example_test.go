package serving_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// printer is a Client that prints its calls' progress.
type printer struct{ env *sim.Env }

func (p printer) Admitted(id int, at sim.Time) { fmt.Printf("call %d admitted at %v\n", id, at) }
func (p printer) Done(id int)                  { fmt.Printf("call %d done at %v\n", id, p.env.Now()) }
func (p printer) Fail(err error)               { fmt.Println(err) }

// Three calls on one replica that batches two sequences: the third waits
// for a place in the batch, and the second call's prefill pauses the
// first's decoding.
func ExampleReplicas() {
	env := sim.New(sim.Limits{})
	cfg := serving.Deployment{Replicas: 1, MaxBatch: 2, Step: 10 * sim.Millisecond, StepPerSeq: sim.Millisecond, PrefillToken: sim.Microsecond}
	var d serving.Replicas
	if err := d.Reset(env, &cfg, printer{env}); err != nil {
		fmt.Println(err)
		return
	}
	calls := []serving.Call{{ID: 0, Prompt: 1000, Output: 100}, {ID: 1, Prompt: 1000, Output: 50}, {ID: 2, Prompt: 500, Output: 10}}
	for i := range calls {
		d.Submit(&calls[i], sim.Time(i)*100*sim.Millisecond) // the calls arrive 100 ms apart
	}
	if err := env.Run(); err != nil {
		fmt.Println(err)
	}
	s := d.Finish(env.Now())
	fmt.Printf("mean batch %.2f, %.0f%% busy\n", s.BatchMean, 100*s.Utilisation)
	// Output:
	// call 0 admitted at 0s
	// call 1 admitted at 100ms
	// call 2 admitted at 651ms
	// call 1 done at 651ms
	// call 2 done at 761.5ms
	// call 0 done at 1.0625s
	// mean batch 1.62, 100% busy
}
