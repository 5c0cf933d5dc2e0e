package replay

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// Deployment is where the replayed model calls go: Serving when it has
// replicas (every call, whatever its model), else the hosted APIs.
type Deployment struct {
	Serving serving.Deployment
	// APIs are hosted APIs; Route names the one (an index into APIs) that
	// serves each model's calls, and a model it does not name goes to
	// APIs[0]. APIs that Route shares share their limits.
	APIs  []serving.API
	Route map[string]int
}

// Pairing says how a model call's replayed time to first token at a
// hosted API relates to the recorded call's. Replicas need none: a call's
// time there follows from its tokens and the batch.
type Pairing uint8

const (
	// Rank pairs by quantile: the k-th shortest of a model's n recorded
	// calls (by recorded latency less its output at the API's output
	// rate) takes the API's time to first token at quantile (k−½)/n, so
	// that a run that was slow because its calls were slow stays slow, and
	// the replay's latencies have the API's distribution.
	Rank Pairing = iota
	// Independent draws each time to first token afresh.
	Independent
)

// LoadMode says when replayed runs start.
type LoadMode uint8

const (
	// Closed is a closed loop: Load.Sessions sessions each start a run
	// when their last one ends; one session replays runs one at a time.
	Closed LoadMode = iota
	// Poisson starts runs at the exponential gaps of Load.Rate a second.
	Poisson
	// Recorded starts each run at its recorded start, measured from the
	// first run's and divided by Load.Speedup.
	Recorded
)

// Load is when replayed runs start, and how many.
type Load struct {
	Mode     LoadMode
	Sessions int     // Closed: sessions at once, at least 1
	Rate     float64 // Poisson: runs a second
	Speedup  float64 // Recorded: how many times faster than recorded runs arrive
	// Runs is the number of runs replayed, the recorded runs in order and
	// again from the first; 0 is each recorded run once (Sessions times
	// for Closed, so that each session replays as many, at most MaxRuns
	// in all: Load.CheckRuns). Recorded replays each once.
	Runs int
}

// Config is a replay's deployment, load, pairing and seed.
type Config struct {
	Deployment Deployment
	Load       Load
	Pairing    Pairing
	Seed       uint64
	// Spans keeps each replayed run's spans in its Result.
	Spans bool
	// MaxEvents bounds the replay (0: no bound).
	MaxEvents uint64
}

// Result is one replayed run.
type Result struct {
	Run     int // index of the recorded run replayed
	Session int // Closed: the session that replayed it; else -1
	// Start and End are the replay's times of the run's root agent.
	Start, End sim.Time
	Recorded   sim.Time // the recorded run's duration
	// ModelTime sums its model calls' times from sending to done; Delay
	// sums what they took beyond their time alone at an idle server (the
	// serving delay: queueing for a place, and at replicas the slowdown of
	// a fuller batch and of other calls' prefills); ToolTime sums its tool
	// calls' times.
	ModelTime, ToolTime, Delay sim.Time
	Calls, Tools               int
	// Agents and Spans, when Config.Spans: the run's agents (the root
	// first) and its model and tool calls.
	Agents []AgentSpan
	Spans  []Span
}

// Replayed returns the replayed run's duration.
func (r *Result) Replayed() sim.Time { return r.End - r.Start }

// AgentSpan is one agent of a replayed run.
type AgentSpan struct {
	Name       string
	Parent     int // index into Result.Agents; -1 for the root
	Start, End sim.Time
}

// Span is one model or tool call of a replayed run.
type Span struct {
	Agent          int // index into Result.Agents
	Kind           Kind
	Name           string
	Start, End     sim.Time
	Prompt, Output int64
}

// quantiles is the number of draws from which an API's time to first
// token's quantiles are read for Rank pairing: the quantile's error is a
// fraction of a percent of the distribution's spread.
const quantiles = 1 << 14

// Replay replays runs under cfg and returns a Result per run replayed, in
// the order they started.
func Replay(runs []Run, cfg Config) ([]Result, error) {
	r, err := newReplayer(runs, &cfg)
	if err != nil {
		return nil, err
	}
	return r.run()
}

// replayer is the state of one replay.
type replayer struct {
	env  *sim.Env
	cfg  *Config
	runs []Run
	// succ lists, per agent and step, the steps that wait for it.
	succ map[*Agent][][]int
	// ttft is each model call's paired time to first token (Rank);
	// tokens the prompt and output it is replayed with.
	ttft   map[*Step]sim.Time
	tokens map[*Step][2]int64
	draws  *rand.Rand // Independent's times to first token
	dep    *serving.Replicas
	apis   []*serving.Hosted
	calls  []*inflight // by call ID; nil once done
	free   []int       // IDs of done calls, for reuse
	res    []Result
	ended  int // runs ended
	total  int
	next   int // the next run to start
	err    error
}

// inflight is a model call at a server.
type inflight struct {
	ag    *agentRun
	step  int
	call  serving.Call
	sent  sim.Time
	alone sim.Time // its time at an idle server
}

// agentRun is an agent being replayed.
type agentRun struct {
	a          *Agent
	res        *Result
	parent     *agentRun
	parentStep int
	index      int   // in res.Agents, when spans are kept
	left       []int // per step, the steps of After not yet ended
	pending    int   // steps not yet ended
	done       func()
}

func newReplayer(runs []Run, cfg *Config) (*replayer, error) {
	if len(runs) == 0 {
		return nil, errors.New("replay: no runs")
	}
	r := &replayer{env: sim.New(sim.Limits{MaxEvents: cfg.MaxEvents}), cfg: cfg, runs: runs,
		succ: map[*Agent][][]int{}, ttft: map[*Step]sim.Time{}, tokens: map[*Step][2]int64{}}
	for i := range runs {
		if err := runs[i].Root.check(runs[i].ID); err != nil {
			return nil, err
		}
		runs[i].Root.walk(func(a *Agent) {
			succ := make([][]int, len(a.Steps))
			for j, s := range a.Steps {
				for _, k := range s.After {
					succ[k] = append(succ[k], j)
				}
			}
			r.succ[a] = succ
		})
	}
	if err := r.checkLoad(); err != nil {
		return nil, err
	}
	r.fillTokens()
	streams := sim.NewStreams(cfg.Seed)
	r.draws = streams.New("replay-ttft", 0)
	d := &cfg.Deployment
	switch {
	case !d.Serving.IsZero():
		r.dep = &serving.Replicas{}
		if err := r.dep.Reset(r.env, &d.Serving, r); err != nil {
			return nil, fmt.Errorf("serving: %w", err)
		}
	case len(d.APIs) > 0:
		for i := range d.APIs {
			h := &serving.Hosted{}
			if err := h.Reset(r.env, &d.APIs[i], r); err != nil {
				return nil, fmt.Errorf("api %d: %w", i, err)
			}
			r.apis = append(r.apis, h)
		}
		for m, i := range d.Route {
			if i < 0 || i >= len(d.APIs) {
				return nil, fmt.Errorf("replay: model %s routed to API %d of %d", m, i, len(d.APIs))
			}
		}
		if cfg.Pairing == Rank {
			if err := r.pair(streams); err != nil {
				return nil, err
			}
		}
	default:
		return nil, errors.New("replay: the deployment has neither replicas nor an API")
	}
	return r, nil
}

func (r *replayer) checkLoad() error {
	l := &r.cfg.Load
	if l.Runs < 0 {
		return fmt.Errorf("replay: %d runs: want at least 0", l.Runs)
	}
	r.total = l.Runs
	switch l.Mode {
	case Closed:
		if l.Sessions < 1 || l.Sessions > MaxSessions {
			return fmt.Errorf("replay: %d sessions: want 1 to %d", l.Sessions, MaxSessions)
		}
		if err := idleSessions(l.Sessions, l.Runs); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if err := l.CheckRuns(len(r.runs)); err != nil {
			return fmt.Errorf("replay: %w; give Runs", err)
		}
		if r.total == 0 {
			r.total = len(r.runs) * l.Sessions
		}
	case Poisson:
		if !(l.Rate > 0) || math.IsInf(l.Rate, 1) {
			return fmt.Errorf("replay: rate %v: want a positive number of runs a second", l.Rate)
		}
	case Recorded:
		if !(l.Speedup > 0) || math.IsInf(l.Speedup, 1) {
			return fmt.Errorf("replay: speed-up %v: want a positive factor", l.Speedup)
		}
		if l.Runs != 0 && l.Runs != len(r.runs) {
			return fmt.Errorf("replay: %d runs at recorded start times: each of the %d recorded runs starts once", l.Runs, len(r.runs))
		}
	default:
		return fmt.Errorf("replay: unknown load mode %d", l.Mode)
	}
	if r.total == 0 {
		r.total = len(r.runs)
	}
	return nil
}

// modelCalls calls f for every model call of every run, in order.
func (r *replayer) modelCalls(f func(*Step)) {
	for i := range r.runs {
		r.runs[i].Root.walk(func(a *Agent) {
			for j := range a.Steps {
				if a.Steps[j].Kind == ModelCall {
					f(&a.Steps[j])
				}
			}
		})
	}
}

// fillTokens gives each model call its tokens: its own, or its model's
// mean over the calls that have them.
func (r *replayer) fillTokens() {
	type sum struct{ prompt, output, n int64 }
	sums := map[string]*sum{}
	r.modelCalls(func(s *Step) {
		if sums[s.Name] == nil {
			sums[s.Name] = &sum{}
		}
		if s.HasTokens {
			m := sums[s.Name]
			m.prompt, m.output, m.n = m.prompt+s.Prompt, m.output+s.Output, m.n+1
		}
	})
	r.modelCalls(func(s *Step) {
		if s.HasTokens {
			r.tokens[s] = [2]int64{s.Prompt, s.Output}
			return
		}
		if m := sums[s.Name]; m.n > 0 {
			r.tokens[s] = [2]int64{int64(math.Round(float64(m.prompt) / float64(m.n))), int64(math.Round(float64(m.output) / float64(m.n)))}
		}
	})
}

// api returns the index of the API that serves model's calls.
func (r *replayer) api(model string) int {
	return r.cfg.Deployment.Route[model] // 0 when absent
}

// pair works out each model call's time to first token by rank (Rank):
// within each model, calls are ranked by recorded latency less their
// output at the API's rate, and the k-th of n takes the (k−½)/n quantile
// of the API's time to first token, read from sorted draws.
func (r *replayer) pair(streams sim.Streams) error {
	tables := make([][]float64, len(r.apis))
	byModel := map[string][]*Step{}
	var models []string
	r.modelCalls(func(s *Step) {
		if _, ok := byModel[s.Name]; !ok {
			models = append(models, s.Name)
		}
		byModel[s.Name] = append(byModel[s.Name], s)
	})
	for _, m := range models {
		i := r.api(m)
		api := &r.cfg.Deployment.APIs[i]
		if tables[i] == nil {
			rng := streams.New("replay-quantile", uint64(i))
			t := make([]float64, quantiles)
			for k := range t {
				t[k] = api.TTFT.Sample(rng)
			}
			slices.Sort(t)
			tables[i] = t
		}
		calls := byModel[m]
		resid := func(s *Step) float64 {
			return s.Recorded.Seconds() - float64(r.tokens[s][1])/api.OutputRate
		}
		order := slices.Clone(calls)
		slices.SortStableFunc(order, func(a, b *Step) int { return cmp.Compare(resid(a), resid(b)) })
		for k, s := range order {
			u := (float64(k) + 0.5) / float64(len(order))
			v := tables[i][min(int(u*quantiles), quantiles-1)]
			t, err := sim.FromSeconds(v)
			if err != nil {
				return fmt.Errorf("model %s: time to first token: %w", m, err)
			}
			r.ttft[s] = t
		}
	}
	return nil
}

// run replays every run and returns the results.
func (r *replayer) run() ([]Result, error) {
	r.res = make([]Result, r.total)
	l := &r.cfg.Load
	switch l.Mode {
	case Closed:
		for s := range min(l.Sessions, r.total) {
			r.later(0, func() { r.session(s) })
		}
	case Poisson:
		// A stream of their own: the arrivals are the same whatever the
		// pairing draws.
		arrivals := sim.NewStreams(r.cfg.Seed).New("replay-arrivals", 0)
		var arrive func()
		arrive = func() {
			r.startRun(-1, nil)
			if r.next < r.total {
				r.later(secs(arrivals.ExpFloat64()/l.Rate), arrive)
			}
		}
		r.later(0, arrive)
	case Recorded:
		first := slices.MinFunc(r.runs, func(a, b Run) int { return cmp.Compare(a.Start, b.Start) }).Start
		order := make([]int, len(r.runs))
		for i := range order {
			order[i] = i
		}
		// Started in order of recorded start, so that results are too.
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(r.runs[a].Start, r.runs[b].Start) })
		for _, i := range order {
			at := secs(float64(r.runs[i].Start-first) / 1e9 / l.Speedup)
			r.later(at, func() { r.startRunOf(i, -1, nil) })
		}
	}
	if err := r.env.Run(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if r.err != nil {
		return nil, fmt.Errorf("replay: %w", r.err)
	}
	if r.ended < r.total {
		return nil, fmt.Errorf("replay: %d of %d runs never ended (a call the servers never served?)", r.total-r.ended, r.total)
	}
	return r.res, nil
}

// secs converts seconds to virtual time, saturating far beyond any run.
func secs(s float64) sim.Time {
	t, err := sim.FromSeconds(min(s, 1e9))
	if err != nil {
		return sim.MaxTime / 2
	}
	return t
}

// session starts the next run for the closed loop's session s.
func (r *replayer) session(s int) {
	r.startRun(s, func() { r.session(s) })
}

// startRun starts the next run, unless every run has started; done is
// called when it ends.
func (r *replayer) startRun(session int, done func()) {
	if r.next >= r.total {
		return
	}
	r.startRunOf(r.next%len(r.runs), session, done)
}

// startRunOf starts the recorded run i as the next run replayed.
func (r *replayer) startRunOf(i, session int, done func()) {
	res := &r.res[r.next]
	r.next++
	run := &r.runs[i]
	*res = Result{Run: i, Session: session, Start: r.env.Now(), Recorded: run.Duration}
	r.startAgent(&run.Root, res, nil, -1, func() {
		res.End = r.env.Now()
		r.ended++
		if done != nil {
			done()
		}
	})
}

// later calls fn after delay, or stops the replay.
func (r *replayer) later(delay sim.Time, fn func()) {
	if err := r.env.Call(delay, fn); err != nil {
		r.Fail(err)
	}
}

func (r *replayer) startAgent(a *Agent, res *Result, parent *agentRun, parentStep int, done func()) {
	ag := &agentRun{a: a, res: res, parent: parent, parentStep: parentStep, left: make([]int, len(a.Steps)), pending: len(a.Steps), done: done}
	if r.cfg.Spans {
		ag.index = len(res.Agents)
		p := -1
		if parent != nil {
			p = parent.index
		}
		res.Agents = append(res.Agents, AgentSpan{Name: a.Name, Parent: p, Start: r.env.Now()})
	}
	if len(a.Steps) == 0 {
		r.later(a.Tail, func() { r.endAgent(ag) })
		return
	}
	for i, s := range a.Steps {
		ag.left[i] = len(s.After)
		if len(s.After) == 0 {
			r.later(s.Gap, func() { r.startStep(ag, i) })
		}
	}
}

func (r *replayer) endAgent(ag *agentRun) {
	if r.cfg.Spans {
		ag.res.Agents[ag.index].End = r.env.Now()
	}
	ag.done()
}

func (r *replayer) startStep(ag *agentRun, i int) {
	s := &ag.a.Steps[i]
	now := r.env.Now()
	switch s.Kind {
	case ToolCall:
		r.later(s.Recorded, func() {
			ag.res.ToolTime += r.env.Now() - now
			ag.res.Tools++
			r.span(ag, s, now, 0, 0)
			r.stepDone(ag, i)
		})
	case SubAgent:
		r.startAgent(s.Agent, ag.res, ag, i, func() { r.stepDone(ag, i) })
	default:
		r.send(ag, i)
	}
}

// send sends the model call i of ag to its server.
func (r *replayer) send(ag *agentRun, i int) {
	s := &ag.a.Steps[i]
	var id int
	if n := len(r.free); n > 0 {
		id, r.free = r.free[n-1], r.free[:n-1]
	} else {
		id = len(r.calls)
		r.calls = append(r.calls, nil)
	}
	tok := r.tokens[s]
	c := &inflight{ag: ag, step: i, sent: r.env.Now(), call: serving.Call{ID: id, Prompt: tok[0], Output: tok[1]}}
	r.calls[id] = c
	if r.dep != nil {
		d := &r.cfg.Deployment.Serving
		c.alone = sim.Time(math.Round(float64(d.PrefillToken)*float64(tok[0]))) + sim.Time(tok[1])*d.Step
		r.dep.Submit(&c.call, 0)
		return
	}
	a := r.api(s.Name)
	api := &r.cfg.Deployment.APIs[a]
	ttft, ok := r.ttft[s]
	if !ok {
		ttft = secs(api.TTFT.Sample(r.draws))
	}
	c.call.Service = ttft + secs(float64(tok[1])/api.OutputRate)
	c.alone = c.call.Service
	if err := r.apis[a].Submit(&c.call, 0); err != nil {
		r.Fail(fmt.Errorf("model %s: %w", s.Name, err))
	}
}

// Admitted is the servers' report that call id starts service; the delay
// is worked out when it is done, as the time beyond its time alone.
func (r *replayer) Admitted(int, sim.Time) {}

// Done is the servers' report that call id is done.
func (r *replayer) Done(id int) {
	c := r.calls[id]
	r.calls[id] = nil
	r.free = append(r.free, id)
	res := c.ag.res
	took := r.env.Now() - c.sent
	res.ModelTime += took
	res.Delay += max(took-c.alone, 0)
	res.Calls++
	r.span(c.ag, &c.ag.a.Steps[c.step], c.sent, c.call.Prompt, c.call.Output)
	r.stepDone(c.ag, c.step)
}

// Fail records err, which the replay returns once its events have run
// out: a call that failed leaves its run unfinished.
func (r *replayer) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// span records the model or tool call s of ag, from start to now.
func (r *replayer) span(ag *agentRun, s *Step, start sim.Time, prompt, output int64) {
	if r.cfg.Spans {
		ag.res.Spans = append(ag.res.Spans, Span{Agent: ag.index, Kind: s.Kind, Name: s.Name, Start: start, End: r.env.Now(), Prompt: prompt, Output: output})
	}
}

// stepDone starts the steps of ag that waited for step i and no other,
// each after its gap, and ends ag, after its tail, when it was the last.
func (r *replayer) stepDone(ag *agentRun, i int) {
	ag.pending--
	for _, j := range r.succ[ag.a][i] {
		if ag.left[j]--; ag.left[j] == 0 {
			r.later(ag.a.Steps[j].Gap, func() { r.startStep(ag, j) })
		}
	}
	if ag.pending == 0 {
		r.later(ag.a.Tail, func() { r.endAgent(ag) })
	}
}
