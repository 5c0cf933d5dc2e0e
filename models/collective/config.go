package collective

import (
	"errors"
	"fmt"
	"math"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// Config holds the collective's parameters: who the agents are, what model
// calls, messages, checks and spawning cost, and how parts are reconciled.
// Every cost may be zero. The zero Config is not valid (it has no agents);
// start from Defaults.
type Config struct {
	// Agents is the most agents that may exist at once, the first (main)
	// agent included.
	Agents int `yaml:"agents" json:"agents"`
	// Speed is work done per unit of virtual time; 1 is the reference agent.
	Speed float64 `yaml:"speed" json:"speed"`
	// Strength is the base model's strength s > 0: one attempt at a subtask
	// of difficulty d is acceptable with probability (1-d)^(1/s).
	Strength float64 `yaml:"strength" json:"strength"`
	// Calls prices the model calls that carry out work.
	Calls Calls `yaml:"calls" json:"calls"`
	// Comm prices messages and chooses who receives shared findings.
	Comm Comm `yaml:"comm" json:"comm"`
	// Spawn is the start-up latency of a new helper agent.
	Spawn sim.Time `yaml:"spawn" json:"spawn"`
	// Check prices verification and says how often it is right.
	Check Verification `yaml:"check" json:"check"`
	// Reconcile says what happens at coupled joins.
	Reconcile Reconcile `yaml:"reconcile" json:"reconcile"`
	// Select prices the verifier that picks among independent attempts.
	Select Selection `yaml:"select" json:"select"`
	// TimeLimit interrupts the episode; an unfinished episode is not
	// acceptable. Zero means no limit.
	TimeLimit sim.Time `yaml:"time_limit" json:"time_limit"`
	// TokenBudget is the tokens the whole collective may spend on the
	// task: every model call's prompt and output tokens, checks included,
	// are drawn from it. The first call that would overdraw it is not
	// made, and the episode ends there, judged on what exists. Zero means
	// no budget.
	TokenBudget int64 `yaml:"token_budget,omitempty" json:"token_budget,omitzero"`
	// Serving is a self-hosted server shared by every agent; with no
	// replicas (the default) each agent has its own, priced by Calls.
	Serving serving.Deployment `yaml:"serving,omitempty" json:"serving,omitzero"`
	// API is a hosted API shared by every agent, instead of Serving.
	API serving.API `yaml:"api,omitempty" json:"api,omitzero"`
	// Tools is the pool of tool sandboxes, for tasks that call tools.
	Tools Tools `yaml:"tools,omitempty" json:"tools,omitzero"`
	// Handoff says what a delegation hands over and whether a policy may
	// delegate duplicates; the zero Handoff leaves delegation perfect.
	Handoff Handoff `yaml:"handoff,omitempty" json:"handoff,omitzero"`
}

// Handoff governs delegation beyond its latency. Both settings model what
// makes delegation fail in trained agent swarms (Kimi K2.5's PARL): a
// subagent that misunderstands a subtask it was handed without context,
// and subagents spawned for work that is already being done.
type Handoff struct {
	// Miss is the chance that a helper misunderstands a subtask it was
	// delegated without context, so that its first attempt at the part is
	// unacceptable (a check can catch it, and the retry is understood).
	// Findings give the context: for a helper that had read findings about
	// r parts (shared by the delegator or anyone, before or while it
	// worked) when it finished the attempt, the chance is
	// Miss·(1 − min(1, r/Findings)). 0 (the default) turns misses off.
	Miss float64 `yaml:"miss" json:"miss"`
	// Findings is the number of parts a helper must have read findings
	// about to understand its subtask; at least 1 when Miss is set.
	Findings int `yaml:"findings" json:"findings"`
	// Duplicates lets an agent with no ready subtask delegate once more the
	// last subtask it delegated, while that is still in progress: a
	// subagent assigned work that is already being done. A duplicate's
	// result is never used: it is abandoned at its next model call once the
	// original is finished, and dropped if it ends first, so its subtask
	// counts as assigned and never as completed (spawn_finish_rate).
	Duplicates bool `yaml:"duplicates" json:"duplicates"`
}

// missChance is the chance that a helper that has read findings about the
// given number of parts misunderstands its subtask.
func (h *Handoff) missChance(read int) float64 {
	return h.Miss * (1 - math.Min(1, float64(read)/float64(h.Findings)))
}

// Calls prices model calls. Work on a subtask is carried out in calls of at
// most Span of work each; every call costs Overhead plus the time to read
// its prompt (system prompt, inputs and every message read so far) and the
// time to generate its output.
type Calls struct {
	// Span is the work covered by one model call; 0 means one call per
	// attempt.
	Span sim.Time `yaml:"span" json:"span"`
	// Overhead is the fixed latency of one call (API and scheduling).
	Overhead sim.Time `yaml:"overhead" json:"overhead"`
	// PromptToken is the time to read one prompt token (prefill).
	PromptToken sim.Time `yaml:"prompt_token" json:"prompt_token"`
	// OutputRate is the output tokens generated per second of work.
	OutputRate float64 `yaml:"output_rate" json:"output_rate"`
	// SystemPrompt is the number of tokens every prompt starts with.
	SystemPrompt int `yaml:"system_prompt" json:"system_prompt"`
}

// Topology says who receives a shared finding.
type Topology string

// Topologies for sharing findings.
const (
	// PointToPoint sends one message to each agent working on a part of
	// the same coupled join.
	PointToPoint Topology = "point-to-point"
	// Broadcast sends one message to every other agent of the attempt.
	Broadcast Topology = "broadcast"
	// Blackboard writes once to a shared board; agents of the attempt read
	// it at their next model call.
	Blackboard Topology = "blackboard"
)

// Comm prices communication. A message costs its sender Write per token,
// travels Latency plus size/Bandwidth, and costs each receiver Read per
// token when read; read messages also lengthen the receiver's later prompts.
type Comm struct {
	Topology Topology `yaml:"topology" json:"topology"`
	// Write is the sender's time per token written.
	Write sim.Time `yaml:"write" json:"write"`
	// Read is a receiver's time per token read.
	Read sim.Time `yaml:"read" json:"read"`
	// Latency is the fixed delivery delay of a message.
	Latency sim.Time `yaml:"latency" json:"latency"`
	// Bandwidth is tokens per second on the wire; 0 means unlimited.
	Bandwidth float64 `yaml:"bandwidth" json:"bandwidth"`
	// MessageTokens is the size of a shared finding or a delegation hand-off.
	MessageTokens int `yaml:"message_tokens" json:"message_tokens"`
}

// Verification prices checking a finished part. A check costs Cost times
// the part's work plus one model call; it flags an unacceptable part with
// probability Accuracy, and an acceptable one with probability 1-Accuracy.
// A flagged part is attempted again, at most Retries times.
type Verification struct {
	Cost     float64 `yaml:"cost" json:"cost"`
	Accuracy float64 `yaml:"accuracy" json:"accuracy"`
	Retries  int     `yaml:"retries" json:"retries"`
	// By says who verifies a part a helper of the main team made and
	// checks: its maker (the default) or the orchestrator.
	By Checker `yaml:"by,omitempty" json:"by,omitzero"`
}

// Checker says who verifies a delegated part.
type Checker string

// Checkers.
const (
	// ByMaker: the helper that made a part checks it itself, at its own
	// time, and redoes a flagged part at once.
	ByMaker Checker = "maker"
	// ByOrchestrator: a helper's check hands its part back to the main
	// agent (the orchestrator) instead, and is free for the helper. The
	// part waits for the main agent's next decision: its check verifies
	// it at the main agent's time (one part per check, in the order they
	// came back), and a flagged part goes back to the ready subtasks to be
	// redone by whoever takes it; any other action of the main agent
	// accepts the waiting parts unchecked.
	ByOrchestrator Checker = "orchestrator"
)

// ConflictMode says what an unreconciled conflict at a join does.
type ConflictMode string

// Conflict modes.
const (
	// ConflictFail makes the join's attempt unacceptable.
	ConflictFail ConflictMode = "fail"
	// ConflictRework makes the joining agent redo part of the conflicting
	// work, after which the conflict is resolved.
	ConflictRework ConflictMode = "rework"
)

// Reconcile governs coupled joins. Two parts made by different agents are
// reconciled when the maker of the later one read a finding about the
// earlier one before its last model call; otherwise they conflict with
// probability κ (the join's coupling).
type Reconcile struct {
	Mode ConflictMode `yaml:"mode" json:"mode"`
	// Rework is the fraction of the smaller conflicting part's work that
	// the joining agent redoes per conflict in rework mode.
	Rework float64 `yaml:"rework" json:"rework"`
}

// Selection prices the merge of independent attempts' results, as Merge
// says: the verifier examines candidates in the order they were
// submitted, taking Cost each, and picks the first it judges acceptable,
// judging right with probability Accuracy; a synthesis reads every
// candidate, Cost each, and merges them all without judging any.
type Selection struct {
	Cost     sim.Time `yaml:"cost" json:"cost"`
	Accuracy float64  `yaml:"accuracy" json:"accuracy"`
	// Merge is verify (the default) or synthesis.
	Merge Merge `yaml:"merge,omitempty" json:"merge,omitzero"`
}

// Merge says how the results of independent attempts become one.
type Merge string

// Merges.
const (
	// MergeVerify: a verifier selects one candidate (see Selection).
	MergeVerify Merge = "verify"
	// MergeSynthesis: the candidates are merged into one result without
	// verification, so that one unacceptable candidate spoils the whole:
	// the result is acceptable only if every candidate is.
	MergeSynthesis Merge = "synthesis"
)

// Defaults returns a plausible collective: four agents of reference speed
// and strength, model-call costs fitted for an 8B model on one H100
// (≈15 ms API overhead plus ≈5.8 ms per decode step, ≈17 µs per prompt
// token, ≈170 output tokens/s), cheap messages and checks.
func Defaults() Config {
	return Config{
		Agents:   4,
		Speed:    1,
		Strength: 1,
		Calls: Calls{
			Span:         30 * sim.Second,
			Overhead:     21 * sim.Millisecond,
			PromptToken:  17 * sim.Microsecond,
			OutputRate:   170,
			SystemPrompt: 500,
		},
		Comm: Comm{
			Topology:      PointToPoint,
			Write:         6 * sim.Millisecond,
			Read:          17 * sim.Microsecond,
			Latency:       50 * sim.Millisecond,
			MessageTokens: 300,
		},
		Spawn:     2 * sim.Second,
		Check:     Verification{Cost: 0.2, Accuracy: 0.9, Retries: 3},
		Reconcile: Reconcile{Mode: ConflictFail, Rework: 0.5},
		Select:    Selection{Cost: 30 * sim.Second, Accuracy: 0.9},
		Serving:   serving.DefaultDeployment(),
	}
}

// Validate reports the first out-of-range field, naming it and the allowed
// range.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{field}, args...)...))
	}
	if c.Agents < 1 {
		bad("agents", "%d is out of range (at least 1)", c.Agents)
	}
	if !(c.Speed > 0) {
		bad("speed", "%v is out of range (greater than 0)", c.Speed)
	}
	if !(c.Strength > 0) {
		bad("strength", "%v is out of range (greater than 0)", c.Strength)
	}
	for _, d := range []struct {
		field string
		v     sim.Time
	}{
		{"calls.span", c.Calls.Span}, {"calls.overhead", c.Calls.Overhead},
		{"calls.prompt_token", c.Calls.PromptToken}, {"comm.write", c.Comm.Write},
		{"comm.read", c.Comm.Read}, {"comm.latency", c.Comm.Latency},
		{"spawn", c.Spawn}, {"select.cost", c.Select.Cost}, {"time_limit", c.TimeLimit},
	} {
		if d.v < 0 {
			bad(d.field, "%v is negative (durations are 0 or more)", d.v)
		}
	}
	if c.TokenBudget < 0 {
		bad("token_budget", "%d is negative (0 for no budget, or more tokens)", c.TokenBudget)
	}
	if !(c.Calls.OutputRate >= 0) {
		bad("calls.output_rate", "%v is out of range (0 or more tokens/s)", c.Calls.OutputRate)
	}
	if c.Calls.SystemPrompt < 0 {
		bad("calls.system_prompt", "%d is negative (0 or more tokens)", c.Calls.SystemPrompt)
	}
	if !(c.Comm.Bandwidth >= 0) {
		bad("comm.bandwidth", "%v is out of range (0 for unlimited, or more)", c.Comm.Bandwidth)
	}
	if c.Comm.MessageTokens < 0 {
		bad("comm.message_tokens", "%d is negative (0 or more tokens)", c.Comm.MessageTokens)
	}
	switch c.Comm.Topology {
	case PointToPoint, Broadcast, Blackboard:
	default:
		bad("comm.topology", "%q is not allowed (allowed: %s, %s, %s)", c.Comm.Topology, PointToPoint, Broadcast, Blackboard)
	}
	if !(c.Check.Cost >= 0) {
		bad("check.cost", "%v is out of range (0 or more, a fraction of the part's work)", c.Check.Cost)
	}
	if !(c.Check.Accuracy >= 0 && c.Check.Accuracy <= 1) {
		bad("check.accuracy", "%v is out of range [0, 1]", c.Check.Accuracy)
	}
	if c.Check.Retries < 0 {
		bad("check.retries", "%d is negative (0 or more)", c.Check.Retries)
	}
	switch c.Check.By {
	case "", ByMaker, ByOrchestrator:
	default:
		bad("check.by", "%q is not allowed (allowed: %s, %s)", c.Check.By, ByMaker, ByOrchestrator)
	}
	switch c.Select.Merge {
	case "", MergeVerify, MergeSynthesis:
	default:
		bad("select.merge", "%q is not allowed (allowed: %s, %s)", c.Select.Merge, MergeVerify, MergeSynthesis)
	}
	switch c.Reconcile.Mode {
	case ConflictFail, ConflictRework:
	default:
		bad("reconcile.mode", "%q is not allowed (allowed: %s, %s)", c.Reconcile.Mode, ConflictFail, ConflictRework)
	}
	if !(c.Reconcile.Rework >= 0) {
		bad("reconcile.rework", "%v is out of range (0 or more)", c.Reconcile.Rework)
	}
	if !(c.Select.Accuracy >= 0 && c.Select.Accuracy <= 1) {
		bad("select.accuracy", "%v is out of range [0, 1]", c.Select.Accuracy)
	}
	c.validateHandoff(bad)
	c.validateInference(bad)
	return errors.Join(errs...)
}

// validateHandoff adds the problems of the handoff section: out-of-range
// values, and settings that could never act.
func (c *Config) validateHandoff(bad func(field, format string, args ...any)) {
	h := &c.Handoff
	if !(h.Miss >= 0 && h.Miss <= 1) {
		bad("handoff.miss", "%v is out of range [0, 1]", h.Miss)
	}
	switch {
	case h.Findings < 0:
		bad("handoff.findings", "%d is negative (1 or more findings, with handoff.miss above 0)", h.Findings)
	case h.Miss > 0 && h.Findings == 0:
		bad("handoff.findings", "0 would make every hand-off complete, so handoff.miss could never act (set at least 1)")
	case h.Miss == 0 && h.Findings > 0:
		bad("handoff.findings", "%d has no effect with handoff.miss 0", h.Findings)
	}
	if c.Agents < 2 {
		if h.Miss > 0 {
			bad("handoff.miss", "%v has no effect with agents %d (nobody can be delegated to)", h.Miss, c.Agents)
		}
		if h.Duplicates {
			bad("handoff.duplicates", "true has no effect with agents %d (nobody can be delegated to)", c.Agents)
		}
	}
}
