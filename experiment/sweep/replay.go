package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/scenarios"
)

// replayTrial replays the recorded runs of the trial's replay.traces
// through its variant's deployment, which serves every model call (a
// trial is one variant: the routing of `simulate replay`, a variant per
// model, needs every variant at once), under the replay section's load,
// and records the replay's summary. Replicas draw nothing; a hosted API's
// draws come from the trial's seed.
func replayTrial(ctx context.Context, t *scenarios.Trial, maxEvents uint64) (*Outcome, error) {
	set := &t.Variant.Spec.Replay
	tr, err := calibrate.Load(set.Traces)
	if err != nil {
		return nil, err
	}
	if len(tr.Replay) == 0 {
		return nil, fmt.Errorf("replay.traces: no run of %s has an end: nothing to replay", strings.Join(set.Traces, ", "))
	}
	dep, err := replay.Deploy([]replay.Server{t.Variant.Server()}, nil)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	load := set.Load()
	if err := load.CheckRuns(len(tr.Replay)); err != nil {
		return nil, fmt.Errorf("replay.sessions: %w; set replay.runs (1 to %d)", err, replay.MaxRuns)
	}
	res, err := replay.Replay(tr.Replay, replay.Config{Deployment: dep, Load: load, Pairing: set.Pairing, Seed: t.Seed, MaxEvents: maxEvents})
	if err != nil {
		return nil, err
	}
	o := &Outcome{Metrics: map[string]float64{}, Runs: tr.Replay, Replayed: []calibrate.Replayed{{Load: load.String(), Results: res}}}
	for _, st := range calibrate.ReplaySummary(tr.Replay, o.Replayed) {
		o.Metrics[st.Metric] = st.Value
	}
	for _, name := range scenarios.SweepMetrics(scenarios.SweepReplay) {
		if _, ok := o.Metrics[name]; !ok {
			return nil, errors.New("sweep: the replay's summary has no " + name)
		}
	}
	return o, nil
}
