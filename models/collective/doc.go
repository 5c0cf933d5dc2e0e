// Package collective simulates a collective of LLM agents working through a
// task-decomposition graph on the sim engine's virtual clock.
//
// One episode (Run) starts with a main agent. Whenever an agent is free it
// asks the shared Policy, with an Observation of what it can see and the
// Mask of valid actions: work on the next ready subtask, delegate it to a
// helper (spawned with a start-up latency), start an independent attempt
// at the whole task, share findings, check its last part, wait, or submit.
// The fixed organizations of package policy and the learned policies of the
// RLCR learner are all policies over this one action set, so every
// comparison runs through the same code and differs only in decisions.
//
// Work is carried out in model calls priced like a serving system: a fixed
// overhead, the prompt (system prompt, inputs and every message read so far,
// so communication lengthens later calls) and the generated output. A
// message costs its sender time to write, travels with a latency, and costs
// each receiver time to read. An attempt at a subtask of difficulty d by an
// agent of strength s is acceptable with probability (1-d)^(1/s); a check
// catches a bad part with some accuracy and the part is attempted again. At
// a coupled join (coupling κ), two parts made by different agents conflict
// with probability κ unless the maker of the later one had read a finding
// about the earlier one before its last model call: sharing pays when parts
// must be reconciled and is pure overhead when κ = 0.
//
// Every random number is a counter-based draw from sim.Streams keyed by
// what it decides (attempt k of subtask v in attempt copy a), so variants
// and counterfactual replays (Options.Silent) see the same luck. Agents are
// event-driven state machines on engine callbacks rather than coroutines:
// a 10,000-agent collective then costs heap operations, not 10,000 stacks,
// and no decision scans all agents or all subtasks. An agent on its own
// server works out a part's coming model calls in one step and fires
// only the last, unless something its calls could notice happens in
// between (runs.go): the same episode, event counts included, at a
// fraction of the events.
//
// Episode metrics (Metrics) cover finish time, acceptability, model calls,
// tokens, agent time, messages, parallelism, critical steps and the
// critical-path bound; a Trace exports to the Chrome Trace Event format for
// Perfetto.
//
// A product added to or subtracted from another number is written
// float64(x*y) + z: the conversion rounds the product, so that no
// architecture fuses the two into one multiply-add and every machine
// computes the same bits (internal/portable checks it).
package collective
