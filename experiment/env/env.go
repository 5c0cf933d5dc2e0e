package env

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// NumFeatures and NumActions are the widths of an observation and a mask.
const (
	NumFeatures = policy.NumFeatures
	NumActions  = collective.NumActions
)

// MaxRows bounds Config.NumEnvs: each row holds an episode's memory.
const MaxRows = 1 << 16

// MaxWorkers bounds Config.Workers.
const MaxWorkers = 1024

// Config is what an environment is made from.
type Config struct {
	// Scenario is a library scenario's name or a YAML file's path.
	Scenario string
	// Variant names the scenario's variant; it may be empty when the
	// scenario has one.
	Variant string
	// Sets are overrides "path=value", as --set takes them, in order.
	Sets []string
	// NumEnvs is the number of rows; Group divides it.
	NumEnvs, Group int
	// Seed replaces the scenario's master seed when not nil.
	Seed *uint64
	// MaxEvents bounds each episode's events (collective.Options); 0
	// means the default.
	MaxEvents uint64
	// Workers is the number of goroutines that step the rows, each a
	// contiguous share of whole groups; 0 or 1 means one. Nothing but the
	// time a step takes depends on it.
	Workers int
	// Decide says whose decisions the rows put to the caller: DecideAll
	// (or "") every agent's, DecideMain the main agent's only, with the
	// variant's policy section deciding for the other agents (an
	// orchestrator evaluated with its helpers' decisions built in).
	Decide string
}

// Whose decisions an environment puts to its caller (Config.Decide).
const (
	DecideAll  = "all"
	DecideMain = "main"
)

// FieldError is an error in one field of what the caller gave: Field
// names it as the protocol does ("variant", "set.reward.latency",
// "actions[3]"), and the message says what is allowed.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Env is a vector environment: NumEnvs rows, each an episode of the
// scenario's variant paused at a decision. Its methods must be called from
// one goroutine; what they return is the Env's memory, valid until the
// next call.
type Env struct {
	name     string
	warnings []string
	variant  scenarios.Variant
	n, g     int
	seed     uint64
	decide   string
	opts     collective.Options
	metrics  []experiment.EpisodeMetric

	rows []row
	// draws[k] holds the task graph of group k's episodes in progress:
	// its next draw reuses the memory, as the group's rows all start anew.
	draws []task.Drawer
	parts []part
	out   Out
	view  Out  // StepRows's rows of out
	reset bool // Reset was called and no episode failed since
}

// part is one worker's share of the rows, whole groups, and its scratch
// memory.
type part struct {
	lo, hi int // the rows [lo, hi)
	feat   [NumFeatures]float64
	group  []collective.Metrics // a group's finished episodes, for its rewards
	scores []float64
	ended  []int // the rows whose ends or rewards the output reports
	// done and episode are the part's share of Out.Ended and
	// Out.Episode, in row order.
	done    []int32
	episode []float64
	err     error
}

// row is one episode in progress and what the row keeps of the last one.
type row struct {
	s        collective.Stepper
	own      sim.Streams // the decisions' streams of a row after its group's first
	k        uint64      // episodes begun
	instance uint64      // the task instance of the episode in progress
	pending  collective.Pending
	active   bool
	finished experiment.Row // the last finished episode
	result   collective.Metrics
	// over marks a row whose episode ended where it began, without a
	// decision with a choice (Stepper.Next was false at once): the row is
	// inactive, and its next step reports the end, as if the episode had
	// ended in that step, so that every episode is reported once and in
	// order and a group's rewards count it, as simulate train's do.
	over bool
	// renewed marks a row (group 1) whose episode in progress began in
	// the step that ended its last one, until the row acts: its text
	// tells how the last ended. Out's ends would not do, as a step of
	// another part clears them.
	renewed bool
}

// Out is what Reset and Step return, row by row: flat arrays in C order,
// ready to be sent as they are. Reset fills Obs, Mask, Agent, Active and
// U; Step all of them.
type Out struct {
	Obs    []float32 // NumEnvs × NumFeatures: the deciding agent's features; 0 where inactive
	Mask   []uint8   // NumEnvs × NumActions: 1 where the action is valid
	Agent  []int32   // the deciding agent (0 is the main agent); -1 where inactive
	Active []uint8   // 1 where the row waits for an action
	// U is the uniform draw in [0, 1) that a built-in policy would
	// sample the row's decision with (collective.Pending.U): a sampling
	// client that uses it shares the rows' decision draws with
	// simulate's own policies. 0 where inactive.
	U      []float64
	Reward []float64 // the collective reward, where an episode's reward is paid
	// Terminated and Truncated are 1 where an episode ended in this step:
	// truncated by the time limit, terminated otherwise.
	Terminated, Truncated []uint8
	// Ended lists the rows whose episodes ended in this step, in
	// ascending order (where Terminated or Truncated is 1), and Episode
	// holds their metrics: len(Ended) × len(Metrics()) in C order, row j
	// the episode of row Ended[j]. Only the rows that ended take memory
	// and bytes on the wire.
	Ended   []int32
	Episode []float64
}

// New makes an environment; its rows wait for Reset.
func New(cfg Config) (*Env, error) {
	if cfg.NumEnvs < 1 || cfg.NumEnvs > MaxRows {
		return nil, fieldErr("num_envs", "num_envs: %d is out of range (1 to %d)", cfg.NumEnvs, MaxRows)
	}
	if cfg.Workers < 0 || cfg.Workers > MaxWorkers {
		return nil, fieldErr("workers", "workers: %d is out of range (0 or 1 for one, up to %d)", cfg.Workers, MaxWorkers)
	}
	if cfg.Group < 1 {
		return nil, fieldErr("group", "group: %d is out of range (allowed: a divisor of num_envs from 1, 1 for independent rows)", cfg.Group)
	}
	if cfg.NumEnvs%cfg.Group != 0 {
		return nil, fieldErr("group", "group: %d does not divide num_envs %d (allowed: a divisor of num_envs, 1 for independent rows)", cfg.Group, cfg.NumEnvs)
	}
	reader := scenarios.EnvCommand
	switch cfg.Decide {
	case "", DecideAll:
		cfg.Decide = DecideAll
	case DecideMain:
		reader = scenarios.EnvMainCommand
	default:
		return nil, fieldErr("decide", "decide: %q is not known (allowed: %s, every agent's decisions; %s, the main agent's, the variant's policy deciding for the others)%s", cfg.Decide, DecideAll, DecideMain, spelling.DidYouMean(cfg.Decide, []string{DecideAll, DecideMain}))
	}
	for i, s := range cfg.Sets {
		if why := scenarios.Unread(reader, scenarios.SetPath(s)); why != "" {
			return nil, fieldErr(setField(s), "set %s: %s; remove it", s, why)
		}
		if !strings.Contains(s, "=") {
			return nil, fieldErr(fmt.Sprintf("set[%d]", i), "set %q: want path=value", s)
		}
	}
	sc, err := scenarios.Load(cfg.Scenario, cfg.Sets)
	if err != nil {
		return nil, &FieldError{Field: loadField(err, cfg.Sets), Err: err}
	}
	if err := only(sc, cfg.Variant, cfg.Sets); err != nil {
		return nil, err
	}
	// Read here, a graph file's problem is make's, not the first reset's
	// (the policy's file is read below, where decide main reads it).
	if err := sc.CheckTaskFiles(); err != nil {
		return nil, &FieldError{Field: loadField(err, cfg.Sets), Err: err}
	}
	v := &sc.Variants[0]
	if v.Spec.Reward.Penalty == rlcr.PenaltyGroupRelative && cfg.Group == 1 {
		return nil, fieldErr("group", "group: 1 with reward.penalty group-relative, which compares finish times within a group and is always 0 in a group of one (allowed: group 2 or more)")
	}
	var others collective.Policy
	if cfg.Decide == DecideMain {
		if others, err = v.Policy(); err != nil {
			return nil, fieldErr(policyField(cfg.Sets), "decide: main needs the variant's policy section to decide for the other agents: %v", err)
		}
	}
	// train.actions restricts the caller's choices as it does the
	// learner's in simulate train (validated when the scenario loaded).
	actions, _ := collective.ParseMask(v.Spec.Train.Actions)
	e := &Env{
		name: sc.Name, warnings: warningTexts(sc.Warnings), variant: *v, n: cfg.NumEnvs, g: cfg.Group, seed: sc.Seed, decide: cfg.Decide,
		opts:    collective.Options{MaxEvents: cfg.MaxEvents, Actions: actions},
		metrics: experiment.EpisodeMetrics(),
		rows:    make([]row, cfg.NumEnvs),
		draws:   make([]task.Drawer, cfg.NumEnvs/cfg.Group),
	}
	for i := range e.rows {
		e.rows[i].s.Others = others
	}
	groups := cfg.NumEnvs / cfg.Group
	workers := min(max(cfg.Workers, 1), groups)
	for w := range workers {
		e.parts = append(e.parts, part{
			lo: groups * w / workers * cfg.Group, hi: groups * (w + 1) / workers * cfg.Group,
			group: make([]collective.Metrics, cfg.Group), scores: make([]float64, cfg.Group),
		})
	}
	if cfg.Seed != nil {
		e.seed = *cfg.Seed
	}
	n := e.n
	e.out = Out{
		Obs: make([]float32, n*NumFeatures), Mask: make([]uint8, n*NumActions), Agent: make([]int32, n),
		Active: make([]uint8, n), U: make([]float64, n), Reward: make([]float64, n), Terminated: make([]uint8, n), Truncated: make([]uint8, n),
	}
	return e, nil
}

// setPath returns the field path a set names, as written.
func setPath(set string) string {
	path, _, _ := strings.Cut(set, "=")
	return strings.TrimSpace(path)
}

// policyField names the field at fault when the policy section cannot
// make a policy: the last set on it, which the client can change, or else
// decide, which made the section read.
func policyField(sets []string) string {
	for i := len(sets) - 1; i >= 0; i-- {
		if p := scenarios.SetPath(sets[i]); p == "policy" || strings.HasPrefix(p, "policy.") {
			return setField(sets[i])
		}
	}
	return "decide"
}

// setField is the protocol's field of a set: set.PATH.
func setField(set string) string { return "set." + setPath(set) }

// loadField names the field a scenario's loading error is about: the set
// whose path it names, or else the scenario.
func loadField(err error, sets []string) string {
	// The first problem's own set, where it is about one: a set's path
	// may begin another's (reward.cost, reward.cost_scale), so that the
	// text alone names a set that may not be at fault, and of several
	// problems it named the last set that any mentions.
	var se *scenarios.Error
	if errors.As(err, &se) {
		if set, ok := strings.CutPrefix(se.Source, "--set "); ok && slices.Contains(sets, set) {
			return setField(set)
		}
	}
	msg := err.Error()
	for i := len(sets) - 1; i >= 0; i-- {
		if p := setPath(sets[i]); p != "" && strings.Contains(msg, p) {
			return setField(sets[i])
		}
	}
	return "scenario"
}

// only cuts sc to the named variant, or to its only one, with the
// warnings that concern it (scenarios.Scenario.Only): an environment plays
// one variant, and a warning that a set does not apply to another would
// read as if it did not apply here. A set that the variant replaces with
// a value of its own is an error naming the set.
func only(sc *scenarios.Scenario, name string, sets []string) error {
	if name == "" {
		if len(sc.Variants) != 1 {
			names := make([]string, len(sc.Variants))
			for i, v := range sc.Variants {
				names[i] = v.Name
			}
			return fieldErr("variant", "variant: scenario %s has %d variants; name one (allowed: %s)", sc.Name, len(names), strings.Join(names, ", "))
		}
		name = sc.Variants[0].Name
	}
	err := sc.Only(name)
	var se *scenarios.Error
	switch {
	case errors.As(err, &se): // a set the variant replaces
		return &FieldError{Field: loadField(err, sets), Err: err}
	case err != nil: // no such variant: the names it has
		return fieldErr("variant", "variant: %v", err)
	}
	return nil
}

// Scenario returns the scenario's name.
func (e *Env) Scenario() string { return e.name }

// warningTexts returns the warnings' messages.
func warningTexts(ws []scenarios.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Msg
	}
	return out
}

// Warnings returns what the scenario does that is probably not meant,
// as the command line prints it (such as a set that the variant
// overrides).
func (e *Env) Warnings() []string { return e.warnings }

// Objective says in words how an episode is scored (the reward, the time
// limit): what a reader deciding by the text needs and the decisions do
// not show, since variants that differ in their reward alone pose the
// same decisions.
func (e *Env) Objective() string {
	return e.variant.Spec.Reward.Describe(&e.variant.Spec.Collective)
}

// Decide returns whose decisions the rows put to the caller: DecideAll
// or DecideMain (Config.Decide).
func (e *Env) Decide() string { return e.decide }

// Variant returns the variant's name.
func (e *Env) Variant() string { return e.variant.Name }

// NumEnvs returns the number of rows.
func (e *Env) NumEnvs() int { return e.n }

// Group returns the number of consecutive rows that share a task instance.
func (e *Env) Group() int { return e.g }

// Metrics returns the names of the episode metrics, in the order of
// Out.Episode's columns: columns of episodes.csv.
func (e *Env) Metrics() []string {
	names := make([]string, len(e.metrics))
	for i, m := range e.metrics {
		names[i] = m.Name
	}
	return names
}

// FeatureNames returns the names of the observation's features.
func FeatureNames() []string { return policy.FeatureNames() }

// ActionNames returns the names of the actions, in the order of the mask.
func ActionNames() []string {
	names := make([]string, NumActions)
	for a := range collective.Action(NumActions) {
		names[a] = a.String()
	}
	return names
}

// Reset starts a fresh episode in every row, on the next task instances
// (restarting the sequence when seed is not nil), and runs each to its
// first decision. A finished row's data is dropped. A row whose episode
// ends without a decision with a choice is inactive, and the next Step
// reports its end; if every row's does, Reset starts the next instances,
// and fails where a thousand episodes in a row had no choice.
func (e *Env) Reset(seed *uint64) (*Out, error) {
	if seed != nil {
		e.seed = *seed
		for i := range e.rows {
			e.rows[i].k = 0
		}
	}
	e.reset = false
	e.clearEnded()
	// A reset that leaves no row a decision would be followed by another
	// (a client steps while a row is active), which drops its episodes:
	// Reset draws the next instances itself, as that one would, until a
	// row has a choice. Few rows can all draw episodes without one by
	// chance; a scenario that gives no agent a choice never stops.
	for tried := 0; ; tried += e.n {
		if tried >= maxChoiceless {
			return nil, fmt.Errorf("the last %d episodes all ended without a decision for a policy to take: the scenario leaves its agents no choice (as where train.actions, or decide main, leaves one valid action at every moment)", tried)
		}
		if err := e.each(func(p *part) error {
			for first := p.lo; first < p.hi; first += e.g {
				if err := e.startGroup(p, first); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
		if slices.Contains(e.out.Active, 1) {
			break
		}
	}
	e.reset = true
	return &e.out, nil
}

// maxChoiceless is how many episodes without a choice in a row Reset
// starts before it takes the scenario for one without choices: at one in
// a thousand without (latency-pressure with train.actions [check,
// submit]), a thousand in a row never happen by chance.
const maxChoiceless = 1000

// each runs f on every part, at once when there are several, and returns
// the error of the first part, in row order, that failed.
func (e *Env) each(f func(p *part) error) error {
	if len(e.parts) == 1 {
		return f(&e.parts[0])
	}
	var wg sync.WaitGroup
	for i := range e.parts {
		p := &e.parts[i]
		wg.Go(func() { p.err = f(p) })
	}
	wg.Wait()
	for i := range e.parts {
		if err := e.parts[i].err; err != nil {
			return err
		}
	}
	return nil
}

// startGroup starts the next episodes of the group whose first row is
// first: one task instance, one set of environment streams.
func (e *Env) startGroup(p *part, first int) error {
	k := e.rows[first].k
	instance := k*uint64(e.n/e.g) + uint64(first/e.g)
	streams, g, err := experiment.DrawEpisodeInto(&e.draws[first/e.g], &e.variant, e.seed, int(instance))
	if err != nil {
		return fmt.Errorf("row %d: task instance %d: %w", first, instance, err)
	}
	for i := first; i < first+e.g; i++ {
		if err := e.start(p, i, instance, streams, g); err != nil {
			return err
		}
	}
	return nil
}

// start begins row i's next episode on a task instance and fills its
// part of the output.
func (e *Env) start(p *part, i int, instance uint64, streams sim.Streams, g *task.Graph) error {
	r := &e.rows[i]
	r.k++
	r.instance = instance
	r.renewed, r.over = false, false
	opts := e.opts
	if member := i % e.g; member > 0 {
		r.own = streams.Derive("member", uint64(member))
		opts.Decisions = &r.own
	}
	if err := r.s.Start(g, e.variant.Spec.Collective, streams, opts); err != nil {
		return fmt.Errorf("row %d: %w", i, err)
	}
	r.pending, r.active = r.s.Next()
	if !r.active {
		// An episode that failed is an error now, as Start's are; one
		// that ended without a choice waits for the row's next step.
		if _, err := r.s.Result(); err != nil {
			return fmt.Errorf("row %d: episode %d: %w", i, instance, err)
		}
		r.over = true
	}
	e.observe(p, i)
	return nil
}

// observe fills row i's observation, mask and agent from its pending
// decision, or zeros them if the row is inactive.
func (e *Env) observe(p *part, i int) {
	r := &e.rows[i]
	obs := e.out.Obs[i*NumFeatures : (i+1)*NumFeatures]
	mask := e.out.Mask[i*NumActions : (i+1)*NumActions]
	if !r.active {
		clear(obs)
		clear(mask)
		e.out.Agent[i], e.out.Active[i], e.out.U[i] = -1, 0, 0
		return
	}
	policy.Features(r.pending.Obs, &p.feat)
	for j, x := range &p.feat { // by pointer: ranging over the array copies it
		obs[j] = float32(x)
	}
	for a := range collective.Action(NumActions) {
		mask[a] = b2u(r.pending.Mask.Has(a))
	}
	e.out.Agent[i], e.out.Active[i], e.out.U[i] = int32(r.pending.Agent), 1, r.pending.U
}

// Check returns an error naming the first active row whose action is not
// valid, or nil: what Step refuses.
func (e *Env) Check(actions []int32) error { return e.CheckRows(0, e.n, actions) }

// CheckRows is Check for StepRows: the rows [lo, hi), whole groups, with
// actions[j] the action of row lo+j.
func (e *Env) CheckRows(lo, hi int, actions []int32) error {
	if lo < 0 || hi > e.n || lo >= hi || lo%e.g != 0 || hi%e.g != 0 {
		return fieldErr("rows", "rows: [%d, %d) is not a range of whole groups (allowed: 0 <= first < end <= %d, both multiples of group %d)", lo, hi, e.n, e.g)
	}
	if len(actions) != hi-lo {
		return fieldErr("actions", "actions: %d values for %d rows (want one per row)", len(actions), hi-lo)
	}
	if !e.reset {
		return fieldErr("op", "step before reset: the rows have no episodes (send reset first)")
	}
	for j, a := range actions {
		i := lo + j
		r := &e.rows[i]
		if !r.active {
			continue
		}
		if a < 0 || int(a) >= NumActions {
			return fieldErr(fmt.Sprintf("actions[%d]", j), "row %d: action %d is out of range (0 to %d); valid: %s", i, a, NumActions-1, r.pending.Mask.List())
		}
		if act := collective.Action(a); !r.pending.Mask.Has(act) {
			return fieldErr(fmt.Sprintf("actions[%d]", j), "row %d: action %d (%v) is not valid; valid: %s", i, a, act, r.pending.Mask.List())
		}
	}
	return nil
}

// Step gives every active row its action and runs it to its next
// decision. An invalid action is refused (Check) and no row advances. A
// row whose episode ends reports its reward, termination and metrics;
// with group 1 it starts its next episode at once, whose first
// observation it reports, and with a larger group it waits, inactive,
// for Reset. An episode that ends without a decision with a choice, where
// it begins, leaves its row inactive until the next step, which reports
// its end as if the episode had ended in it. An episode that fails (its
// event bound) is an error naming the row; the environment then needs a
// Reset.
func (e *Env) Step(actions []int32) (*Out, error) {
	if _, err := e.StepRows(0, e.n, actions); err != nil {
		return nil, err
	}
	return &e.out, nil
}

// StepRows is Step on the rows [lo, hi) alone, whole groups, with
// actions[j] the action of row lo+j; the other rows wait. Its Out holds
// those rows only (Obs's first row is row lo's), and Ended the rows, by
// their numbers in the environment, that ended in this step. Rows are
// independent of each other, so stepping them in parts, in any order,
// plays the episodes that whole steps would: a client can choose one
// part's actions while another part steps.
func (e *Env) StepRows(lo, hi int, actions []int32) (*Out, error) {
	if err := e.CheckRows(lo, hi, actions); err != nil {
		return nil, err
	}
	e.clearEnded()
	if err := e.each(func(p *part) error { return e.stepPart(p, max(p.lo, lo), min(p.hi, hi), actions, lo) }); err != nil {
		e.reset = false
		return nil, err
	}
	for w := range e.parts {
		p := &e.parts[w]
		e.out.Ended = append(e.out.Ended, p.done...)
		e.out.Episode = append(e.out.Episode, p.episode...)
	}
	o := &e.out
	e.view = Out{
		Obs: o.Obs[lo*NumFeatures : hi*NumFeatures], Mask: o.Mask[lo*NumActions : hi*NumActions], Agent: o.Agent[lo:hi],
		Active: o.Active[lo:hi], U: o.U[lo:hi], Reward: o.Reward[lo:hi], Terminated: o.Terminated[lo:hi], Truncated: o.Truncated[lo:hi],
		Ended: o.Ended, Episode: o.Episode,
	}
	return &e.view, nil
}

// stepPart is StepRows on the part's rows in [lo, hi), whose actions
// start at row first's.
func (e *Env) stepPart(p *part, lo, hi int, actions []int32, first int) error {
	for i := lo; i < hi; i++ {
		r := &e.rows[i]
		if !r.active {
			if r.over {
				if err := e.finish(p, i); err != nil {
					return err
				}
			}
			continue
		}
		r.renewed = false
		if err := r.s.Act(collective.Action(actions[i-first])); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		if pending, ok := r.s.Next(); ok {
			r.pending = pending
			e.observe(p, i)
			continue
		}
		if err := e.finish(p, i); err != nil {
			return err
		}
	}
	return nil
}

// finish reports row i's finished episode and, with group 1, starts the
// row's next one; with a larger group the row waits, and the group's
// rewards are paid when its last row finishes if they depend on each
// other.
func (e *Env) finish(p *part, i int) error {
	r := &e.rows[i]
	res, err := r.s.Result()
	if err != nil {
		return fmt.Errorf("row %d: episode %d: %w", i, r.instance, err)
	}
	r.active, r.over = false, false
	r.result = res.Metrics
	p.ended = append(p.ended, i)
	p.done = append(p.done, int32(i))
	cfg := &e.variant.Spec.Collective
	reward := &e.variant.Spec.Reward
	// The episode's own reward, as episodes.csv scores it: a group of one.
	p.group[0] = res.Metrics
	reward.Group(cfg, 0, p.group[:1], p.scores[:1])
	r.finished = experiment.Row{Variant: e.variant.Name, Episode: int(r.instance), Metrics: res.Metrics, Reward: p.scores[0]}
	for _, metric := range e.metrics {
		p.episode = append(p.episode, metric.Value(&r.finished))
	}
	if res.TimedOut {
		e.out.Truncated[i] = 1
	} else {
		e.out.Terminated[i] = 1
	}
	switch {
	case e.g == 1:
		e.out.Reward[i] = r.finished.Reward
		g, streams, err := e.next(i)
		if err != nil {
			return err
		}
		if err := e.start(p, i, r.instance, streams, g); err != nil {
			return err
		}
		r.renewed = true
		return nil
	case reward.Penalty != rlcr.PenaltyGroupRelative:
		e.out.Reward[i] = r.finished.Reward
	default:
		e.payGroup(p, i-i%e.g)
	}
	e.observe(p, i)
	return nil
}

// next draws row i's next task instance (group 1) and sets it as the
// row's instance.
func (e *Env) next(i int) (*task.Graph, sim.Streams, error) {
	r := &e.rows[i]
	r.instance = r.k*uint64(e.n) + uint64(i)
	streams, g, err := experiment.DrawEpisodeInto(&e.draws[i], &e.variant, e.seed, int(r.instance))
	if err != nil {
		return nil, sim.Streams{}, fmt.Errorf("row %d: task instance %d: %w", i, r.instance, err)
	}
	return g, streams, nil
}

// payGroup pays the rewards of the group whose first row is first once
// all its rows have finished: scored together, as the learner scores a
// group, since a group-relative penalty compares their finish times.
func (e *Env) payGroup(p *part, first int) {
	for j := range e.g {
		if r := &e.rows[first+j]; r.active || r.over {
			return
		}
		p.group[j] = e.rows[first+j].result
	}
	e.variant.Spec.Reward.Group(&e.variant.Spec.Collective, 0, p.group, p.scores)
	copy(e.out.Reward[first:first+e.g], p.scores)
	for j := range e.g {
		p.ended = append(p.ended, first+j) // paid now, cleared at the next step
	}
}

// clearEnded clears what the last call reported of the episodes that
// ended in it (rewards, ends and metrics), so that a step costs the
// rows that act, not all of the table.
func (e *Env) clearEnded() {
	for w := range e.parts {
		p := &e.parts[w]
		for _, i := range p.ended {
			e.out.Reward[i], e.out.Terminated[i], e.out.Truncated[i] = 0, 0, 0
		}
		p.ended, p.done, p.episode = p.ended[:0], p.done[:0], p.episode[:0]
	}
	e.out.Ended, e.out.Episode = e.out.Ended[:0], e.out.Episode[:0]
}

// Finished returns row i's last finished episode as a row of episodes.csv
// (CommChanged aside, which needs a replay), and false if it has none.
func (e *Env) Finished(i int) (experiment.Row, bool) {
	r := &e.rows[i]
	return r.finished, r.finished.Variant != ""
}

// Pending returns row i's pending decision, and false if the row is
// inactive.
func (e *Env) Pending(i int) (collective.Pending, bool) {
	r := &e.rows[i]
	return r.pending, r.active
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
