package collective

import (
	"math"

	"github.com/swarmsim/swarmsim/sim"
)

// BytesPerToken converts message tokens to bytes for reporting.
const BytesPerToken = 4

// Metrics describe one episode.
type Metrics struct {
	Finish     sim.Time // when the result was submitted, or when the episode stopped without one (the time limit, a stall, the token budget)
	Acceptable bool     // the submitted result is acceptable
	TimedOut   bool     // the time limit ended the episode
	Stalled    bool     // nothing was left to happen before a submission

	ModelCalls    int
	PromptTokens  int64
	OutputTokens  int64
	AgentTime     sim.Time // total busy time of all agents: the cost
	Messages      int
	MessageTokens int64
	Spawned       int // helper agents started, attempts included
	Attempts      int // independent attempts started
	Checks        int
	Retries       int
	Conflicts     int // unreconciled conflicts at coupled joins
	HandoffMisses int // delegated parts whose first attempt failed on a poor hand-off
	Duplicates    int // delegations of a part already in progress (Handoff.Duplicates)
	// BudgetUsed is the tokens drawn from Config.TokenBudget: the prompt
	// and output tokens of every model call, checks included; 0 without
	// a budget.
	BudgetUsed int64
	// BudgetExhausted reports that a model call would have overdrawn the
	// budget, so that the episode ended there, judged on what existed.
	BudgetExhausted bool
	// SubagentTasks counts the subtasks assigned to subagents: each
	// delegation, and each independent attempt (the whole task).
	SubagentTasks int
	// SubagentDone counts those completed: a delegated subtask whose
	// result was handed on, an attempt whose result was submitted.
	SubagentDone int

	ParallelismMean float64 // AgentTime / Finish
	ParallelismPeak int     // most agents busy at once
	// CriticalSteps is PARL's latency in steps, Σ over stages of (the
	// orchestrator's steps + the longest subagent's): model calls and the
	// orchestrator's decision turns on the longest causal chain to the
	// submission, carried along hand-offs, inputs and findings as a
	// Lamport clock.
	CriticalSteps int
	CriticalPath  sim.Time
	SerialWork    sim.Time

	// Shared inference and tools (zero when every agent has its own
	// server and tools are unlimited or unused).
	ServedCalls       int      // calls (work and checks) made at the shared server or API
	ServingTime       sim.Time // time those calls spent there, queued or served, summed over calls
	ServingWait       sim.Time // time calls queued for a batch slot, a concurrency slot or a rate limit, summed over calls
	ServingQueueMean  float64  // time-average number of calls queued at the shared server
	ServerUtilisation float64  // replicas: fraction of replica-time with a batch; API: mean calls in flight over the concurrency cap
	BatchMean         float64  // replicas: mean batch while busy; API: mean calls in flight
	ToolCalls         int
	ToolWait          sim.Time // time tool calls queued for a sandbox, summed over calls

	Actions [NumActions]int // decisions taken, by action
	Events  uint64          // engine events processed
}

// CallLatency is the mean time a call spent at the shared server or API,
// from its arrival to its last token, in seconds; 0 without one.
func (m *Metrics) CallLatency() float64 {
	if m.ServedCalls == 0 {
		return 0
	}
	return m.ServingTime.Seconds() / float64(m.ServedCalls)
}

// OutputRate is output tokens per second of agent time: the generation
// speed an agent sees, which falls as agents crowd a shared server.
func (m *Metrics) OutputRate() float64 {
	if m.AgentTime <= 0 {
		return 0
	}
	return float64(m.OutputTokens) / m.AgentTime.Seconds()
}

// SpawnFinishRate is PARL's r_finish: the fraction of the subtasks
// assigned to subagents that they completed; NaN when none was assigned.
func (m *Metrics) SpawnFinishRate() float64 {
	if m.SubagentTasks == 0 {
		return math.NaN()
	}
	return float64(m.SubagentDone) / float64(m.SubagentTasks)
}

// Tokens returns prompt plus output tokens.
func (m *Metrics) Tokens() int64 { return m.PromptTokens + m.OutputTokens }

// MessageBytes returns the size of all messages in bytes.
func (m *Metrics) MessageBytes() int64 { return m.MessageTokens * BytesPerToken }

// Speedup is the serial work time at the agents' speed over the finish time:
// how much faster than one agent doing the work with no overheads.
func (m *Metrics) Speedup() float64 {
	if m.Finish <= 0 {
		return 0
	}
	return float64(m.SerialWork) / float64(m.Finish)
}

// Stretch is the finish time over the critical path: 1 is the lower bound
// of unlimited free parallelism.
func (m *Metrics) Stretch() float64 {
	if m.CriticalPath <= 0 {
		return 0
	}
	return float64(m.Finish) / float64(m.CriticalPath)
}

// Result is the outcome of one episode.
type Result struct {
	Metrics
	// Decisions holds every decision, when Options.Record is set.
	Decisions []Decision
	// Trace holds the episode's activities, when Options.Trace is set.
	Trace *Trace
}
