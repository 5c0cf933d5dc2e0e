package serving_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// replicaCall is a call of these tests: sent at time sent, it reaches the
// deployment after delay.
type replicaCall struct {
	sent, delay    sim.Time
	prompt, output int64
}

// runReplicas sends the calls to a deployment of cfg (IDs their indices;
// those sent at 0 directly, in order, the others from a callback at their
// time) and runs the episode to end (sim.MaxTime: to its last event).
func runReplicas(t *testing.T, cfg serving.Deployment, calls []replicaCall, end sim.Time) (*serving.Replicas, *eventLog) {
	t.Helper()
	env := sim.New(sim.Limits{})
	log := &eventLog{env: env}
	d := &serving.Replicas{}
	require.NoError(t, d.Reset(env, &cfg, log))
	cs := make([]serving.Call, len(calls))
	for i, c := range calls {
		cs[i] = serving.Call{ID: i, Prompt: c.prompt, Output: c.output}
		if c.sent == 0 {
			d.Submit(&cs[i], c.delay)
			continue
		}
		require.NoError(t, env.Call(c.sent, func() { d.Submit(&cs[i], c.delay) }))
	}
	if end == sim.MaxTime {
		require.NoError(t, env.Run())
	} else {
		require.NoError(t, env.RunUntil(end))
	}
	return d, log
}

// TestReplicasByHand checks the deployment's admissions and ends on cases
// worked out by hand. With StepPerSeq 0 every sequence in a batch gets a
// token per Step, however many share it, so a call admitted at a with
// prompt p and output o is done at a + p·PrefillToken + o·Step when no
// other prefill pauses it; a call is admitted when it arrives if its
// replica's batch has room, else when a place frees; a call goes to the
// replica with the fewest sequences, batched or queued, the lowest on a
// tie; at one instant departures come before arrivals.
func TestReplicasByHand(t *testing.T) {
	const ms = sim.Millisecond
	one := serving.Deployment{Replicas: 1, MaxBatch: 8, Step: ms}
	for _, tc := range []struct {
		name          string
		cfg           serving.Deployment
		calls         []replicaCall
		admit, finish []sim.Time
	}{
		{
			// Call 2 joins call 1 while it is in service, sent after the
			// deployment has planned for call 1 alone, and is done first.
			name: "a short call joins a batch in service", cfg: serving.Deployment{Replicas: 1, MaxBatch: 2, Step: ms},
			calls:  []replicaCall{{0, 0, 0, 10}, {0, 5 * ms, 0, 100}, {20 * ms, 0, 0, 1}},
			admit:  []sim.Time{0, 5 * ms, 20 * ms},
			finish: []sim.Time{10 * ms, 105 * ms, 21 * ms},
		},
		{
			// Call 2 is sent last but arrives before call 1.
			name: "a call overtakes one on its way", cfg: one,
			calls:  []replicaCall{{0, 0, 0, 10}, {0, 5 * ms, 0, 10}, {0, 1 * ms, 0, 1}},
			admit:  []sim.Time{0, 5 * ms, 1 * ms},
			finish: []sim.Time{10 * ms, 15 * ms, 2 * ms},
		},
		{
			// Call 0 arrives as call 1 departs: call 1 leaves first, so
			// call 0's prefill of 5 tokens does not hold it up. (Call 0 is
			// sent first so that the plan made for call 1, which overtakes
			// it, meets it on its way.)
			name: "an arrival at a departure's instant", cfg: serving.Deployment{Replicas: 1, MaxBatch: 8, Step: ms, PrefillToken: ms},
			calls:  []replicaCall{{0, 10 * ms, 5, 1}, {0, 0, 0, 10}},
			admit:  []sim.Time{10 * ms, 0},
			finish: []sim.Time{16 * ms, 10 * ms},
		},
		{
			// One sequence a batch: the calls go one after the other, each
			// alone (StepPerSeq would slow a batch of two).
			name: "a full batch queues", cfg: serving.Deployment{Replicas: 1, MaxBatch: 1, Step: ms, StepPerSeq: ms},
			calls:  []replicaCall{{0, 0, 0, 10}, {0, 1 * ms, 0, 10}, {0, 2 * ms, 0, 10}},
			admit:  []sim.Time{0, 10 * ms, 20 * ms},
			finish: []sim.Time{10 * ms, 20 * ms, 30 * ms},
		},
		{
			// Calls 0 and 1 take a replica each; call 2 ties and queues at
			// replica 0; at 3ms replica 1 is empty (call 1 left at 2ms)
			// while replica 0 has a sequence and a queued one, so call 3
			// goes to replica 1.
			name: "two replicas", cfg: serving.Deployment{Replicas: 2, MaxBatch: 1, Step: ms},
			calls:  []replicaCall{{0, 0, 0, 100}, {0, 0, 0, 2}, {0, 0, 0, 5}, {0, 3 * ms, 0, 1}},
			admit:  []sim.Time{0, 0, 100 * ms, 3 * ms},
			finish: []sim.Time{100 * ms, 2 * ms, 105 * ms, 4 * ms},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, log := runReplicas(t, tc.cfg, tc.calls, sim.MaxTime)
			var want []string
			for i := range tc.calls {
				want = append(want, admitted(i, tc.admit[i]), done(i, tc.finish[i]))
			}
			assert.ElementsMatch(t, want, log.events)
		})
	}
}

// TestReplicasFinish checks the deployment's figures at the end T of an
// episode against the definitions, with the integrals worked out by hand
// (StepPerSeq 0, so each call takes output·Step once admitted):
// Utilisation = (replica-time with a batch)/(T·Replicas), BatchMean =
// (∫ sequences batched dt)/(time with a batch), QueueMean = (∫ calls
// queued dt)/T; all zero when no time has passed or nothing ran.
func TestReplicasFinish(t *testing.T) {
	const ms = sim.Millisecond
	for _, tc := range []struct {
		name  string
		cfg   serving.Deployment
		calls []replicaCall
		end   sim.Time
		want  serving.Stats
	}{
		{
			// Call 0 is batched over [0, 50ms]; calls 1 and 2 arrive at
			// 10ms and queue to the end: 2·40ms queued over 50ms.
			name: "two calls queue", cfg: serving.Deployment{Replicas: 1, MaxBatch: 1, Step: ms},
			calls: []replicaCall{{0, 0, 0, 100}, {0, 10 * ms, 0, 10}, {0, 10 * ms, 0, 10}}, end: 50 * ms,
			want: serving.Stats{Utilisation: 1, QueueMean: 1.6, BatchMean: 1},
		},
		{
			// Two sequences batched over [0, 5ms].
			name: "a batch of two", cfg: serving.Deployment{Replicas: 1, MaxBatch: 2, Step: ms},
			calls: []replicaCall{{0, 0, 0, 10}, {0, 0, 0, 10}}, end: 5 * ms,
			want: serving.Stats{Utilisation: 1, BatchMean: 2},
		},
		{
			// TestReplicasByHand's two replicas, to 50ms: replica 0 busy
			// with one sequence throughout, call 2 queued there throughout;
			// replica 1 busy with one sequence over [0, 2ms] and [3ms, 4ms].
			// Busy 53ms of 2·50ms; 53ms of sequences over 53ms busy.
			name: "two replicas", cfg: serving.Deployment{Replicas: 2, MaxBatch: 1, Step: ms},
			calls: []replicaCall{{0, 0, 0, 100}, {0, 0, 0, 2}, {0, 0, 0, 5}, {0, 3 * ms, 0, 1}}, end: 50 * ms,
			want: serving.Stats{Utilisation: 0.53, QueueMean: 1, BatchMean: 1},
		},
		{
			name: "idle", cfg: serving.Deployment{Replicas: 1, MaxBatch: 1, Step: ms},
			end: 10 * ms, want: serving.Stats{},
		},
		{
			name: "at time 0", cfg: serving.Deployment{Replicas: 1, MaxBatch: 1, Step: ms},
			calls: []replicaCall{{0, 0, 0, 10}}, end: 0, want: serving.Stats{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := runReplicas(t, tc.cfg, tc.calls, tc.end)
			got := d.Finish(tc.end)
			assert.InDelta(t, tc.want.Utilisation, got.Utilisation, 1e-12, "utilisation")
			assert.InDelta(t, tc.want.QueueMean, got.QueueMean, 1e-12, "queue")
			assert.InDelta(t, tc.want.BatchMean, got.BatchMean, 1e-12, "batch")
		})
	}
}

// TestReplicasResetErrors: a deployment whose step is not positive, or
// whose per-sequence step is negative, has no defined speed and is
// refused; a valid one of several replicas is accepted.
func TestReplicasResetErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  serving.Deployment
		ok   bool
	}{
		{"valid", serving.Deployment{Replicas: 3, MaxBatch: 4, Step: sim.Millisecond}, true},
		{"zero step", serving.Deployment{Replicas: 3, MaxBatch: 4}, false},
		{"negative step per sequence", serving.Deployment{Replicas: 3, MaxBatch: 4, Step: sim.Millisecond, StepPerSeq: -1}, false},
	} {
		env := sim.New(sim.Limits{})
		var d serving.Replicas
		err := d.Reset(env, &tc.cfg, &eventLog{env: env})
		if tc.ok {
			assert.NoError(t, err, tc.name)
		} else {
			assert.Error(t, err, tc.name)
		}
	}
}
