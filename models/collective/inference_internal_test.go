package collective

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
	"github.com/swarmsim/swarmsim/stats"
)

// erlangC returns the probability that a call waits in an M/M/c queue with
// offered load a = λ/μ, written out from the textbook formula.
func erlangC(c int, a float64) float64 {
	sum, term := 0.0, 1.0 // term = a^k/k!
	for k := range c {
		sum += term
		term *= a / float64(k+1)
	}
	top := term / (1 - a/float64(c))
	return top / (sum + top)
}

// mmc is an M/M/c queue: Poisson arrivals at rate lambda, c servers,
// exponential service at rate mu.
type mmc struct {
	lambda, mu float64
	c          int
}

// apiQueue runs the hosted API alone as the M/M/c queue q: a concurrency cap
// of q.c, no rate limit, and calls whose time to first token is exponential
// with rate q.mu and that have no output. It returns the mean wait of the
// calls after the warm-up, and checks that the trace's queue slices add up
// to the serving wait.
func apiQueue(t *testing.T, q mmc, warmup, calls int, seed uint64) float64 {
	lambda, mu, c := q.lambda, q.mu, q.c
	g, err := task.New([]task.Node{{Name: "call"}}, nil)
	require.NoError(t, err)
	cfg := Defaults()
	cfg.API = serving.API{Concurrency: c, TTFT: sim.Exponential(1 / mu), OutputRate: 1}
	// The episode is over from the start, so a call's end does nothing
	// more (stale): the queue is all there is.
	ep := &episode{env: sim.New(sim.Limits{}), g: g, cfg: cfg, res: &Result{Trace: &Trace{}}, done: true}
	streams := sim.NewStreams(seed)
	require.NoError(t, ep.shareInference(streams))
	at := &attempt{nodes: make([]nodeState, 1)}
	// An agent has one call at a time; customers reuse a ring of agents
	// far larger than the queue ever gets.
	const ring = 1 << 12
	agents := make([]*agent, ring)
	for i := range agents {
		agents[i] = &agent{id: i, ep: ep, at: at}
	}
	ep.agents = agents // the API names an agent by its id
	arrivals := streams.New("arrivals", 0)
	arrive := make([]sim.Time, 0, warmup+calls)
	var next func()
	next = func() {
		i := len(arrive)
		a := agents[i%ring]
		a.callsTotal = i // names the call's draw
		now := ep.env.Now()
		a.activity = now
		a.req = request{}
		arrive = append(arrive, now)
		ep.server.submit(a, 0)
		if len(arrive) < warmup+calls {
			d, _ := sim.FromSeconds(arrivals.ExpFloat64() / lambda)
			require.NoError(t, ep.env.Call(d, next))
		}
	}
	require.NoError(t, ep.env.Call(0, next))
	require.NoError(t, ep.env.Run())
	require.Zero(t, ep.server.(*hostedAPI).Len())

	// Waits from the trace's queue slices, which start at the arrival.
	waits := map[sim.Time]sim.Time{}
	var total sim.Time
	for _, s := range ep.res.Trace.Spans {
		if s.Kind == "queue" {
			waits[s.Start] = s.End - s.Start
			total += s.End - s.Start
		}
	}
	require.Equal(t, ep.res.ServingWait, total)
	sum := 0.0
	for _, t := range arrive[warmup:] {
		sum += waits[t].Seconds()
	}
	return sum / float64(calls)
}

// TestAPIErlangC compares the hosted API's queue with the M/M/c waiting
// time: the mean wait over 40 independent replications (seeds) has a 99%
// Student-t interval that must contain the Erlang C value and be narrower
// than ±5% of it. Two loads, each on its own seeds. (Near saturation the
// means of single runs are skewed and a t interval over 20 of them is too
// narrow; 400 replications at ρ = 0.75 agreed with Erlang C to 0.5%.)
func TestAPIErlangC(t *testing.T) {
	const reps = 40
	calls := 25_000
	maxRel := 0.05
	if race.Enabled {
		calls, maxRel = 2_500, 0.25 // race runs look for data races; full runs check the numbers
	}
	for _, m := range []struct {
		mmc
		seeds uint64 // first of reps
	}{
		{mmc{2, 1, 4}, 1},    // ρ = 0.5
		{mmc{1.2, 1, 2}, 41}, // ρ = 0.6
	} {
		a := m.lambda / m.mu
		want := erlangC(m.c, a) / (float64(m.c)*m.mu - m.lambda)
		var means []float64
		for s := range uint64(reps) {
			means = append(means, apiQueue(t, m.mmc, 5000, calls, m.seeds+s))
		}
		mean, sd := 0.0, 0.0
		for _, x := range means {
			mean += x
		}
		mean /= reps
		for _, x := range means {
			sd += (x - mean) * (x - mean)
		}
		sd = math.Sqrt(sd / (reps - 1))
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: reps - 1}.Quantile(0.995) * sd / math.Sqrt(reps)
		t.Logf("M/M/%d ρ=%.2f: Wq %.4f ± %.4f s (99%% CI, %d seeds × %d calls), Erlang C %.4f s", m.c, a/float64(m.c), mean, half, reps, calls, want)
		require.Less(t, half, maxRel*want, "CI too wide to be a test")
		require.InDelta(t, want, mean, half)
	}
}

func TestErlangCFormula(t *testing.T) {
	require.InDelta(t, 1.0/3, erlangC(2, 1), 1e-12) // textbook: c=2, a=1
	require.InDelta(t, 0.5, erlangC(1, 0.5), 1e-12) // M/M/1: P(wait) = ρ
}

// TestAPIInstantCalls: calls that take no time at the API (no time to
// first token, no output) end the instant they arrive, two of them behind a
// concurrency cap of one, and one sent later on its own; the API's timer
// does not fire again and again at that instant (the event limit would
// stop it).
func TestAPIInstantCalls(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "call"}}, nil)
	require.NoError(t, err)
	cfg := Defaults()
	cfg.API = serving.API{Concurrency: 1, TTFT: sim.Const(0), OutputRate: 1}
	ep := &episode{env: sim.New(sim.Limits{MaxEvents: 100}), g: g, cfg: cfg, res: &Result{}, done: true}
	require.NoError(t, ep.shareInference(sim.NewStreams(1)))
	at := &attempt{nodes: make([]nodeState, 1)}
	for i, sent := range []sim.Time{0, 0, sim.Second} {
		a := &agent{id: i, ep: ep, at: at, callsTotal: i}
		ep.agents = append(ep.agents, a)
		require.NoError(t, ep.env.Call(sent, func() { ep.server.submit(a, 0) }))
	}
	require.NoError(t, ep.env.Run())
	require.Equal(t, 3, ep.res.ServedCalls)
	require.Zero(t, ep.res.ServingTime, "every call ends when it arrives")
	require.Equal(t, sim.Second, ep.env.Now())
	require.Zero(t, ep.server.(*hostedAPI).Len())
}

// TestAPITimeToFirstToken checks the hosted API's draws of the time to
// first token: a call's draw is named by the call (attempt, part, try,
// loop iteration and call; a check by its part and count), not by the agent
// that makes it or the time, and over many calls the draws follow the
// configured log-normal: a one-sample Kolmogorov–Smirnov test at α = 0.001
// on 20000 calls, on three seeds, which rejects a log-normal whose cv is 10%
// off.
func TestAPITimeToFirstToken(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "a"}, {Name: "b"}}, nil)
	require.NoError(t, err)
	const mean, cv, rate, output = 0.6, 0.5, 80.0, 40
	cfg := Defaults()
	cfg.API = serving.API{TTFT: sim.LogNormal(mean, cv), OutputRate: rate}
	lognormal := func(cv float64) distuv.LogNormal {
		s2 := math.Log1p(cv * cv)
		return distuv.LogNormal{Mu: math.Log(mean) - s2/2, Sigma: math.Sqrt(s2)}
	}
	const n = 20000
	crit := 1.949 / math.Sqrt(n) // the asymptotic critical value at α = 0.001
	for _, seed := range []uint64{1, 2, 3} {
		ep := &episode{env: sim.New(sim.Limits{}), g: g, cfg: cfg, res: &Result{}}
		require.NoError(t, ep.shareInference(sim.NewStreams(seed)))
		ttft := func(a *agent) float64 {
			a.req.Output = output
			d, err := ep.server.(*hostedAPI).serviceTime(a)
			require.NoError(t, err)
			return d.Seconds() - output/rate
		}
		// Calls that differ in one part of their name each, and checks.
		var xs []float64
		for i := range n {
			at := &attempt{id: i % 100, nodes: make([]nodeState, 2)}
			a := &agent{id: i, ep: ep, at: at, cur: task.ID(i / 100 % 2)}
			at.nodes[a.cur].tries = int32(i / 200 % 10)
			a.iteration = i / 2000
			a.callsTotal = 1
			if i%7 == 0 {
				a.req.check, a.req.node = true, a.cur
				at.nodes[a.cur].checks = int32(i / 200)
			}
			xs = append(xs, ttft(a))
		}
		slices.Sort(xs)
		require.Less(t, stats.KSDistance(xs, lognormal(cv).CDF), crit, "seed %d", seed)
		require.Greater(t, stats.KSDistance(xs, lognormal(1.1*cv).CDF), crit, "seed %d: the test tells a 10%% larger cv apart", seed)

		// The same call made by another agent, later, draws the same; the
		// next call of the same part, or its next try, draws another.
		at := &attempt{id: 3, nodes: make([]nodeState, 2)}
		a := &agent{id: 1, ep: ep, at: at, cur: 1, callsTotal: 2, callsLeft: 1}
		first := ttft(a)
		require.NoError(t, ep.env.Call(sim.Minute, func() {}))
		require.NoError(t, ep.env.Run())
		b := &agent{id: 9, ep: ep, at: at, cur: 1, callsTotal: 2, callsLeft: 1}
		require.Equal(t, first, ttft(b), "a call's draw is named by the call")
		b.callsLeft = 0
		require.NotEqual(t, first, ttft(b), "the next call")
		b.callsLeft, at.nodes[1].tries = 1, 1
		require.NotEqual(t, first, ttft(b), "the next try")
	}
}

// TestAPIQueueIsFIFO: calls wait in one queue for every limit, first come
// first served. A token bucket of 1000 a minute (16⅔ a second) admits a
// call of 800 tokens at once and leaves 200; the next call, of 600, waits
// 24 s for 400 more; the third, of 100, would fit at once but waits behind
// it, and then 6 s for its own 100 after the second took the bucket's 600:
// admitted at 30 s. Every call takes 1 s.
func TestAPIQueueIsFIFO(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "call"}}, nil)
	require.NoError(t, err)
	cfg := Defaults()
	cfg.API = serving.API{TPM: 1000, TTFT: sim.Const(1), OutputRate: 1}
	ep := &episode{env: sim.New(sim.Limits{MaxEvents: 100}), g: g, cfg: cfg, res: &Result{Trace: &Trace{}}, done: true}
	require.NoError(t, ep.shareInference(sim.NewStreams(1)))
	at := &attempt{nodes: make([]nodeState, 1)}
	s := sim.Second
	for i, prompt := range []int64{800, 600, 100} {
		a := &agent{id: i, ep: ep, at: at, callsTotal: i}
		ep.agents = append(ep.agents, a)
		a.req = request{}
		a.req.Prompt = prompt
		require.NoError(t, ep.env.Call(0, func() { ep.server.submit(a, 0) }))
	}
	require.NoError(t, ep.env.Run())
	var waits [][2]sim.Time
	for _, sp := range ep.res.Trace.Spans {
		if sp.Kind == "queue" {
			waits = append(waits, [2]sim.Time{sp.Start, sp.End})
		}
	}
	require.Equal(t, [][2]sim.Time{{0, 24 * s}, {0, 30 * s}}, waits, "the first call does not wait")
	require.Equal(t, 54*s, ep.res.ServingWait)
	require.Equal(t, 31*s, ep.env.Now(), "the last call ends 1 s after it is admitted")
	require.Equal(t, 3, ep.res.ServedCalls)
}

// TestAPICallTooLarge: a call of more tokens than the token bucket holds
// could never be admitted: the episode ends with an error that says so,
// not a stall.
func TestAPICallTooLarge(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "call"}}, nil)
	require.NoError(t, err)
	cfg := Defaults()
	cfg.API = serving.API{TPM: 1000, TTFT: sim.Const(1), OutputRate: 1}
	ep := &episode{env: sim.New(sim.Limits{MaxEvents: 100}), g: g, cfg: cfg, res: &Result{}, done: true}
	require.NoError(t, ep.shareInference(sim.NewStreams(1)))
	a := &agent{ep: ep, at: &attempt{nodes: make([]nodeState, 1)}}
	ep.agents = []*agent{a}
	a.req = request{}
	a.req.Prompt, a.req.Output = 900, 101
	require.NoError(t, ep.env.Call(0, func() { ep.server.submit(a, 0) }))
	require.NoError(t, ep.env.Run())
	require.ErrorIs(t, ep.err, serving.ErrTooLarge)
	require.ErrorContains(t, ep.err, "collective: api.tpm: a call of 1001 tokens can never be admitted")
	require.Zero(t, ep.res.ServedCalls)
}

// TestToolCallsAfter: an attempt's tool calls are spread evenly over its
// model calls, the remainder after the later ones, and all of them are
// made.
func TestToolCallsAfter(t *testing.T) {
	for _, tc := range []struct {
		total, calls int
		want         []int
	}{
		{0, 3, []int{0, 0, 0}},
		{1, 1, []int{1}},
		{1, 3, []int{0, 0, 1}},
		{2, 3, []int{0, 1, 1}},
		{5, 3, []int{1, 2, 2}},
		{6, 3, []int{2, 2, 2}},
		{3, 2, []int{1, 2}},
	} {
		var got []int
		for j := 1; j <= tc.calls; j++ {
			got = append(got, toolCallsAfter(tc.total, j, tc.calls))
		}
		require.Equal(t, tc.want, got, "%d tool calls over %d model calls", tc.total, tc.calls)
	}
}

// TestDrawToolCalls: the number of tool calls is the draw rounded to the
// nearest whole number (halves up), and at most maxToolCalls, so that a
// typo in a distribution cannot stall an episode in tool calls; no tools
// means none.
func TestDrawToolCalls(t *testing.T) {
	for _, tc := range []struct {
		calls sim.Dist
		want  int
	}{
		{sim.Const(2.4), 2},
		{sim.Const(2.5), 3},
		{sim.Const(0), 0},
		{sim.Const(3e9), maxToolCalls},
	} {
		g, err := task.New([]task.Node{{Name: "a"}}, nil)
		require.NoError(t, err)
		g = g.WithTools(task.Tools{Calls: tc.calls, Latency: sim.Const(1)})
		ep := &episode{env: sim.New(sim.Limits{}), g: g, cfg: Defaults(), res: &Result{}}
		require.NoError(t, ep.shareInference(sim.NewStreams(1)))
		a := &agent{ep: ep, at: &attempt{nodes: make([]nodeState, 1)}}
		require.Equal(t, tc.want, a.drawToolCalls(), "%v", tc.calls)
	}
}

// TestAPIDrawsAhead: the times to first token an agent's calls get, some
// drawn ahead with the part's other calls, are those each call draws by
// its own name, whatever the agent does between them: parts of many calls
// (more than are drawn ahead), parts dropped halfway, checks expected or
// not, loop iterations, tries, and the same call made by another agent.
func TestAPIDrawsAhead(t *testing.T) {
	g, err := task.New([]task.Node{{Name: "a"}, {Name: "b"}, {Name: "c"}}, nil)
	require.NoError(t, err)
	cfg := Defaults()
	cfg.API = serving.API{TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
	for seed := range uint64(10) {
		ep := &episode{env: sim.New(sim.Limits{}), g: g, cfg: cfg, res: &Result{}}
		require.NoError(t, ep.shareInference(sim.NewStreams(seed)))
		h := ep.server.(*hostedAPI)
		rng := rand.New(rand.NewPCG(seed, 7))
		at := &attempt{id: 2, nodes: make([]nodeState, 3)}
		agents := []*agent{{id: 0, ep: ep, at: at}, {id: 1, ep: ep, at: at}}
		hits, calls := 0, 0
		for range 400 {
			a := agents[rng.IntN(len(agents))]
			a.cur = task.ID(rng.IntN(3))
			a.iteration = rng.IntN(2)
			at.nodes[a.cur].tries = int32(rng.IntN(3))
			a.callsTotal = 1 + rng.IntN(2*aheadCalls+3)
			a.callsLeft = a.callsTotal - rng.IntN(2) // now and then from the second call
			for a.callsLeft > 0 && rng.IntN(12) > 0 {
				a.req = request{}
				x, y := a.workKey()
				hits += b2i(a.id < len(h.ahead) && h.ahead[a.id].next < h.ahead[a.id].n && h.ahead[a.id].y == y && h.ahead[a.id].x == x)
				require.Equal(t, serviceTime(h, a, h.draw(x, y)), serviceTime(h, a, -1), "seed %d: call %d of %d", seed, a.callsTotal-a.callsLeft, a.callsTotal)
				calls++
				a.callsLeft--
			}
			if rng.IntN(3) > 0 {
				v := task.ID(rng.IntN(3)) // usually the part, sometimes another
				if rng.IntN(2) == 0 {
					v = a.cur
				}
				at.nodes[v].checks++
				a.req = request{check: true, node: v}
				x, y := checkKey(at, v)
				require.Equal(t, serviceTime(h, a, h.draw(x, y)), serviceTime(h, a, -1), "seed %d: check", seed)
			}
		}
		require.Greater(t, hits, calls/2, "seed %d: most calls find their draw done ahead", seed)
	}
}

// serviceTime returns the API's service time of the agent's call given its
// time to first token, or as serviceTime works it out for -1.
func serviceTime(h *hostedAPI, a *agent, ttft float64) sim.Time {
	a.req.Output = 40
	if ttft < 0 {
		d, err := h.serviceTime(a)
		if err != nil {
			panic(err)
		}
		return d
	}
	d, err := sim.FromSeconds(ttft + 40/h.ep.cfg.API.OutputRate)
	if err != nil {
		panic(err)
	}
	return d
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
