package serving

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/sim"
)

// recorder is a Client that records when each call is admitted and done.
type recorder struct {
	env         *sim.Env
	admit, done []sim.Time
	err         error
	stats       Stats // at the end
}

func (r *recorder) Admitted(id int, at sim.Time) { r.admit[id] = at }
func (r *recorder) Done(id int)                  { r.done[id] = r.env.Now() }
func (r *recorder) Fail(err error)               { r.err = err }

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
	bucket := func(perMinute int64) *TokenBucket {
		if perMinute == 0 {
			return nil
		}
		b, err := NewTokenBucket(perMinute, sim.Minute, perMinute)
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
				b *TokenBucket
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

// apiLoad is what sendAPICalls sends: the calls, with their prompt and
// output tokens.
type apiLoad struct {
	calls            []refCall
	prompts, outputs []int64
}

// sendAPICalls sends the load's calls to a hosted API of cfg, with times to
// first token drawn from cfg.TTFT with the draws of seed, runs them and
// returns what the client recorded; it sets the calls' tokens, order and
// service times. rebuild, if set, is called before every call is sent.
func sendAPICalls(t *testing.T, cfg API, seed uint64, load apiLoad, rebuild func(*Hosted)) *recorder {
	calls, prompts, outputs := load.calls, load.prompts, load.outputs
	env := sim.New(sim.Limits{})
	rec := &recorder{env: env, admit: make([]sim.Time, len(calls)), done: make([]sim.Time, len(calls))}
	var h Hosted
	require.NoError(t, h.Reset(env, &cfg, rec))
	ttft, r := cfg.TTFT.Sampler(), sim.NewStreams(seed).New("ttft", 0)
	cs := make([]Call, len(calls))
	for i := range calls {
		c := &cs[i]
		service, err := sim.FromSeconds(ttft.Sample(r) + float64(outputs[i])/cfg.OutputRate)
		require.NoError(t, err)
		*c = Call{ID: i, Prompt: prompts[i], Output: outputs[i], Service: service}
		calls[i].tokens, calls[i].order, calls[i].service = prompts[i]+outputs[i], i, service
		delay := calls[i].arrive - calls[i].sent
		require.NoError(t, env.Call(calls[i].sent, func() {
			if rebuild != nil {
				rebuild(&h)
			}
			require.NoError(t, h.Submit(c, delay))
		}))
	}
	require.NoError(t, env.Run())
	require.NoError(t, rec.err)
	require.Zero(t, h.Len())
	rec.stats = h.Finish(env.Now())
	return rec
}

// requireReference checks the recorded admissions and ends against
// referenceAdmissions; it returns the total wait.
func requireReference(t *testing.T, cfg API, calls []refCall, rec *recorder, name string) sim.Time {
	want := referenceAdmissions(t, cfg, calls)
	var wait sim.Time
	for i := range calls {
		require.Equal(t, want[i], rec.admit[i], "%s: call %d sent at %v, arriving at %v", name, i, calls[i].sent, calls[i].arrive)
		require.Equal(t, want[i]+calls[i].service, rec.done[i], "%s: call %d ends when admitted and served", name, i)
		wait += want[i] - calls[i].arrive
	}
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
			rec := sendAPICalls(t, api, seed, apiLoad{calls, prompts, outputs}, nil)
			name := fmt.Sprintf("api %d, seed %d", k, seed)
			require.Greater(t, requireReference(t, api, calls, rec, name), sim.Time(0), "%s: calls wait", name)
			require.Greater(t, overtakes, 10, "%s: calls overtake others", name)
		}
	}

	// Two calls of a minute's tokens and two of one token, sent together:
	// the second waits a minute for the token bucket, with the request
	// bucket full; the fourth then waits for the request bucket.
	api := API{RPM: 2, TPM: 1000, TTFT: sim.Const(0), OutputRate: 1e7}
	calls := make([]refCall, 4)
	rec := sendAPICalls(t, api, 1, apiLoad{calls, []int64{1000, 1000, 1, 1}, []int64{0, 0, 0, 0}}, nil)
	requireReference(t, api, calls, rec, "by hand")
	require.Equal(t, sim.Minute, rec.admit[1])
	require.Greater(t, rec.admit[3], sim.Minute+20*sim.Second, "the request bucket holds one request after the second call's")
}

// TestAPIUnscheduleUndoes: a call that arrives before calls already
// scheduled at the hosted API unschedules them and schedules them again
// behind it; undoing must restore the API exactly. Calls are sent at
// random with random delays to the API, so that many overtake others, on
// APIs of every kind of limit (rpm, tpm, a cap, calls of no time), 10
// seeds each; a second API unschedules every call not admitted yet and
// schedules them again before each call is sent. The two must give the
// same admissions, ends and figures, and the admissions of the reference.
func TestAPIUnscheduleUndoes(t *testing.T) {
	apis := []API{
		{RPM: 30, TPM: 20000, Concurrency: 2, TTFT: sim.Exponential(1), OutputRate: 50},
		{Concurrency: 3, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80},
		{TPM: 12000, TTFT: sim.Const(0.5), OutputRate: 100},
		{RPM: 20, TTFT: sim.Exponential(0.5), OutputRate: 100},
		{Concurrency: 1, TTFT: sim.Const(0), OutputRate: 1e12}, // calls of well under a microsecond
	}
	const n = 150
	for i, api := range apis {
		for seed := range uint64(10) {
			r := sim.NewStreams(seed).New("calls", 0)
			calls := make([]refCall, n)
			prompts, outputs := make([]int64, n), make([]int64, n)
			overtakes, latest := 0, sim.Time(0)
			for j := range calls {
				c := &calls[j]
				c.sent = sim.Time(r.Float64() * float64(200*sim.Second))
				c.arrive = c.sent + sim.Time(r.Float64()*float64(5*sim.Second))
				if c.arrive < latest {
					overtakes++
				}
				latest = max(latest, c.arrive)
				prompts[j], outputs[j] = 100+r.Int64N(900), r.Int64N(200)
			}
			name := fmt.Sprintf("api %d, seed %d", i, seed)
			want := sendAPICalls(t, api, seed, apiLoad{calls, prompts, outputs}, nil)
			requireReference(t, api, calls, want, name)
			got := sendAPICalls(t, api, seed, apiLoad{calls, prompts, outputs}, func(h *Hosted) {
				n := h.waiting.len()
				for j := n - 1; j >= 0; j-- {
					c, _ := h.waiting.at(j)
					h.unschedule(c)
				}
				for j := range n {
					c, _ := h.waiting.at(j)
					require.NoError(t, h.schedule(c))
				}
			})
			require.Greater(t, overtakes, 10, "%s: calls overtake others", name)
			require.Equal(t, want.admit, got.admit, name)
			require.Equal(t, want.done, got.done, name)
			require.Equal(t, want.stats, got.stats, name)
		}
	}
}
