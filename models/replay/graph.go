package replay

import (
	"errors"
	"fmt"

	"github.com/swarmsim/swarmsim/sim"
)

// Kind is what a step of an agent does.
type Kind uint8

// The kinds of step.
const (
	ModelCall Kind = iota
	ToolCall
	SubAgent
)

func (k Kind) String() string {
	switch k {
	case ModelCall:
		return "model"
	case ToolCall:
		return "tool"
	case SubAgent:
		return "agent"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Step is one thing an agent did: a model call, a tool call or a
// sub-agent's whole work.
type Step struct {
	Kind Kind
	// Name is the model (gen_ai.request.model), the tool or, for a
	// SubAgent, the agent.
	Name string
	// Prompt and Output are a model call's recorded tokens, meaningful
	// when HasTokens; a call without them is replayed with its model's
	// mean tokens.
	Prompt, Output int64
	HasTokens      bool
	// Recorded is the step's recorded duration: a tool call's is kept,
	// a model call's is paired with its replayed latency (Pairing).
	Recorded sim.Time
	// After lists the steps of the same agent, by index, that had ended
	// when this one started: it starts when they have all ended in the
	// replay, Gap later (the framework's time between them, as recorded,
	// measured from the last of them to end, or from the agent's start
	// when After is empty).
	After []int
	Gap   sim.Time
	// Agent is a SubAgent's work.
	Agent *Agent
}

// Agent is one agent's steps in start order, and the framework time
// between the end of its last step and its own end.
type Agent struct {
	Name  string
	Steps []Step
	Tail  sim.Time
}

// Run is one recorded run: its root agent, when it started (Unix
// nanoseconds, for a load that replays recorded start times) and how long
// it took.
type Run struct {
	ID       string
	Start    int64
	Duration sim.Time
	Root     Agent
}

// errGraph is wrapped by the errors of a malformed run.
var errGraph = errors.New("malformed run")

// check reports a step that waits for itself or for a later step (which
// would never start), a negative time, or a SubAgent without its agent.
func (a *Agent) check(path string) error {
	if a.Tail < 0 {
		return fmt.Errorf("%w: %s: negative tail %v", errGraph, path, a.Tail)
	}
	for i, s := range a.Steps {
		where := fmt.Sprintf("%s step %d", path, i)
		if s.Gap < 0 || s.Recorded < 0 {
			return fmt.Errorf("%w: %s: negative time (gap %v, recorded %v)", errGraph, where, s.Gap, s.Recorded)
		}
		for _, j := range s.After {
			if j < 0 || j >= i {
				return fmt.Errorf("%w: %s: after step %d, which is not an earlier step", errGraph, where, j)
			}
		}
		if s.Kind == SubAgent {
			if s.Agent == nil {
				return fmt.Errorf("%w: %s: a sub-agent step without its agent", errGraph, where)
			}
			if err := s.Agent.check(where + " (" + s.Agent.Name + ")"); err != nil {
				return err
			}
		}
	}
	return nil
}

// walk calls f for every agent of the run, the root first, depth first.
func (a *Agent) walk(f func(*Agent)) {
	f(a)
	for i := range a.Steps {
		if s := &a.Steps[i]; s.Kind == SubAgent {
			s.Agent.walk(f)
		}
	}
}
