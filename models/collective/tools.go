package collective

import (
	"fmt"
	"math"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// toolPool is the collective's pool of tool sandboxes, and the draws of
// its calls' latencies, named by the calls.
type toolPool struct {
	ep      *episode
	pool    serving.Pool
	latency sim.Key
	draw    sim.Sampler // of the task's tool latency
}

// startTool begins the agent's next tool call, or queues it for a sandbox.
func (a *agent) startTool() {
	t := a.ep.tools
	now := a.ep.env.Now()
	a.span(a.activity, now, a.kind, a.ep.g.Nodes[a.cur].Name)
	a.activity = now
	if !t.pool.Acquire(a.id) {
		a.req.Arrive = now
		a.toolQueued = true
		return
	}
	t.run(a, now)
}

// run starts the agent's tool call in a sandbox it holds.
func (t *toolPool) run(a *agent, now sim.Time) {
	ep := t.ep
	label := ep.g.Nodes[a.cur].Name
	if now > a.req.Arrive && a.toolQueued {
		ep.res.ToolWait += now - a.req.Arrive
		a.span(a.req.Arrive, now, "tool-wait", label)
	}
	a.toolQueued = false
	x, y := a.workKey()
	s := t.draw.Sample(ep.draw(t.latency, x, y, uint64(a.toolsDue)))
	d, err := sim.FromSeconds(s)
	if err != nil {
		ep.fail(fmt.Errorf("collective: task.tool_latency: drew %v s, beyond the range of virtual time", s))
		return
	}
	ep.res.ToolCalls++
	a.span(now, now+d, "tool", label)
	a.activity = now + d
	a.later(d, a.toolDoneFn)
}

// toolDone frees the sandbox for the next queued call and goes on with the
// agent's work.
func (a *agent) toolDone() {
	t := a.ep.tools
	if id, ok := t.pool.Release(); ok {
		t.run(a.ep.agents[id], a.ep.env.Now())
	}
	if a.stale() {
		return
	}
	a.toolsDue--
	if a.toolsDue > 0 {
		a.startTool()
		return
	}
	a.afterCall()
}

// toolCallsAfter returns how many of the attempt's tool calls follow its
// j-th model call (1-based) of n: they are spread evenly, the last ones
// after the last call.
func toolCallsAfter(total, j, n int) int {
	return total*j/n - total*(j-1)/n
}

// drawToolCalls draws the number of tool calls of one attempt (or loop
// iteration) at part v.
func (a *agent) drawToolCalls() int {
	ep := a.ep
	calls := ep.g.Tools().Calls
	if calls.IsZero() {
		return 0
	}
	x, y := a.workKey()
	n := calls.Sample(ep.draw(ep.toolCalls, x, y, 0))
	return int(math.Min(math.Round(n), maxToolCalls))
}

// maxToolCalls bounds the tool calls of one attempt, so that a typo in a
// distribution cannot stall an episode in tool calls.
const maxToolCalls = 1 << 20
