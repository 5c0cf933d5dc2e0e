package rlcr

import (
	"fmt"
	"strings"

	"github.com/swarmsim/swarmsim/models/collective"
)

// Describe says in words how Group scores an episode of c at iteration
// 0 (the PARL terms at their full weight), with the defaults resolved:
// the objective as a reader, such as a language model deciding in
// simulate env, needs it. Two variants that differ only in their reward
// (latency-pressure's none and high) pose the same decisions, and only
// this tells them apart. It lives beside Group so that a change to one
// shows in the other's tests.
func (r *Reward) Describe(c *collective.Config) string {
	var b strings.Builder
	// A group-relative term compares the group's finish times, so that
	// the reward is known, and paid, only when the group's last episode
	// ends.
	ranked := r.Latency != 0 && r.Penalty == PenaltyGroupRelative
	when := "when it ends"
	if ranked {
		when = "when the last episode of its group ends"
	}
	fmt.Fprintf(&b, "Scoring: the episode earns one reward, paid %s (0 before): %g if the submitted result is acceptable, else 0", when, r.Task)
	if r.Latency != 0 {
		if ranked {
			fmt.Fprintf(&b, "; %s × λ, where λ is 0.5 for the earliest finish among the rows of its group (the same task, played by other rows) and falls linearly to −0.5 for the latest (0 for all where they finish together or the group is one row), and is at most 0 for a result that is not acceptable", plus(r.Latency))
		} else {
			fmt.Fprintf(&b, "; %s × %s", plus(-r.Latency), r.penaltyWords(c))
		}
	}
	if r.Cost != 0 {
		fmt.Fprintf(&b, "; %s × the total busy time of all agents over %v", plus(-r.Cost), r.costScale(c))
	}
	if r.Anneal > 0 && (r.Parallel != 0 || r.Finish != 0) {
		// rParallel is 0 without an agent besides the main one: no term.
		if r.Parallel != 0 && c.Agents > 1 {
			fmt.Fprintf(&b, "; %s × the helpers and independent attempts started over the %d that could exist besides the main agent (at most 1)", plus(r.Parallel), c.Agents-1)
		}
		if r.Finish != 0 {
			fmt.Fprintf(&b, "; %s × the share of the subtasks handed to helpers that they completed", plus(r.Finish))
		}
	}
	b.WriteString(".")
	if c.TimeLimit > 0 {
		fmt.Fprintf(&b, " An episode that reaches the time limit of %v is cut off: its result is not acceptable, and it counts as finishing at the limit (so does one that stalls, with nothing left to do before a submission).", c.TimeLimit)
	} else {
		b.WriteString(" There is no time limit.")
	}
	// An episode the budget ends is scored at the time it ended, not at
	// the limit (finishTime), and may be acceptable: a reader that did
	// not know of the budget would take it for a stall.
	if c.TokenBudget > 0 {
		fmt.Fprintf(&b, " The agents share a budget of %d tokens (every model call's prompt and output, checks included): the first call that would overdraw it is not made, and the episode ends there, at that time, its result judged on the work complete by then.", c.TokenBudget)
	}
	return b.String()
}

// plus words a term of weight w added to the reward: "plus 0.5", or
// "minus 0.5" for a negative weight, as a reader would write it.
func plus(w float64) string {
	if w < 0 {
		return fmt.Sprintf("minus %g", -w)
	}
	return fmt.Sprintf("plus %g", w)
}

// penaltyWords is P(T) of penalty in words, with its parameters.
func (r *Reward) penaltyWords(c *collective.Config) string {
	switch r.Penalty {
	case PenaltyLinear:
		return fmt.Sprintf("the finish time over %v", r.scale(c))
	case PenaltyQuadratic:
		return fmt.Sprintf("the square of the finish time over %v", r.scale(c))
	case PenaltyExponential:
		return fmt.Sprintf("(1 − exp(−finish time / %v))", r.scale(c))
	case PenaltyDeadline:
		return fmt.Sprintf("(1 if the finish time is after %v, else 0)", r.deadline(c))
	case PenaltySoftOverlong:
		d, b := r.deadline(c), r.buffer(c)
		return fmt.Sprintf("(0 for a finish time up to %v, rising linearly to 1 at %v, and 1 after)", d-b, d)
	case PenaltyCriticalSteps:
		// The main agent's decisions count as steps (collective's turn),
		// each wait among them: a reader told of model calls alone would
		// take its own deciding for free.
		return fmt.Sprintf("the steps on the critical chain (model calls, and the main agent's decisions) over %g", r.steps())
	}
	return "0"
}
