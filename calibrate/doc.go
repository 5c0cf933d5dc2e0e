// Package calibrate turns recorded agent traces into a scenario: it reads
// OpenTelemetry GenAI spans (package otel reads both JSON forms), gathers
// each root invoke_agent span with what ran under it into a run (its
// model calls, tool calls and nested agents: who delegated to whom and how
// many ran at once), fits distributions to what was measured, and writes a
// scenario file that reproduces the traced workflow, with comments saying
// what each value was fitted from.
//
// The attributes read are the GenAI semantic conventions':
// gen_ai.operation.name (invoke_agent; chat, call_llm, text_completion or
// generate_content for a model call; execute_tool), gen_ai.request.model
// (or gen_ai.response.model), gen_ai.usage.input_tokens,
// gen_ai.usage.output_tokens, gen_ai.agent.name and gen_ai.tool.name, and
// swarmsim.acceptable on a root span for the run's outcome, which the
// conventions do not carry. Spans without an end, without attributes,
// outside any agent, and model calls without token counts are counted in
// a Report, never fatal.
//
// See docs/calibration.md for the fitting and its limits.
//
// A product added to or subtracted from another number is written
// float64(x*y) + z: the conversion rounds the product, so that no
// architecture fuses the two into one multiply-add and every machine
// computes the same bits (internal/portable checks it).
package calibrate
