// Package replay replays recorded agent runs through a simulated
// deployment. A run is the call graph of one recorded run (Run): each
// agent's steps (model calls, tool calls, sub-agents it invoked), each
// after the steps of its agent that had ended when it started, with the
// framework time between them as recorded. The replay keeps every tool
// call's recorded duration, every model call's recorded tokens and every
// gap, and takes a model call's time from the servers of package serving:
// replicas that batch (serving.Replicas), or hosted APIs with their limits
// (serving.Hosted), whose time to first token is paired with the recorded
// call's (Pairing). Steps of one agent that overlapped in the recording,
// and sub-agents that ran at once, run at once in the replay.
//
// Runs are replayed under a Load: one at a time, as sessions that each
// start a run when their last one ends (a closed loop), or arriving at a
// Poisson rate or at their recorded start times, sped up. Every run
// replayed gives a Result: its replayed duration against the recorded
// one, its time in model calls, in tool calls and at the servers beyond
// what each call would take alone there (the serving delay),
// and, when asked, its spans.
//
// Package calibrate builds Runs from OpenTelemetry GenAI spans; this
// package knows nothing of spans or files.
package replay
