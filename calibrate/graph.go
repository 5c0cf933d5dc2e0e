package calibrate

import (
	"cmp"
	"slices"

	"github.com/swarmsim/swarmsim/models/replay"
	"github.com/swarmsim/swarmsim/sim"
)

// graphRun returns the call graph of the run r for replay: each agent's
// model calls, tool calls and sub-agents, each after the steps of its
// agent that had ended when it started. Spans without an end are left
// out, as they are from the fit (and counted there); an agent without an
// end ends when its last step does.
func graphRun(r *runBuild) replay.Run {
	root := r.root
	a, _ := graphAgent(r.node)
	return replay.Run{ID: r.id, Start: root.Start, Duration: sim.Time(root.End - root.Start), Root: a}
}

// graphStep is a step with its recorded times, before the dependencies
// are worked out.
type graphStep struct {
	replay.Step
	start, end int64
}

// graphAgent returns the agent of the invoke_agent span n and when it
// ended (Unix nanoseconds).
func graphAgent(n *node) (replay.Agent, int64) {
	a := replay.Agent{Name: agentName(n.s)}
	var steps []graphStep
	var collect func(n *node)
	collect = func(n *node) {
		for _, c := range n.children {
			switch {
			case c.op == opAgent:
				sub, end := graphAgent(c)
				steps = append(steps, graphStep{replay.Step{Kind: replay.SubAgent, Name: sub.Name, Agent: &sub}, c.s.Start, end})
				continue
			case !c.s.HasEnd || c.s.End < c.s.Start:
			case slices.Contains(modelOps, c.op):
				st := replay.Step{Kind: replay.ModelCall, Name: modelName(c.s)}
				in, okIn := c.s.Int("gen_ai.usage.input_tokens")
				out, okOut := c.s.Int("gen_ai.usage.output_tokens")
				if okIn && okOut && in >= 0 && out >= 0 {
					st.Prompt, st.Output, st.HasTokens = in, out, true
				}
				steps = append(steps, graphStep{st, c.s.Start, c.s.End})
			case c.op == opTool:
				steps = append(steps, graphStep{replay.Step{Kind: replay.ToolCall, Name: toolName(c.s)}, c.s.Start, c.s.End})
			}
			collect(c)
		}
	}
	collect(n)
	slices.SortStableFunc(steps, func(a, b graphStep) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) })
	start := n.s.Start
	last := start
	for i := range steps {
		s := &steps[i]
		s.Recorded = sim.Time(s.end - s.start)
		ready := start
		for j := range i {
			if steps[j].end <= s.start {
				s.After = append(s.After, j)
				ready = max(ready, steps[j].end)
			}
		}
		s.Gap = sim.Time(max(s.start-ready, 0))
		last = max(last, s.end)
		a.Steps = append(a.Steps, s.Step)
	}
	end := n.s.End
	if !n.s.HasEnd || end < start {
		end = last
	}
	a.Tail = sim.Time(max(end-last, 0))
	return a, end
}

// Variants maps each model to the name of its variant in the scenario
// that Scenario writes, so that a replay sends each model's calls to the
// hosted API fitted from them. A rare model (f.RareModels) maps to the
// name a variant of its own would have: the fitted scenario has none, so
// its calls go to the first variant, while a scenario of the user's may
// name one after it.
func (f *Fit) Variants() map[string]string {
	names := f.modelNames()
	out := make(map[string]string, len(names))
	for i, m := range f.Models {
		out[m.Model] = names[i]
	}
	for i, r := range f.RareModels {
		out[r.Name] = names[len(f.Models)+i]
	}
	return out
}
