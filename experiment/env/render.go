package env

import (
	"fmt"
	"math"
	"strings"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// actionHelp says what each action does, for a reader choosing one.
var actionHelp = [NumActions]string{
	collective.Work:     "take the next ready subtask and work on it yourself",
	collective.Delegate: "hand the next ready subtask to an idle helper, spawning one if none is idle; you stay free",
	collective.Attempt:  "start an independent attempt at the whole task: a new agent with its own copy, whose result competes at selection",
	collective.Share:    "send what you found in your last part to the agents whose parts must be reconciled with it",
	collective.Check:    "verify your last part; a flawed part is attempted again",
	collective.Wait:     "idle until something changes: ready work, a message, a finished attempt",
	collective.Submit:   "submit the result: the main agent ends the episode; an independent attempt hands in its candidate",
}

// duplicateHelp is what delegate does with no subtask ready, which
// collective.handoff.duplicates allows: the next ready subtask of
// actionHelp would be none.
const duplicateHelp = "hand a duplicate of the last subtask you delegated, still in progress, to another helper, spawning one if none is idle; its result is never used"

// reviewHelp is what check does under check.by orchestrator, for the
// main agent (true) and for a helper of its team (false).
var reviewHelp = map[bool]string{
	true:  "verify your own unchecked part, or else the next part a helper handed back; a flawed part is redone",
	false: "hand your last part back to the main agent, who checks the team's parts here (free for you)",
}

// kindHelp says what each kind of task is like (models/task's presets),
// for a reader who has not read their definitions.
var kindHelp = map[string]string{
	task.KindDecomposable: "independent parts merged by one synthesis step at the end",
	task.KindNavigation:   "a search among alternative paths, many of them dead ends that show only after some work; the first good path settles it",
	task.KindSequential:   "a chain whose every step needs the result of the step before it",
	task.KindToolHeavy:    "a small workflow whose every part makes many tool calls",
}

// Render describes row i's pending decision in words: who decides, what
// it can see (its part, the task's progress, its team, its messages, the
// clock) and the valid actions by name, each with what it does; with
// group 1, the first decision of a row's episode also tells how the
// row's last one ended, as a waiting row's text does with larger groups. It is the
// observation of a policy that reads, such as a language model; the
// numbers are those of the feature vector, before scaling.
func (e *Env) Render(i int) string {
	p, ok := e.Pending(i)
	if r := &e.rows[i]; r.over {
		text := fmt.Sprintf("Row %d has no decision pending: its episode ended where it began, with no agent ever choosing between two actions; the next step reports how.", i)
		if r.renewed {
			// Begun in the step that ended the last one, which its text
			// would otherwise never tell.
			f, _ := e.Finished(i)
			text = fmt.Sprintf("This row's last episode ended in the last step. %s %s", e.result(&f.Metrics, f.Reward), text)
		}
		return text
	}
	if !ok {
		text := fmt.Sprintf("Row %d has no decision pending: its episode ended, and the row waits for reset.", i)
		if f, ok := e.Finished(i); ok {
			text += " " + e.result(&f.Metrics, f.Reward)
		}
		return text
	}
	o := p.Obs
	var b strings.Builder
	// With group 1 a row starts its next episode in the step that ends
	// one: a reader of the text alone would never learn how it ended.
	if e.rows[i].renewed {
		f, _ := e.Finished(i)
		fmt.Fprintf(&b, "This row's last episode ended in the last step. %s A new episode, on a new task, starts here.\n", e.result(&f.Metrics, f.Reward))
	}
	who := "a helper on the main team"
	switch {
	case o.Main:
		who = "the main agent, which orchestrates the team and submits the result"
	case o.Alone:
		who = "an agent working an independent attempt at the whole task alone"
	}
	fmt.Fprintf(&b, "You are agent %d, %s.\n", p.Agent, who)
	// The kind is a feature (kind_*), and a mixture of kinds is where a
	// policy must tell them apart: a reader without it would be blind to
	// what the numbers show.
	if k := o.Kind; k > 0 && k <= len(task.Kinds) {
		fmt.Fprintf(&b, "Task: of the kind %s, %s.\n", task.Kinds[k-1], kindHelp[task.Kinds[k-1]])
	}
	// To the second: a reader's prompt has no use for nanoseconds.
	elapsed := sim.Time(math.Round(o.Elapsed)) * sim.Second
	if limit := e.variant.Spec.Collective.TimeLimit; limit > 0 {
		// The time left in words: a reader would otherwise subtract
		// durations, and a rounded percentage reads 100% with minutes
		// still to go. It adds up with the elapsed time shown.
		left := max(limit-elapsed, 0)
		fmt.Fprintf(&b, "Time: %v of virtual time has passed, %.0f%% of the time limit of %v; %v left.\n", elapsed, 100*o.TimeUsed, limit, left)
	} else {
		fmt.Fprintf(&b, "Time: %v of virtual time has passed; there is no time limit.\n", elapsed)
	}
	// The fraction counts parts finished and handed on by their makers
	// (or made moot), not parts handed out to be worked on: at 0% a
	// subtask may be ready, or every one in progress.
	fmt.Fprintf(&b, "Progress: %.0f%% of the task's work is done (finished and handed on, or no longer needed)", 100*o.Progress)
	switch {
	case o.Complete && o.Progress < 1:
		// The agent holds the last part left, finished and not yet
		// handed on (collective's resultComplete): its work is not in the
		// percentage, which "every subtask" would contradict.
		b.WriteString("; every other subtask is done, and the part you hold is the last, so the result can be completed.\n")
	case o.Complete:
		b.WriteString("; every subtask is done, so the result can be completed.\n")
	case o.Ready == 0:
		b.WriteString("; no subtask is ready to start.\n")
	default:
		fmt.Fprintf(&b, "; %s ready to start, the next one %.1f times the mean work of a subtask.\n", count(o.Ready, "subtask is", "subtasks are"), o.NextWork)
	}
	spawn := "can still be spawned"
	if o.Alone {
		// The collective's room, which an attempt's agent never spawns
		// into: it has no delegate.
		spawn = "can still be spawned by the main team, not by you"
	}
	fmt.Fprintf(&b, "Team: %s busy, %s waiting, %s %s.\n", count(o.Busy, "other agent", "other agents"), count(o.Idle, "agent", "agents"), count(o.Free, "more agent", "more agents"), spawn)
	// The budget ends an episode at the first call that would overdraw
	// it: a reader told of the budget in the objective alone would not see
	// that coming.
	if budget := e.variant.Spec.Collective.TokenBudget; budget > 0 {
		used := e.rows[i].s.BudgetUsed()
		fmt.Fprintf(&b, "Tokens: %d of the team's budget of %d spent, %d left (%.0f%%).\n", used, budget, budget-used, 100*float64(budget-used)/float64(budget))
	}
	if o.Attempts > 0 {
		fmt.Fprintf(&b, "Independent attempts: %d started, %d not yet submitted.\n", o.Attempts, o.Pending)
	}
	if o.Unread > 0 {
		fmt.Fprintf(&b, "Messages: %s to be read (you read %s in your next model call).\n", count(o.Unread, "message waiting", "messages waiting"), map[bool]string{true: "it", false: "them"}[o.Unread == 1])
	} else {
		b.WriteString("Messages: none unread.\n")
	}
	// Under check.by orchestrator the main agent's unchecked part may be
	// a helper's handed back for review, and not checking accepts it:
	// "you hold a finished part" would tell a reader neither.
	review := e.variant.Spec.Collective.Check.By == collective.ByOrchestrator && !o.Alone
	if review && o.Main && o.Unchecked {
		b.WriteString("Checks: you check the team's parts here; a finished part (yours, or one a helper handed back to you) waits for your check, and any action but check accepts the parts waiting unchecked.\n")
	}
	if o.Unchecked && !(review && o.Main) || o.Unshared || o.Retries > 0 {
		var held []string
		if o.Unchecked && !(review && o.Main) {
			held = append(held, "not yet checked")
		}
		if o.Unshared {
			held = append(held, "with findings not yet shared with its partners")
		}
		if o.Retries > 0 {
			held = append(held, fmt.Sprintf("after %s", count(o.Retries, "retry", "retries")))
		}
		fmt.Fprintf(&b, "Your part: you hold a finished part, %s.\n", strings.Join(held, ", "))
	}
	if o.Coupling > 0 {
		fmt.Fprintf(&b, "Coupling: parts made apart conflict with probability %.2f where they join, unless their makers shared findings.\n", o.Coupling)
	}
	b.WriteString("Valid actions:\n")
	for a := range collective.Action(NumActions) {
		if p.Mask.Has(a) {
			help := actionHelp[a]
			switch {
			case a == collective.Check && review:
				help = reviewHelp[o.Main]
			case a == collective.Delegate && o.Ready == 0:
				help = duplicateHelp
			}
			fmt.Fprintf(&b, "- %s: %s\n", a, help)
		}
	}
	return b.String()
}

// result says how a finished episode ended and what it scored: a harness
// that shows a model its episodes' outcomes, or logs them for a reader,
// needs them in words as much as the decisions.
func (e *Env) result(m *collective.Metrics, reward float64) string {
	at := sim.Time(math.Round(m.Finish.Seconds())) * sim.Second
	var b strings.Builder
	switch {
	case m.TimedOut:
		fmt.Fprintf(&b, "The time limit cut it off at %v, so its result is not acceptable.", at)
	case m.Stalled:
		fmt.Fprintf(&b, "It stopped at %v without a submission, with nothing left to do; its result is not acceptable.", at)
	case m.BudgetExhausted:
		// Nothing was submitted: the budget ended the episode, and the
		// work complete then was judged.
		fmt.Fprintf(&b, "The token budget ran out at %v, before a submission; judged on the work complete by then, its result is %s.", at, map[bool]string{true: "acceptable", false: "not acceptable"}[m.Acceptable])
	case m.Acceptable:
		fmt.Fprintf(&b, "Its result was submitted at %v of virtual time and is acceptable.", at)
	default:
		fmt.Fprintf(&b, "Its result was submitted at %v of virtual time and is not acceptable.", at)
	}
	if r := e.variant.Spec.Reward; r.Penalty == rlcr.PenaltyGroupRelative && r.Latency != 0 {
		// The group's ranking is paid in the step that ends the group,
		// and a row does not keep it.
		fmt.Fprintf(&b, " Its reward scored alone is %.3f (the reward paid adds the ranking of its group's finish times).", reward)
	} else {
		fmt.Fprintf(&b, " Its reward is %.3f.", reward)
	}
	return b.String()
}

// count writes n with the noun's singular or plural.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
