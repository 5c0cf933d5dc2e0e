package collective

import (
	"math"

	"github.com/swarmsim/swarmsim/sim"
)

// call starts one model call of the part in progress, unless the part
// became moot while the agent waited for its inputs.
func (a *agent) call() {
	if a.stale() {
		return
	}
	a.startCall()
}

// startCall starts one model call of the part in progress, which is not
// stale: afterCall calls it right after callDone or toolDone found so.
func (a *agent) startCall() {
	ep := a.ep
	now := ep.env.Now()
	read := a.readMessages()
	if a.callsLeft == 1 {
		a.part(a.cur).lastCall = now + read
	}
	a.callWork = nextCallWork(a.callQ, a.callR, a.callsLeft)
	c := &ep.cfg.Calls
	prompt := c.SystemPrompt + a.context + a.inputTokens
	cc := &a.callCosts
	cc.update(ep, a.callWork, prompt)
	output := cc.output
	if ep.res.Trace != nil {
		// The span of what came before (the call before this one, or
		// the input's transfer), also when a token budget refuses this
		// call; nothing but a trace reads it.
		a.span(a.activity, now, a.kind, ep.g.Nodes[a.cur].Name)
		a.activity = now
	}
	if ep.cfg.TokenBudget > 0 && !ep.spend(a, int64(prompt)+output) {
		return // the call is not made, and the agent stops
	}
	ep.res.ModelCalls++
	ep.res.PromptTokens += int64(prompt)
	ep.res.OutputTokens += output
	a.steps++
	if ep.res.Trace != nil {
		// What the call's span will show.
		a.callPrompt, a.callOutput = int64(prompt), output
		a.activity, a.kind = now, "work"
		a.inCall = true
	}
	if ep.server != nil {
		// The shared server prefills and decodes; the call reaches it
		// after the agent has read its messages and the call's overhead.
		a.req = request{node: a.cur}
		a.req.Prompt, a.req.Output = int64(prompt), output
		ep.server.submit(a, read+c.Overhead)
		return
	}
	d := read + c.Overhead + cc.prefill + cc.work
	if ep.runsOK && a.callsLeft > 1 && a.startRun(d, prompt) {
		return
	}
	a.later(d, a.callDoneFn)
}

// callCosts holds the costs of a model call that depend only on its work
// and its prompt, for the last work and prompt seen: the calls of a part
// have at most two sizes of work and the same prompt until a message is
// read, so most calls reuse them instead of rounding three products again.
type callCosts struct {
	callWork sim.Time // the work output and work are for; -1 for none
	prompt   int      // the prompt prefill is for; -1 for none
	output   int64    // output tokens of callWork
	work     sim.Time // the time callWork takes at the collective's speed
	prefill  sim.Time // the time reading prompt takes
}

func (cc *callCosts) update(ep *episode, callWork sim.Time, prompt int) {
	if callWork != cc.callWork || prompt != cc.prompt {
		cc.compute(ep, callWork, prompt) // apart, so that the common case is inlined
	}
}

// compute is update for a work or a prompt other than the last.
func (cc *callCosts) compute(ep *episode, callWork sim.Time, prompt int) {
	c := &ep.cfg.Calls
	if callWork != cc.callWork {
		cc.callWork = callWork
		cc.output = int64(math.Round(callWork.Seconds() * c.OutputRate))
		cc.work = scale(callWork, 1/ep.cfg.Speed)
	}
	if prompt != cc.prompt {
		cc.prompt = prompt
		cc.prefill = scale(c.PromptToken, float64(prompt))
	}
}

// callDone ends a model call: the tool calls that follow it, if any, come
// next.
func (a *agent) callDone() {
	a.inCall = false
	if a.stale() {
		return
	}
	a.callsLeft--
	if a.toolsTotal > 0 {
		if a.toolsDue = toolCallsAfter(a.toolsTotal, a.callsTotal-a.callsLeft, a.callsTotal); a.toolsDue > 0 {
			a.startTool()
			return
		}
	}
	if a.callsLeft > 0 {
		a.startCall() // afterCall's common case, without a call to it
		return
	}
	a.afterCall()
}

// served ends the agent's call at the shared server: a check or a model
// call of the part in progress.
func (a *agent) served() {
	res := a.ep.res
	res.ServedCalls++
	res.ServingTime += a.ep.env.Now() - a.req.Arrive
	if a.req.check {
		a.inCall = false
		a.span(a.activity, a.ep.env.Now(), "check", a.ep.g.Nodes[a.req.node].Name)
		a.checkDone()
		return
	}
	a.callDone()
}
