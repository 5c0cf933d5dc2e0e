package collective

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Options modify how one episode is run and what it keeps.
type Options struct {
	// Record keeps every decision in Result.Decisions (for the learner).
	Record bool
	// Trace keeps every activity and message in Result.Trace.
	Trace bool
	// MaxEvents bounds the episode's events, so that a policy that never
	// ends an episode fails it with an error. 0 means 1000 per subtask plus
	// one million.
	MaxEvents uint64
	// Context, when not nil, stops the episode when it is done: Run then
	// returns its error. It is looked at every ctxEvery events, so that a
	// long episode ends within milliseconds at a cost of one comparison
	// per event.
	Context context.Context
	// Decisions, when not nil, are the streams of the policy's own draws;
	// the environment (outcomes, checks, conflicts, selection) keeps
	// drawing from Run's streams. Rollouts that share the environment's
	// streams and differ only here see the same luck and differ only
	// through what their policies choose: common random numbers within a
	// group of rollouts.
	Decisions *sim.Streams
	// Silent is the communication counterfactual: the episode replayed
	// with what was shared lost in transit. Every finding is still
	// written, sent, read and paid for at the same times, and every
	// decision sees the same observation, mask and draw, but nobody learns
	// from a finding: parts at a coupled join count as made without it.
	// The replay can therefore differ from the original only through the
	// information findings carry, and at coupling 0 it is the same
	// episode. (Masking Share instead would shift every later decision.)
	Silent bool
	// Actions restricts what the policy may choose: a decision's mask is
	// the valid actions that Actions holds. Where none of them is valid,
	// the agent does what it must without a decision (see Must), and where
	// Actions leaves out Submit a complete result is submitted without
	// one. The zero Mask means every action.
	Actions Mask
}

// ctxEvery is how many events pass between two looks at Options.Context:
// a power of two (the test is a mask), a few hundred microseconds of
// simulation, and ctx.Err costs nothing measurable at that rate.
const ctxEvery = 4096

// ErrInvalidAction is returned when a policy picks an action outside its mask.
var ErrInvalidAction = errors.New("collective: policy chose an invalid action")

// Run simulates one episode: the collective described by cfg works on g,
// deciding with pol, drawing every random number from streams. The same
// arguments give the same result, to the byte.
func Run(g *task.Graph, cfg Config, pol Policy, streams sim.Streams, opts Options) (*Result, error) {
	var r Runner
	return r.Run(g, cfg, pol, streams, opts)
}

// Runner runs episodes one after another on the same memory: agents,
// subtask states, the event queue and the recorded decisions of one
// episode are reset for the next, so that once a Runner has seen an
// episode of a given size, running another allocates nothing (tracing
// aside). This is what a learner running thousands of rollouts uses; its
// zero value is ready. A Runner must be used from one goroutine.
type Runner struct {
	ep        episode
	res       Result
	decisions []Decision // the memory of Result.Decisions
	keys      purposeKeys
}

// purposeKeys are the keys of the environment's purposes, derived again
// only when its streams change: the rollouts of a group share them.
type purposeKeys struct {
	set                                          bool
	of                                           sim.Streams
	outcome, check, conflict, selection, handoff sim.Key
}

// env returns the keys of the environment's purposes in streams.
func (k *purposeKeys) env(streams sim.Streams) (outcome, check, conflict, selection, handoff sim.Key) {
	if !k.set || k.of != streams {
		k.set, k.of = true, streams
		k.outcome, k.check, k.conflict = streams.Key("outcome"), streams.Key("check"), streams.Key("conflict")
		k.selection, k.handoff = streams.Key("select"), streams.Key("handoff")
	}
	return k.outcome, k.check, k.conflict, k.selection, k.handoff
}

// Run is collective.Run on the runner's memory, with the same result. The
// Result, and the Decisions and Trace it holds, belong to the runner and
// are valid until its next Run.
func (r *Runner) Run(g *task.Graph, cfg Config, pol Policy, streams sim.Streams, opts Options) (*Result, error) {
	if pol == nil {
		// A nil policy would panic at the first decision, deep in the engine.
		return nil, errors.New("collective: the policy is nil (want a Policy, such as a PolicyFunc or one of package policy's organizations; a Stepper takes its actions from outside)")
	}
	if err := r.start(g, cfg, pol, streams, opts); err != nil {
		return nil, err
	}
	return r.finish(r.ep.loop())
}

// start sets up an episode on the runner's memory and schedules the main
// agent's first decision; the loop runs it.
func (r *Runner) start(g *task.Graph, cfg Config, pol Policy, streams sim.Streams, opts Options) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("collective config: %w", err)
	}
	if g == nil {
		return errors.New("collective: the task graph is nil (want a graph of at least one subtask, such as a task.Family's Draw)")
	}
	if g.Len() == 0 {
		return errors.New("collective: the task graph is empty")
	}
	if extra := opts.Actions &^ (1<<NumActions - 1); extra != 0 {
		// Bits beyond the action set would restrict nothing, silently.
		return fmt.Errorf("collective: Options.Actions %#x holds bits beyond the %d actions (want a Mask of them, 0 for all)", uint(opts.Actions), NumActions)
	}
	maxEvents := opts.MaxEvents
	if maxEvents == 0 {
		maxEvents = 1000*uint64(g.Len()) + defaultEvents
	}
	ep := &r.ep
	if ep.env == nil {
		ep.env = sim.New(sim.Limits{})
		ep.endChosenFn = func() { ep.end(ep.mergedOK) }
	}
	ep.env.Reset(sim.Limits{MaxEvents: maxEvents})
	r.res = Result{}
	if opts.Record {
		r.res.Decisions = r.decisions[:0]
	}
	// What a Runner keeps is read aside and the episode zeroed in place: a
	// literal reading *ep would be built aside and copied.
	env, agentPool, attemptPool, candidates, cands := ep.env, ep.agentPool, ep.attemptPool, ep.candidates[:0], ep.cands[:0]
	endChosenFn, pcg, rng, spare, reserved, running := ep.endChosenFn, ep.pcg, ep.rng, ep.spare, ep.reserved, ep.running[:0]
	*ep = episode{}
	ep.env, ep.maxEvents, ep.g, ep.cfg, ep.pol, ep.opts, ep.res = env, maxEvents, g, cfg, pol, opts, &r.res
	ep.outcome, ep.checkKey, ep.conflict, ep.selKey, ep.handoff = r.keys.env(streams)
	ep.decide = decisionStreams(streams, opts).Key("decide")
	ep.agents, ep.agentPool, ep.attempts, ep.attemptPool = agentPool[:0], agentPool, attemptPool[:0], attemptPool
	ep.candidates, ep.cands, ep.endChosenFn, ep.pcg, ep.rng = candidates, cands, endChosenFn, pcg, rng
	ep.spare, ep.reserved, ep.running = spare, reserved, running
	clear(ep.running[:cap(ep.running)]) // agents of an episode that failed
	ep.reserved.reset()
	if err := ep.shareInference(streams); err != nil {
		return fmt.Errorf("collective config: %w", err)
	}
	// A shared server or tool pool schedules calls its own way, and a
	// trace shows every call.
	// A token budget is drawn call by call, which a run would skip over.
	ep.runsOK = !runsOff && ep.server == nil && ep.tools == nil && !opts.Trace && cfg.TokenBudget == 0
	ep.meanWork = float64(g.TotalWork()) / float64(g.Len())
	ep.kind = slices.Index(task.Kinds, g.Kind()) + 1
	if opts.Trace {
		ep.res.Trace = &Trace{}
	}
	ep.res.CriticalPath = scale(g.CriticalLength(), 1/cfg.Speed)
	ep.res.SerialWork = scale(g.TotalWork(), 1/cfg.Speed)

	main := ep.newAgent(ep.newAttempt(), true)
	ep.main = main
	main.becomeBusy()
	main.later(0, main.decideFn)
	return nil
}

// finish closes the episode the loop ended with err: the recorded
// decisions go back to the runner's memory, and the metrics are worked
// out.
func (r *Runner) finish(err error) (*Result, error) {
	ep := &r.ep
	if ep.opts.Record {
		r.decisions = r.res.Decisions[:0]
		if len(r.res.Decisions) == 0 {
			r.res.Decisions = nil // as an episode on fresh memory has it
		}
	}
	if err != nil {
		return nil, err
	}
	ep.finishMetrics()
	return ep.res, nil
}

// defaultEvents is the part of the default event bound that does not
// grow with the task: Run allows 1000 events per subtask on top of it.
const defaultEvents = 1_000_000

// eventBound says what the episode's event bound is and, for the default
// one, how it was computed and what makes more events: the bound grows
// with the subtasks only, while every agent of the team makes events of
// its own, so a team far larger than its task is the likely cause.
func (ep *episode) eventBound() string {
	if ep.opts.MaxEvents != 0 {
		return fmt.Sprintf("the episode's bound: %d events, as set", ep.maxEvents)
	}
	n := ep.g.Len()
	return fmt.Sprintf("the episode's bound: %d events = 1000 per subtask × %d subtasks + %d; it grows with the task, not the team, and this team has %d agents (collective.agents) for %d subtasks: each agent's work, messages and waits are events of its own",
		ep.maxEvents, n, defaultEvents, ep.cfg.Agents, n)
}

// decisionStreams returns the streams the policy's draws come from.
func decisionStreams(env sim.Streams, opts Options) sim.Streams {
	if opts.Decisions != nil {
		return *opts.Decisions
	}
	return env
}

// scale multiplies a duration, rounding to the nanosecond.
func scale(t sim.Time, k float64) sim.Time { return sim.Time(math.Round(float64(t) * k)) }

// episode is the state of one run.
type episode struct {
	env  *sim.Env
	g    *task.Graph
	cfg  Config
	pol  Policy
	opts Options

	maxEvents uint64

	outcome, checkKey, conflict, decide, selKey, handoff sim.Key

	// holding and held defer the wakes of the parts the orchestrator's
	// check makes ready until it has decided (review.go).
	holding bool
	held    int

	agents     []*agent   // a prefix of agentPool
	attempts   []*attempt // a prefix of attemptPool
	candidates []*attempt
	// The pools keep the agents and attempts of earlier episodes for
	// reuse.
	agentPool   []*agent
	attemptPool []*attempt
	shares      uint64 // share() calls so far: marks the partners a finding went to
	mergedOK    bool   // whether the merge of the candidates is acceptable
	endChosenFn func() // ends the episode with the merged result, after the merge
	cands       []*attempt
	main        *agent
	live        int // agents that exist (spawned and not gone)
	busy        int // agents busy now
	pending     int // independent attempts started and not yet submitted
	meanWork    float64
	kind        int // the task's kind, as Observation.Kind gives it
	done        bool
	err         error
	res         *Result
	obs         Observation // the observation of the decision being made

	// Stepping from outside (step.go): whether decisions wait for an
	// action from outside instead of asking pol, and the decision that
	// waits: its agent (nil if none), mask and draw. obs is its
	// observation.
	stepping bool
	asking   *agent
	askMask  Mask
	askU     float64

	// Runs of model calls (runs.go): whether they are allowed, the agents
	// with one going, their virtual call ends not applied yet, what new
	// ones may add during the RunThrough in progress, and their instants.
	runsOK      bool
	running     []*agent
	outstanding uint64
	runBudget   uint64
	reserved    instants

	// Shared inference and tools; nil when every agent has its own server
	// and tools are unlimited or unused.
	server    server
	tools     *toolPool
	toolCalls sim.Key
	pcg       *rand.PCG // re-seeded for every draw from a distribution
	rng       *rand.Rand
	spare     spare // servers of earlier episodes, for reuse
}

// spare keeps the shared servers of a Runner's earlier episodes, so that
// the next episode reuses their memory.
type spare struct {
	dep   *selfHosted
	api   *hostedAPI
	tools *toolPool
}

// shareInference sets up the shared server or API and the tool pool the
// configuration asks for.
func (ep *episode) shareInference(streams sim.Streams) error {
	cfg := &ep.cfg
	switch {
	case !cfg.Serving.IsZero():
		if ep.spare.dep == nil {
			ep.spare.dep = &selfHosted{}
		}
		if err := ep.spare.dep.Reset(ep.env, &cfg.Serving, (*client)(ep)); err != nil {
			return err
		}
		ep.server = ep.spare.dep
	case cfg.API != (serving.API{}):
		if ep.spare.api == nil {
			ep.spare.api = &hostedAPI{}
		}
		if err := ep.spare.api.reset(ep, &cfg.API, streams); err != nil {
			return err
		}
		ep.server = ep.spare.api
	}
	hasTools := ep.g.Tools() != (task.Tools{})
	if err := cfg.checkGraphTools(hasTools); err != nil {
		return err
	}
	if hasTools {
		t := ep.spare.tools
		if t == nil {
			t = &toolPool{}
			ep.spare.tools = t
		}
		*t = toolPool{ep: ep, pool: t.pool, latency: streams.Key("tool-latency"), draw: ep.g.Tools().Latency.Sampler()}
		t.pool.Reset(cfg.Tools.Pool)
		ep.tools = t
		ep.toolCalls = streams.Key("tool-calls")
	}
	if ep.tools != nil && ep.pcg == nil { // the tools' draws (draw); servers draw their own
		ep.pcg = rand.NewPCG(0, 0)
		ep.rng = rand.New(ep.pcg)
	}
	return nil
}

// draw returns the episode's generator seeded for draw (a, b, c) of a
// purpose: a counter-based draw from a distribution, with no allocation.
func (ep *episode) draw(k sim.Key, a, b, c uint64) *rand.Rand {
	ep.pcg.Seed(k.Uint64(a, b, c), k.Uint64(^a, b, c))
	return ep.rng
}

func (ep *episode) loop() error {
	// Events at MaxTime count as none, as Peek reports them.
	limit := sim.MaxTime - 1
	if ep.cfg.TimeLimit > 0 {
		limit = ep.cfg.TimeLimit
	}
	ctx := ep.opts.Context
	n := uint64(math.MaxUint64)
	for !ep.done && ep.err == nil && ep.asking == nil {
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			n = ctxEvery - ep.env.Fired()&(ctxEvery-1)
		}
		next, err := ep.env.RunThrough(limit, ep.runBound(n)) // end and fail stop it
		switch {
		case err != nil:
			if errors.Is(err, sim.ErrEventLimit) {
				return fmt.Errorf("collective: %w (%s)", err, ep.eventBound())
			}
			return fmt.Errorf("collective: %w", err)
		case ep.done || ep.err != nil || ep.asking != nil:
		case next == sim.MaxTime && ep.res.BudgetExhausted:
			ep.end(ep.judgeExisting())
		case next == sim.MaxTime:
			ep.res.Stalled = true
			ep.end(false)
		case next > limit:
			ep.env.RunUntil(limit)
			ep.res.TimedOut = true
			ep.end(false)
		}
	}
	return ep.err
}

// end closes the episode at the current time.
func (ep *episode) end(acceptable bool) {
	if ep.done {
		return
	}
	ep.done = true
	ep.settleRuns()
	ep.env.Stop()
	ep.res.Finish = ep.env.Now()
	ep.res.Acceptable = acceptable
	if t := ep.res.Trace; t != nil {
		// A call in flight is counted (ModelCalls, its tokens) when it
		// starts but traced when it ends: the end of the episode ends it.
		for _, a := range ep.agents {
			if a.inCall {
				node := a.cur
				if a.kind == "check" {
					node = a.req.node
				}
				a.span(a.activity, ep.res.Finish, a.kind, ep.g.Nodes[node].Name)
				a.inCall = false
			}
		}
		t.clip(ep.res.Finish)
	}
	for _, a := range ep.agents {
		if a.state == busy {
			a.becomeFree()
		}
	}
}

func (ep *episode) finishMetrics() {
	r := ep.res
	if r.Finish > 0 {
		r.ParallelismMean = float64(r.AgentTime) / float64(r.Finish)
	}
	r.CriticalSteps = max(r.CriticalSteps, ep.main.steps)
	if ep.server != nil {
		ep.server.finish(r.Finish, &r.Metrics)
	}
	r.Events = ep.env.Fired()
}

// spend draws the tokens of agent a's next model call from the token
// budget, which is set, and reports whether the call may be made. The first call that
// would overdraw the budget exhausts it: that call and every later one is
// not made, and an agent whose call is refused stops where it is, its part
// unfinished. What needs no call goes on (calls in flight end, results are
// handed on, submitted and merged) until nothing is left to happen; then
// the episode is judged on what exists (judgeExisting).
func (ep *episode) spend(a *agent, tokens int64) bool {
	if ep.res.BudgetExhausted || ep.res.BudgetUsed+tokens > ep.cfg.TokenBudget {
		ep.res.BudgetExhausted = true
		a.becomeFree()
		a.state = gone
		return false
	}
	ep.res.BudgetUsed += tokens
	return true
}

// judgeExisting says whether the results that exist when an exhausted
// budget leaves nothing to happen make an acceptable one: the main
// team's, if complete, and every complete independent attempt's,
// submitted or not, merged as they would have been (the merge's time is
// not spent: the episode ends now). An unfinished part makes its
// attempt's result not exist.
func (ep *episode) judgeExisting() bool {
	cands := ep.cands[:0]
	for _, at := range ep.attempts {
		if at.complete && (at == ep.main.at || at.alone) {
			cands = append(cands, at)
		}
	}
	ep.cands = cands
	switch len(cands) {
	case 0:
		return false
	case 1:
		return cands[0].ok
	}
	ok, _ := ep.merge(cands)
	return ok
}

func (ep *episode) fail(err error) {
	if errors.Is(err, sim.ErrNegativeDelay) {
		// The costs are computed in int64 nanoseconds, and one too large
		// for them wraps around to a negative delay: say which values
		// make one, since the engine cannot.
		err = fmt.Errorf("collective: a duration went beyond the virtual clock's range (about 292 years), so some cost is too large: lower the token counts (calls.system_prompt, comm.message_tokens, task.output_tokens), the per-token times, check.cost or the work, or raise speed (%w)", err)
	}
	if ep.err == nil {
		ep.err = err
		ep.env.Stop()
	}
}
