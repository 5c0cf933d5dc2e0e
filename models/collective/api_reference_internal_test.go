package collective

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// refCall is one call of TestAPIMatchesReference: when it was sent (and
// in what order at that time), when it arrives, its tokens and its time at
// the API once admitted.
type refCall struct {
	sent, arrive, service sim.Time
	order                 int
	tokens                int64
}

// referenceAdmissions works out the admissions of calls at an API of cfg
// the slow way, from the rules rather than from the API's recursion: the
// calls queue in order of arrival (those arriving together in the order
// they were sent), and the first is admitted at the first instant from
// its arrival and the admission before it at which fewer than the cap's
// calls admitted before it are still in flight (a call ending at t has
// left at t) and both buckets hold its tokens; it takes them then.
func referenceAdmissions(t *testing.T, cfg API, calls []refCall) []sim.Time {
	bucket := func(perMinute int64) *sim.TokenBucket {
		if perMinute == 0 {
			return nil
		}
		b, err := sim.NewTokenBucket(perMinute, sim.Minute, perMinute)
		require.NoError(t, err)
		return b
	}
	rpm, tpm := bucket(cfg.RPM), bucket(cfg.TPM)
	fifo := make([]int, len(calls))
	for i := range fifo {
		fifo[i] = i
	}
	slices.SortStableFunc(fifo, func(i, j int) int {
		a, b := &calls[i], &calls[j]
		return cmp.Or(cmp.Compare(a.arrive, b.arrive), cmp.Compare(a.sent, b.sent), cmp.Compare(a.order, b.order))
	})
	admit := make([]sim.Time, len(calls))
	var ends []sim.Time // of the calls admitted so far
	last := sim.Time(0)
	for _, i := range fifo {
		c := &calls[i]
		at := max(c.arrive, last)
		for {
			next := at
			if cfg.Concurrency > 0 {
				var later []sim.Time // ends of the calls still in flight at at
				for _, e := range ends {
					if e > at {
						later = append(later, e)
					}
				}
				if len(later) >= cfg.Concurrency {
					slices.Sort(later)
					next = later[len(later)-cfg.Concurrency] // enough of them have left then
				}
			}
			for _, b := range []struct {
				b *sim.TokenBucket
				n int64
			}{{rpm, 1}, {tpm, c.tokens}} {
				if b.b != nil {
					ready, err := b.b.Ready(at, b.n)
					require.NoError(t, err)
					next = max(next, ready)
				}
			}
			if next == at {
				break
			}
			at = next
		}
		if rpm != nil {
			require.True(t, rpm.Take(at, 1))
		}
		if tpm != nil {
			require.True(t, tpm.Take(at, c.tokens))
		}
		admit[i], last = at, at
		ends = append(ends, at+c.service)
	}
	return admit
}

// sendAPICalls sends the calls to a hosted API of cfg, each a check of
// a part of its own (so that its draw is its own) of the tokens given,
// runs them with the draws of seed and returns the episode; it sets the
// calls' service times.
func sendAPICalls(t *testing.T, cfg API, seed uint64, calls []refCall, prompts, outputs []int64) *episode {
	g, err := task.New([]task.Node{{Name: "call"}}, nil)
	require.NoError(t, err)
	c := Defaults()
	c.API = cfg
	ep := &episode{env: sim.New(sim.Limits{}), g: g, cfg: c, res: &Result{}, done: true}
	require.NoError(t, ep.shareInference(sim.NewStreams(seed)))
	for i := range calls {
		a := &agent{id: i, ep: ep, at: &attempt{id: i, nodes: make([]nodeState, 1)}}
		ep.agents = append(ep.agents, a)
		a.req = request{prompt: prompts[i], output: outputs[i], check: true}
		calls[i].tokens, calls[i].order = prompts[i]+outputs[i], i
		delay := calls[i].arrive - calls[i].sent
		require.NoError(t, ep.env.Call(calls[i].sent, func() {
			a.activity = ep.env.Now()
			ep.server.submit(a, delay)
		}))
	}
	require.NoError(t, ep.env.Run())
	require.NoError(t, ep.err)
	require.Equal(t, len(calls), ep.res.ServedCalls)
	for i, a := range ep.agents {
		calls[i].service = a.req.service
	}
	return ep
}

// requireReference checks the episode's admissions, waits and call times
// against referenceAdmissions; it returns the waits.
func requireReference(t *testing.T, cfg API, calls []refCall, ep *episode, name string) sim.Time {
	want := referenceAdmissions(t, cfg, calls)
	var wait, time sim.Time
	for i, a := range ep.agents {
		require.Equal(t, want[i], a.req.api.admit, "%s: call %d sent at %v, arriving at %v", name, i, calls[i].sent, calls[i].arrive)
		wait += want[i] - calls[i].arrive
		time += want[i] + calls[i].service - calls[i].arrive
	}
	require.Equal(t, wait, ep.res.ServingWait, "%s: the waits", name)
	require.Equal(t, time, ep.res.ServingTime, "%s: the calls end when admitted and served", name)
	return wait
}

// TestAPIMatchesReference checks the hosted API's admissions and ends
// against referenceAdmissions, on APIs of every kind of limit and their
// combinations, 8 seeds each: calls sent at random with random delays, so
// that many overtake calls already scheduled, half of the runs on a grid of
// whole seconds with calls of whole seconds or none at the API, so that
// sends, arrivals, admissions and ends tie. By hand: a call that the
// request bucket lets in at once waits for the token bucket, and the
// request it takes is the one at its admission (taken at its arrival from
// a full bucket, it would be refilled by then and let one more in).
func TestAPIMatchesReference(t *testing.T) {
	apis := []API{
		{Concurrency: 2, TTFT: sim.Exponential(2), OutputRate: 100},
		{RPM: 20, TTFT: sim.Exponential(0.5), OutputRate: 100},
		{TPM: 15000, TTFT: sim.Const(1), OutputRate: 1e7},
		{RPM: 30, TPM: 20000, Concurrency: 3, TTFT: sim.LogNormal(2, 0.5), OutputRate: 80},
		{RPM: 60, Concurrency: 1, TTFT: sim.Const(2), OutputRate: 1e7},
		{TPM: 12000, Concurrency: 4, TTFT: sim.Const(0), OutputRate: 1e7},
	}
	const n = 120
	for k, api := range apis {
		for seed := range uint64(8) {
			grid := seed%2 == 0
			r := sim.NewStreams(seed).New("calls", uint64(k))
			calls := make([]refCall, n)
			prompts, outputs := make([]int64, n), make([]int64, n)
			overtakes, latest := 0, sim.Time(0)
			for i := range calls {
				c := &calls[i]
				if grid {
					c.sent = sim.Time(r.IntN(60)) * sim.Second
					c.arrive = c.sent + sim.Time(r.IntN(4))*sim.Second
				} else {
					c.sent = sim.Time(r.Float64() * float64(150*sim.Second))
					c.arrive = c.sent + sim.Time(r.Float64()*float64(6*sim.Second))
				}
				if c.arrive < latest {
					overtakes++
				}
				latest = max(latest, c.arrive)
				prompts[i], outputs[i] = 100+r.Int64N(900), r.Int64N(300)
				if grid && r.IntN(3) == 0 {
					outputs[i] = 0
				}
			}
			ep := sendAPICalls(t, api, seed, calls, prompts, outputs)
			name := fmt.Sprintf("api %d, seed %d", k, seed)
			require.Greater(t, requireReference(t, api, calls, ep, name), sim.Time(0), "%s: calls wait", name)
			require.Greater(t, overtakes, 10, "%s: calls overtake others", name)
		}
	}

	// Two calls of a minute's tokens and two of one token, sent together:
	// the second waits a minute for the token bucket, with the request
	// bucket full; the fourth then waits for the request bucket.
	api := API{RPM: 2, TPM: 1000, TTFT: sim.Const(0), OutputRate: 1e7}
	calls := make([]refCall, 4)
	ep := sendAPICalls(t, api, 1, calls, []int64{1000, 1000, 1, 1}, []int64{0, 0, 0, 0})
	requireReference(t, api, calls, ep, "by hand")
	require.Equal(t, sim.Minute, ep.agents[1].req.api.admit)
	require.Greater(t, ep.agents[3].req.api.admit, sim.Minute+20*sim.Second, "the request bucket holds one request after the second call's")
}
