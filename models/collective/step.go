package collective

import (
	"errors"
	"fmt"

	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// Stepper runs an episode one decision at a time, with the actions given
// from outside: what an environment for an external learner, or a language
// model, steps. It is Run with the policy's call cut out: the episode
// stops at each decision that Run would put to the policy (a free agent
// with more than one action to choose from) and goes on when Act gives
// the action. Decisions without a choice (a single valid action, or none
// the policy may choose: Must) are taken on the spot, as in Run. The same
// graph, configuration, streams and options with the same actions give
// the episode Run gives with a policy that chooses them, to the byte:
// results, recorded decisions and traces.
//
// Pausing costs no goroutine and no allocation: the decision's callback
// stops the engine where Run would call the policy, and Act carries out
// the rest of that callback before the engine resumes. Like a Runner, a
// Stepper reuses its memory from one episode to the next; its zero value
// is ready. It must be used from one goroutine.
type Stepper struct {
	// Others, when not nil, decides for every agent but the main one
	// (agent 0), as Run's policy would, and the stepper pauses only at
	// the main agent's decisions: an orchestrator decided from outside
	// with its helpers and attempts decided by a built-in policy. Set it
	// before calling the method Start (the function Start makes a Stepper
	// without one).
	Others Policy

	r    Runner
	res  *Result
	err  error
	over bool
}

// Pending is a decision an episode waits for: the deciding agent, what it
// sees, the actions it may choose, and the uniform draw in [0, 1) that Run
// would pass to the policy (for a policy that samples, such as
// policy.Linear, to make Run's choice).
type Pending struct {
	Agent int
	// Obs is valid until the next Act or Start.
	Obs  *Observation
	Mask Mask
	U    float64
}

// Start begins an episode with Run's arguments but no policy and runs it
// to its first decision with a choice (or to its end). An error is one
// Run would return before the episode began.
func Start(g *task.Graph, cfg Config, streams sim.Streams, opts Options) (*Stepper, error) {
	s := &Stepper{}
	if err := s.Start(g, cfg, streams, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// Start is collective.Start on the stepper's memory. It ends any episode
// in progress.
func (s *Stepper) Start(g *task.Graph, cfg Config, streams sim.Streams, opts Options) error {
	s.res, s.err, s.over = nil, nil, true
	if err := s.r.start(g, cfg, s.Others, streams, opts); err != nil {
		s.err = err // Result reports it, as Run would, rather than a nil result and no error
		return err
	}
	s.r.ep.stepping = true
	s.over = false
	s.advance()
	return nil
}

// asks reports whether a's decision waits for an action from outside: a
// stepped episode asks for every decision, or for the main agent's only
// where a policy decides for the others (Stepper.Others).
func (ep *episode) asks(a *agent) bool {
	return ep.stepping && (a.main || ep.pol == nil)
}

// ask makes a's decision wait for an action from outside (Stepper): the
// engine stops once the decision's event is done, and the loop returns.
func (ep *episode) ask(a *agent, mask Mask, u float64) {
	ep.asking, ep.askMask, ep.askU = a, mask, u
	ep.env.Stop()
}

// advance runs the episode to its next decision with a choice, or to its
// end.
func (s *Stepper) advance() {
	ep := &s.r.ep
	err := ep.loop()
	if err == nil && ep.asking != nil {
		return
	}
	s.res, s.err = s.r.finish(err)
	s.over = true
}

// Next returns the decision the episode waits for, or false once it is
// over (Result then says how it ended).
func (s *Stepper) Next() (Pending, bool) {
	ep := &s.r.ep
	if s.over || ep.asking == nil {
		return Pending{}, false
	}
	return Pending{Agent: ep.asking.id, Obs: &ep.obs, Mask: ep.askMask, U: ep.askU}, true
}

// BudgetUsed returns the tokens the episode in progress has drawn from
// Config.TokenBudget so far (0 without a budget, or with no decision
// pending): the observation leaves it out, as a policy's features do, but
// a reader deciding near the end of a budget wants it.
func (s *Stepper) BudgetUsed() int64 {
	ep := &s.r.ep
	if s.over || ep.asking == nil || ep.res == nil {
		return 0
	}
	return ep.res.BudgetUsed
}

// Act gives the pending decision's action and runs the episode to its
// next decision with a choice, or to its end. An action outside the
// decision's mask is refused with an error wrapping ErrInvalidAction, and
// the episode stays where it was, waiting for a valid one. An Act with no
// decision pending (the episode over, or never started) is an error too,
// of its own.
func (s *Stepper) Act(act Action) error {
	ep := &s.r.ep
	a := ep.asking
	if s.over || a == nil {
		return errors.New("collective: Act with no decision pending (the episode is over or not started)")
	}
	if !ep.askMask.Has(act) {
		return fmt.Errorf("%w: %v (allowed %s) by agent %d at %v", ErrInvalidAction, act, ep.askMask.List(), a.id, ep.env.Now())
	}
	ep.asking = nil
	a.turn()
	a.apply(act, ep.askMask)
	s.advance()
	return nil
}

// Result returns the finished episode's result, as Run returns it, or its
// error. The result belongs to the stepper and is valid until the next
// Start. Before the episode is over it is an error.
func (s *Stepper) Result() (*Result, error) {
	if !s.over {
		if s.r.ep.asking == nil {
			// Start leaves an episode over or waiting for a decision, so
			// neither means it never began.
			return nil, errors.New("collective: Result of a Stepper never started (call Start first)")
		}
		return nil, errors.New("collective: Result of an episode still in progress")
	}
	return s.res, s.err
}
