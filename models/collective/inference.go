package collective

import (
	"fmt"
	"math/rand/v2"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// The glue between the agents and a shared model server of package
// serving: a self-hosted deployment (serving.Replicas) or a hosted API
// (serving.Hosted). An agent has at most one model call in flight, so the
// call (a.req) lives in the agent and nothing is allocated per call; the
// server names it by the agent's id.

// server is the shared model server of an episode.
type server interface {
	// submit hands the server the agent's call (a.req), which reaches it
	// after delay; the server calls a.served when the call is complete.
	submit(a *agent, delay sim.Time)
	// finish records the server's figures in the episode's metrics.
	finish(now sim.Time, m *Metrics)
}

// request is the model call an agent has at a shared server.
type request struct {
	serving.Call
	node  task.ID // the part it works on or checks
	check bool    // a check of a held part, not a call of the part in progress
}

// client is the episode as the servers' client: it tells the agent of the
// call's id (the agent's) of its progress.
type client episode

func (c *client) Admitted(id int, at sim.Time) { c.agents[id].waited(at) }
func (c *client) Done(id int)                  { c.agents[id].served() }
func (c *client) Fail(err error)               { (*episode)(c).fail(err) }

// setStats records a server's figures in the episode's metrics.
func (m *Metrics) setStats(s serving.Stats) {
	m.ServerUtilisation, m.ServingQueueMean, m.BatchMean = s.Utilisation, s.QueueMean, s.BatchMean
}

// waited books the wait of a call admitted at time at, and traces it as a
// slice.
func (a *agent) waited(at sim.Time) {
	res := a.ep.res
	if res.Trace != nil {
		a.traceWait(at) // apart, so that waited is inlined
	}
	if arrive := a.req.Arrive; at > arrive {
		res.ServingWait += at - arrive
		a.activity = at
	}
}

// traceWait traces the call's way to the server and its wait there.
// Reading messages and the call's overhead precede the call at the server
// even when it does not wait, so that a trace's work span is the server's
// time alone (what a client's span of a call to a hosted API measures).
func (a *agent) traceWait(at sim.Time) {
	arrive := a.req.Arrive
	label := a.ep.g.Nodes[a.req.node].Name
	a.span(a.activity, arrive, "send", label)
	a.span(arrive, at, "queue", label)
	a.activity = max(a.activity, arrive)
}

// selfHosted is the self-hosted deployment shared by the agents.
type selfHosted struct{ serving.Replicas }

func (s *selfHosted) submit(a *agent, delay sim.Time) {
	a.req.ID = a.id
	s.Submit(&a.req.Call, delay)
}

func (s *selfHosted) finish(now sim.Time, m *Metrics) { m.setStats(s.Finish(now)) }

// hostedAPI is the hosted API shared by the agents, and the draws of its
// calls' times to first token, named by the calls.
type hostedAPI struct {
	serving.Hosted
	ep       *episode
	ttft     sim.Key
	ttftDraw sim.Sampler
	// The time to first token is drawn from src, named by the call: one
	// hash per call, where the episode's PCG takes two to seed.
	src sim.Source
	rng *rand.Rand
	// The draws made ahead of each agent's calls, by agent id: kept here
	// rather than in the agent, so that an episode without an API (of
	// thousands of agents, say) does not carry them.
	ahead []drawsAhead
}

// reset makes h the API of cfg for ep, on the memory it had.
func (h *hostedAPI) reset(ep *episode, cfg *serving.API, streams sim.Streams) error {
	h.ep, h.ttft, h.ttftDraw, h.ahead = ep, streams.Key("ttft"), cfg.TTFT.Sampler(), h.ahead[:0]
	if h.rng == nil {
		h.rng = rand.New(&h.src)
	}
	return h.Reset(ep.env, cfg, (*client)(ep))
}

func (h *hostedAPI) submit(a *agent, delay sim.Time) {
	d, err := h.serviceTime(a)
	if err == nil {
		a.req.ID, a.req.Service = a.id, d
		err = h.Submit(&a.req.Call, delay)
	}
	if err != nil {
		h.ep.fail(fmt.Errorf("collective: %w", err))
	}
}

func (h *hostedAPI) finish(now sim.Time, m *Metrics) { m.setStats(h.Finish(now)) }

// serviceTime draws the time to first token of the agent's call and adds
// the time to generate its output. A call of a part usually finds its draw
// done ahead (drawAhead).
func (h *hostedAPI) serviceTime(a *agent) (sim.Time, error) {
	if a.id >= len(h.ahead) {
		h.growAhead(a.id)
	}
	var ttft float64
	if b := &h.ahead[a.id]; a.req.check {
		ttft = h.checkTTFT(a, b)
	} else if x, y := a.workKey(); b.next < b.n && b.x == x && b.y == y {
		ttft = b.ttft[b.next&(aheadCalls-1)]
		b.next++
		b.y++
	} else {
		ttft = h.drawAhead(a, b, x, y)
	}
	out := float64(a.req.Output) / h.ep.cfg.API.OutputRate
	d, err := sim.FromSeconds(ttft + out)
	if err != nil {
		return 0, fmt.Errorf("api: a call of %v s is beyond the range of virtual time", ttft+out)
	}
	return d, nil
}

// checkTTFT returns the time to first token of the agent's check, the one
// drawn ahead (in b, the agent's) when it is the check's.
func (h *hostedAPI) checkTTFT(a *agent, b *drawsAhead) float64 {
	x, y := checkKey(a.at, a.req.node)
	if b.check && b.checkX == x && b.checkY == y {
		b.check = false
		return b.checkTTFT
	}
	return h.draw(x, y)
}

// drawAhead draws the time to first token of the agent's call, named (x,
// y), and of the part's calls after it, up to aheadCalls in all, and, when
// they reach the part's last call, of the check of the part that usually
// follows; it returns the call's and keeps the others in b, the agent's.
//
// Each draw is a chain of dependent steps (a hash, the ziggurat,
// math.Exp) that takes the processor several times longer to finish than
// to issue, and at a call the chain ends in comparisons that decide the
// call's schedule, so that one draw at a time waits for every chain; draws
// that do not depend on each other, one after the other in one loop,
// overlap. A draw is a pure function of the episode's key and the call's
// names, so the values are those drawn one at a time, and a draw kept for
// a call the agent does not make (it drops the part, or checks another) is
// never used.
func (h *hostedAPI) drawAhead(a *agent, b *drawsAhead, x, y uint64) float64 {
	call := a.callsTotal - a.callsLeft
	n := max(1, min(a.callsLeft, aheadCalls))
	if call+n > 1<<20 {
		n = 1 // the call's number would carry into the loop iteration's bits of its name
	}
	// The next calls are named y+1, y+2, ... (workKey).
	for i := range n {
		h.src.Seed(h.ttft, x, y+uint64(i), 0) // draw, inlined
		b.ttft[i&(aheadCalls-1)] = h.ttftDraw.Sample(h.rng)
	}
	b.x, b.y, b.n, b.next = x, y+1, n, 1
	if b.check = call+n == a.callsTotal; b.check {
		b.checkX, b.checkY = checkKeyOf(a.at, a.cur, a.at.nodes[a.cur].checks+1)
		b.checkTTFT = h.draw(b.checkX, b.checkY)
	}
	return b.ttft[0]
}

// growAhead makes room for the draws ahead of the agent of that id and
// those before it; after the first episode it allocates only for a larger
// collective.
func (h *hostedAPI) growAhead(id int) {
	for len(h.ahead) <= id {
		h.ahead = append(h.ahead, drawsAhead{})
	}
}

// aheadCalls is the most draws kept ahead of an agent's calls, a power of
// two: a part of the default span has a few calls.
const aheadCalls = 8

// drawsAhead holds the times to first token worked out ahead of an agent's
// calls of one part (drawAhead): the next calls', the first of them named
// (x, y) and each after it y+1, and its check's.
type drawsAhead struct {
	x, y           uint64
	ttft           [aheadCalls]float64
	next, n        int
	checkX, checkY uint64
	checkTTFT      float64
	check          bool
}

// draw draws the time to first token of the call named (x, y).
func (h *hostedAPI) draw(x, y uint64) float64 {
	h.src.Seed(h.ttft, x, y, 0)
	return h.ttftDraw.Sample(h.rng)
}

// checkKey names the check of part v by the part and how many checks it
// has had.
func checkKey(at *attempt, v task.ID) (uint64, uint64) {
	return checkKeyOf(at, v, at.nodes[v].checks)
}

// workKey names the model call in progress by the work it does, not by the
// agent or the time: attempt copy, part, try, loop iteration and call. The
// draws of a call (its time to first token, its tool calls) are then the
// same whoever makes it and whenever, so that a variant that only changes
// timing (a rate limit, a smaller pool) sees the same luck.
func (a *agent) workKey() (uint64, uint64) {
	tries := uint64(a.at.nodes[a.cur].tries)
	call := uint64(a.callsTotal - a.callsLeft)
	return uint64(a.at.id)<<32 | uint64(a.cur), tries<<40 | uint64(a.iteration)<<20 | call
}

// checkKeyOf names the check of part v after checks checks (this one
// counted).
func checkKeyOf(at *attempt, v task.ID, checks int32) (uint64, uint64) {
	return uint64(at.id)<<32 | uint64(v), 1<<63 | uint64(checks)
}
