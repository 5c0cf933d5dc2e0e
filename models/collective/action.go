package collective

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/swarmsim/swarmsim/internal/spelling"
)

// Action is what a free agent decides to do next. The action set is the
// same for every organization: fixed organizations are fixed policies over
// it, and a learned policy chooses among the same actions.
type Action uint8

// The actions.
const (
	// Work takes the next ready subtask and attempts it yourself.
	Work Action = iota
	// Delegate hands the next ready subtask to an idle helper, spawning
	// one if none is idle. The delegating agent stays free.
	Delegate
	// Attempt starts an independent attempt at the whole task: a new agent
	// with its own copy of the task, whose result is a candidate for
	// selection. Main agent only.
	Attempt
	// Share sends intermediate findings of your last part to the agents
	// working on parts it must be reconciled with.
	Share
	// Check verifies your last part; a flagged part is attempted again.
	Check
	// Wait idles until something changes: ready work, a message, a
	// finished attempt.
	Wait
	// Submit ends the episode with the result (main agent), or hands an
	// independent attempt's result in as a candidate.
	Submit

	// NumActions is the size of the action set.
	NumActions = int(Submit) + 1
)

var actionNames = [NumActions]string{"work", "delegate", "attempt", "share", "check", "wait", "submit"}

// String returns the action's name as used in tables and scenario files.
func (a Action) String() string {
	if int(a) < NumActions {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", a)
}

// ParseAction returns the action with the given name.
func ParseAction(s string) (Action, error) {
	for i, n := range actionNames {
		if n == s {
			return Action(i), nil
		}
	}
	return 0, fmt.Errorf("unknown action %q (allowed: %s)%s", s, strings.Join(actionNames[:], ", "), spelling.DidYouMean(s, actionNames[:]))
}

// Mask is the set of actions valid in a state, one bit per action.
type Mask uint8

// Has reports whether a is in the mask.
func (m Mask) Has(a Action) bool { return m&(1<<a) != 0 }

// With returns the mask with a added.
func (m Mask) With(a Action) Mask { return m | 1<<a }

// Single reports whether the mask holds exactly one action.
func (m Mask) Single() bool { return m != 0 && m&(m-1) == 0 }

// First returns the lowest action in the mask; the mask must not be empty.
func (m Mask) First() Action { return Action(bits.TrailingZeros8(uint8(m))) }

// List returns the names of the mask's actions, separated by commas, in
// the order of the action set.
func (m Mask) List() string {
	s := ""
	for a := range Action(NumActions) {
		if m.Has(a) {
			if s != "" {
				s += ","
			}
			s += a.String()
		}
	}
	return s
}

// ParseMask returns the mask holding the named actions. Each name must be
// an action's and appear once.
func ParseMask(names []string) (Mask, error) {
	var m Mask
	for i, n := range names {
		a, err := ParseAction(n)
		if err != nil {
			return 0, fmt.Errorf("[%d]: %w", i, err)
		}
		if m.Has(a) {
			return 0, fmt.Errorf("[%d]: %q is listed twice", i, n)
		}
		m = m.With(a)
	}
	return m, nil
}

// Must is what an agent does when none of the actions its policy may choose
// is valid: it goes on working while there is work, submits a complete
// result, and otherwise waits; failing those, it takes its lowest valid
// action. valid must not be empty.
func Must(o *Observation, valid Mask) Action {
	switch {
	case valid.Has(Work):
		return Work
	case valid.Has(Submit) && o.Complete:
		return Submit
	case valid.Has(Wait):
		return Wait
	case valid.Has(Submit):
		return Submit
	}
	return valid.First()
}

// Observation is what an agent can see when it decides. Counts refer to the
// agent's own attempt (the main team, or an independent attempt).
type Observation struct {
	Agent     int     // the agent's number (0 is the main agent); identifies, is not a feature
	Main      bool    // the agent is the main (orchestrating) agent
	Alone     bool    // the agent works an independent attempt alone
	TimeUsed  float64 // elapsed time over the time limit; 0 without a limit
	Elapsed   float64 // elapsed virtual seconds
	Progress  float64 // fraction of the task's work done: finished and handed on, or no longer needed
	Ready     int     // subtasks ready to start
	Busy      int     // other agents busy
	Idle      int     // other agents waiting
	Free      int     // agents that may still be spawned
	Unread    int     // messages waiting to be read
	Attempts  int     // independent attempts started so far
	Pending   int     // independent attempts started and not yet submitted
	Unchecked bool    // the agent holds a part not yet verified
	Unshared  bool    // the agent holds findings not yet shared with partners
	Coupling  float64 // largest coupling of a join fed by the agent's part or the next ready subtask
	NextWork  float64 // work of the next ready subtask over the task's mean work per subtask
	Retries   int     // retries already spent on the held part
	Complete  bool    // the result can be completed: every part handed on, or the agent holds the last
	Kind      int     // the task's kind: 1 + its index in task.Kinds; 0 for a task without one
}

// Policy decides what a free agent does. Every agent of the collective asks
// the same policy. u is a uniform draw in [0, 1) from the agent's own random
// stream, for policies that sample; the returned action must be in mask.
// obs is valid only during the call: a policy that keeps it must copy it.
type Policy interface {
	Decide(obs *Observation, mask Mask, u float64) Action
}

// PolicyFunc adapts a function to the Policy interface.
type PolicyFunc func(obs *Observation, mask Mask, u float64) Action

// Decide calls f.
func (f PolicyFunc) Decide(obs *Observation, mask Mask, u float64) Action { return f(obs, mask, u) }

// Decision is one recorded decision: what the agent saw, what it could do
// and what it did. The learner computes its gradients from these.
type Decision struct {
	Agent  int
	Obs    Observation
	Mask   Mask
	Action Action
}
