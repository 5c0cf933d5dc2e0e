package rlcr

import (
	"math/rand/v2"
	"slices"
	"sync"
	"unsafe"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/sim"
)

// memory is what a training run reuses from one iteration to the next, so
// that an iteration in steady state allocates next to nothing for its
// rollouts and its update (two small objects, BenchmarkTrainPeer): one
// episode runner per worker, one decision recorder and one kept result per
// rollout, and the iteration's tables. It is plumbing; train.go tells the
// algorithm.
//
// A worker runs its rollouts one after another on one runner, whose
// agents, event queue and run bookkeeping stay in the processor's caches
// from one episode to the next; with a runner per rollout, each episode
// found its runner's memory (tens of kilobytes, 64 of them an iteration on
// the flagship) evicted by the others'. What the update needs of an
// episode, its metrics and decisions, is copied out (keep).
type memory struct {
	runners []*collective.Runner // one per worker; a used Runner must not move
	recs    []recorder
	kept    []collective.Result  // the rollouts' results, copied from the runners
	results []*collective.Result // results[i] is &kept[i] once rollout i has run
	graphs  []*task.Graph
	drawers []task.Drawer // graphs[k] is in drawers[k]'s memory
	taskPCG []rand.PCG    // the generators of the task draws (taskRand)
	taskGen []*rand.Rand
	metrics []collective.Metrics
	rewards []float64
	adv     []float64
	samples []sample
	finish  []float64 // finish times, sorted for the percentile
}

// DecisionsPerSubtask is how many decisions a rollout is expected to
// record per subtask of a large task graph: 2.3 to 2.7 were measured on
// fork-join graphs of 1,000 to 8,000 parts with as many agents, under a
// linear policy at its start (the decisions of an iteration over its
// rollouts and the graph's subtasks), rounded up. Small graphs record
// more per subtask (5.6 at 100 parts), but hold little.
const DecisionsPerSubtask = 3

// RecordedBytes estimates what one rollout of a task graph of nodes
// subtasks keeps of its decisions until the update: DecisionsPerSubtask
// decisions a subtask, each a sample in its recorder and a decision in its
// kept result. An iteration holds batch × group of them at once, on top of
// what the episodes themselves hold.
func RecordedBytes(nodes int) float64 {
	return float64(float64(nodes) * DecisionsPerSubtask * float64(unsafe.Sizeof(sample{})+unsafe.Sizeof(collective.Decision{})))
}

// memories keeps the memory of finished trainings for the next one: a
// sweep or a multi-seed study runs many trainings one after another on
// each worker, and each fresh training would otherwise grow its runners'
// agents, decisions and event queues and its recorders' samples from
// nothing again (a quarter of a one-iteration training's time, in
// clearing new memory and collecting the old). Reuse changes no result:
// a Runner's episode is the same on used memory as on fresh.
var memories sync.Pool

// getMemory returns memory for B×G rollouts: a finished training's if one
// of that size is kept, else new.
func getMemory(B, G int) *memory {
	if m, ok := memories.Get().(*memory); ok && len(m.recs) == B*G && len(m.graphs) == B {
		return m
	}
	return newMemory(B, G)
}

// release hands m on to the next training. Nothing of this training may
// be used afterwards: m drops the policy and its own references to the
// task graphs and results. Each runner still refers to its last
// episode's graph and context until it runs again (kept memory holds B
// graphs at most, and the pool lets go of it at a collection or two).
func (m *memory) release() {
	for i := range m.recs {
		m.recs[i].pol, m.recs[i].soft = nil, nil
	}
	clear(m.graphs)
	clear(m.results)
	memories.Put(m)
}

func newMemory(B, G int) *memory {
	n := B * G
	return &memory{
		recs:    make([]recorder, n),
		kept:    make([]collective.Result, n),
		results: make([]*collective.Result, n),
		graphs:  make([]*task.Graph, B),
		drawers: make([]task.Drawer, B),
		taskPCG: make([]rand.PCG, B),
		taskGen: make([]*rand.Rand, B),
		metrics: make([]collective.Metrics, n),
		rewards: make([]float64, n),
		adv:     make([]float64, n),
		finish:  make([]float64, n),
	}
}

// taskRand returns the generator of graphs[k]'s draw, reseeded to the
// stream s.New("graph", 0) would start.
func (m *memory) taskRand(k int, s sim.Streams) *rand.Rand {
	if m.taskGen[k] == nil {
		m.taskGen[k] = rand.New(&m.taskPCG[k])
	}
	s.Reseed(&m.taskPCG[k], "graph", 0)
	return m.taskGen[k]
}

// growRunners makes sure there is a runner for each of workers workers.
func (m *memory) growRunners(workers int) {
	for len(m.runners) < max(workers, 1) {
		m.runners = append(m.runners, new(collective.Runner))
	}
}

// keep copies rollout i's result out of the runner that ran it, whose
// next episode reuses the memory that r and its decisions are in. A
// rollout records no trace.
func (m *memory) keep(i int, r *collective.Result) *collective.Result {
	k := &m.kept[i]
	k.Metrics = r.Metrics
	k.Decisions = append(k.Decisions[:0], r.Decisions...)
	return k
}

// recorder is the policy one rollout decides with: it decides as the
// shared policy does (features, masked softmax, inverse-CDF sample, with
// the same u) and keeps each decision's features and probabilities, so
// that the update need not compute them again. The collective asks a
// policy only about decisions with a choice; collect fills in the others.
// A policy that is not a Softmax (a fixed one, in tests) decides
// unrecorded, and its rollouts cannot be collected.
type recorder struct {
	pol     collective.Policy
	soft    policy.Softmax // pol, if it is one
	rollout int
	own     sim.Streams // the rollout's own streams, for its decisions
	buf     []sample
}

// Decide implements collective.Policy.
func (r *recorder) Decide(o *collective.Observation, m collective.Mask, u float64) collective.Action {
	if r.soft == nil {
		return r.pol.Decide(o, m, u)
	}
	// The sample is made in its slot, field by field: a half-kilobyte
	// literal, appended or assigned, is built apart and copied there, and
	// clearing the slot first would write the features and probabilities
	// twice. Features and ProbsLog write every element of theirs.
	n := len(r.buf)
	if n == cap(r.buf) {
		r.buf = slices.Grow(r.buf, 1)
	}
	r.buf = r.buf[:n+1]
	s := &r.buf[n]
	s.mask, s.rollout, s.agent, s.at, s.recorded = m, r.rollout, o.Agent, o.Elapsed, true
	s.adv, s.weight, s.v, s.ret = 0, 0, 0, 0
	policy.Features(o, &s.x)
	r.soft.ProbsLog(&s.x, m, &s.probs, &s.logp)
	s.action = policy.Sample(&s.probs, m, u)
	s.pOld = s.probs[s.action]
	return s.action
}
