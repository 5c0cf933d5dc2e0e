package replay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

const ms = sim.Millisecond

// handRun is a run worked out by hand: the root calls the model, then
// starts agents a and b at once; a calls the model and then a tool, b
// calls a tool; the root calls the model again when both have ended.
func handRun() replay.Run {
	a := &replay.Agent{Name: "a", Steps: []replay.Step{
		{Kind: replay.ModelCall, Name: "m", Recorded: 900 * ms, Gap: 10 * ms},
		{Kind: replay.ToolCall, Name: "search", Recorded: 2000 * ms, After: []int{0}},
	}}
	b := &replay.Agent{Name: "b", Steps: []replay.Step{
		{Kind: replay.ToolCall, Name: "read", Recorded: 500 * ms},
	}, Tail: 100 * ms}
	return replay.Run{ID: "hand", Duration: 5 * sim.Second, Root: replay.Agent{Name: "root", Steps: []replay.Step{
		{Kind: replay.ModelCall, Name: "m", Recorded: 1100 * ms},
		{Kind: replay.SubAgent, Name: "a", Agent: a, After: []int{0}, Gap: 100 * ms},
		{Kind: replay.SubAgent, Name: "b", Agent: b, After: []int{0}, Gap: 300 * ms},
		{Kind: replay.ModelCall, Name: "m", Recorded: 1000 * ms, After: []int{0, 1, 2}, Gap: 50 * ms},
	}, Tail: 300 * ms}}
}

// oneSecondAPI is a hosted API whose every call takes one second.
func oneSecondAPI() replay.Deployment {
	return replay.Deployment{APIs: []serving.API{{TTFT: sim.Const(1), OutputRate: 1e9}}}
}

// TestReplayByHand replays handRun with every model call taking one
// second: root's call 0–1 s; a from 1.1 s (its call 1.11–2.11 s, its
// tool 2.11–4.11 s); b from 1.3 s (its tool 1.3–1.8 s, ending 1.9 s);
// root's last call from 4.16 s to 5.16 s; the run ends at 5.46 s. Agents
// a and b overlap, as they did.
func TestReplayByHand(t *testing.T) {
	for _, pairing := range []replay.Pairing{replay.Rank, replay.Independent} {
		res, err := replay.Replay([]replay.Run{handRun()}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Sessions: 1}, Pairing: pairing, Spans: true})
		require.NoError(t, err)
		require.Len(t, res, 1)
		r := res[0]
		require.Equal(t, 5460*ms, r.Replayed())
		require.Equal(t, 5*sim.Second, r.Recorded)
		require.Equal(t, 3*sim.Second, r.ModelTime)
		require.Equal(t, 2500*ms, r.ToolTime)
		require.Equal(t, sim.Time(0), r.Delay)
		require.Equal(t, 3, r.Calls)
		require.Equal(t, 2, r.Tools)
		require.Len(t, r.Agents, 3)
		want := []replay.AgentSpan{{"root", -1, 0, 5460 * ms}, {"a", 0, 1100 * ms, 4110 * ms}, {"b", 0, 1300 * ms, 1900 * ms}}
		require.Equal(t, want, r.Agents)
	}
}

// TestReplayWaitsAtALimit replays handRun twice at once (two sessions)
// against an API that serves one call at a time. Session 0's first call
// takes 0–1 s; session 1's waits for it (1 s) and takes 1–2 s; session
// 0's agent a sends its call at 1.11 s and waits 0.89 s for it; session
// 1's agent a sends its call at 2.11 s, behind session 0's (2–3 s), and
// waits 0.89 s. By then session 0's last call (5.05 s) finds the API
// free, and session 1's (6.05 s) arrives as it ends.
func TestReplayWaitsAtALimit(t *testing.T) {
	dep := oneSecondAPI()
	dep.APIs[0].Concurrency = 1
	res, err := replay.Replay([]replay.Run{handRun()}, replay.Config{Deployment: dep, Load: replay.Load{Sessions: 2, Runs: 2}})
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.Equal(t, 890*ms, res[0].Delay)
	require.GreaterOrEqual(t, res[1].Delay, 1890*ms)
	require.Equal(t, 6050*ms+300*ms, res[0].Replayed())
	require.Greater(t, res[1].Replayed(), res[0].Replayed())
}

func TestReplayErrors(t *testing.T) {
	bad := handRun()
	bad.Root.Steps[1].After = []int{3}
	self := handRun()
	self.Root.Steps[1].After = []int{1}
	badAgent := handRun()
	badAgent.Root.Steps[1].Agent.Steps[0].Recorded = -ms
	cases := []struct {
		name string
		runs []replay.Run
		cfg  replay.Config
		want string
	}{
		{"no runs", nil, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Sessions: 1}}, "no runs"},
		{"later step", []replay.Run{bad}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Sessions: 1}}, "not an earlier step"},
		{"after itself", []replay.Run{self}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Sessions: 1}}, "after step 1, which is not an earlier step"},
		{"bad sub-agent", []replay.Run{badAgent}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Sessions: 1}}, "negative time"},
		{"no sessions", []replay.Run{handRun()}, replay.Config{Deployment: oneSecondAPI()}, "0 sessions"},
		{"no rate", []replay.Run{handRun()}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Mode: replay.Poisson}}, "rate 0"},
		{"no speed-up", []replay.Run{handRun()}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Mode: replay.Recorded}}, "speed-up 0"},
		{"recorded runs", []replay.Run{handRun()}, replay.Config{Deployment: oneSecondAPI(), Load: replay.Load{Mode: replay.Recorded, Speedup: 1, Runs: 3}}, "starts once"},
		{"no server", []replay.Run{handRun()}, replay.Config{Load: replay.Load{Sessions: 1}}, "neither replicas nor an API"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := replay.Replay(c.runs, c.cfg)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestRankPairing replays a chain of model calls whose recorded latencies
// are in no order against an API with spread-out times to first token:
// with Rank pairing the replayed calls' durations keep the recorded
// calls' order (a slow call stays slow); drawn independently they keep it
// with probability 1/8!.
func TestRankPairing(t *testing.T) {
	recorded := []sim.Time{5, 1, 8, 3, 2, 7, 4, 6}
	steps := make([]replay.Step, len(recorded))
	for i, s := range recorded {
		steps[i] = replay.Step{Kind: replay.ModelCall, Name: "m", Recorded: s * sim.Second}
		if i > 0 {
			steps[i].After = []int{i - 1}
		}
	}
	run := replay.Run{ID: "chain", Duration: 40 * sim.Second, Root: replay.Agent{Name: "root", Steps: steps}}
	api := replay.Deployment{APIs: []serving.API{{TTFT: sim.Uniform(1, 10), OutputRate: 1e9}}}
	res, err := replay.Replay([]replay.Run{run}, replay.Config{Deployment: api, Load: replay.Load{Sessions: 1}, Pairing: replay.Rank, Spans: true, Seed: 3})
	require.NoError(t, err)
	spans := res[0].Spans
	require.Len(t, spans, len(recorded))
	for i := range spans {
		for j := range spans {
			if recorded[i] < recorded[j] {
				require.Less(t, spans[i].End-spans[i].Start, spans[j].End-spans[j].Start, "calls %d and %d", i, j)
			}
		}
	}
}

// TestCallTime replays one model call alone on an API: it takes the time
// to first token and then its output tokens at the API's output rate.
func TestCallTime(t *testing.T) {
	cases := []struct {
		ttft, rate float64
		output     int64
	}{{1, 50, 100}, {0.5, 20, 30}, {2, 1e9, 7}}
	for _, pairing := range []replay.Pairing{replay.Rank, replay.Independent} {
		for _, c := range cases {
			run := replay.Run{ID: "one", Duration: sim.Second, Root: replay.Agent{Name: "root", Steps: []replay.Step{
				{Kind: replay.ModelCall, Name: "m", Recorded: sim.Second, Prompt: 10, Output: c.output, HasTokens: true},
			}}}
			api := replay.Deployment{APIs: []serving.API{{TTFT: sim.Const(c.ttft), OutputRate: c.rate}}}
			res, err := replay.Replay([]replay.Run{run}, replay.Config{Deployment: api, Load: replay.Load{Sessions: 1}, Pairing: pairing, Spans: true})
			require.NoError(t, err)
			require.Len(t, res[0].Spans, 1)
			got := (res[0].Spans[0].End - res[0].Spans[0].Start).Seconds()
			require.InDelta(t, c.ttft+float64(c.output)/c.rate, got, 1e-6, "%+v, pairing %v", c, pairing)
		}
	}
}
