package collective

import (
	"fmt"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// Tools is the pool of tool sandboxes (code runners, browsers) the
// collective shares: at most Pool tool calls run at once, the others wait
// in a FIFO queue. Zero means unlimited. The task says how many tool calls
// an attempt makes and how long each takes (task.Tools).
type Tools struct {
	Pool int `yaml:"pool" json:"pool"`
}

// Bounds on the shared-inference settings, so that a typo cannot exhaust
// memory or overflow the token buckets' exact arithmetic.
const (
	MaxReplicas = 100_000
	MaxBatch    = 1_000_000
	MaxRate     = 100_000_000 // requests or tokens per minute
)

// shared reports whether the collective shares inference (a server or an
// API).
func (c *Config) shared() bool { return !c.Serving.IsZero() || c.API != (serving.API{}) }

// validateInference adds the problems of the serving, api and tools
// sections to bad.
func (c *Config) validateInference(bad func(field, format string, args ...any)) {
	s := &c.Serving
	if s.Replicas == 0 {
		def := serving.DefaultDeployment()
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"max_batch", s.MaxBatch != def.MaxBatch}, {"step", s.Step != def.Step},
			{"step_per_seq", s.StepPerSeq != def.StepPerSeq}, {"prefill_token", s.PrefillToken != def.PrefillToken},
		} {
			if f.set {
				bad("serving."+f.name, "is set but serving.replicas is 0, so there is no shared server (set replicas to 1 or more)")
			}
		}
	} else {
		if s.Replicas < 0 || s.Replicas > MaxReplicas {
			bad("serving.replicas", "%d is out of range (0 for none, or 1 to %d)", s.Replicas, MaxReplicas)
		}
		if s.MaxBatch < 1 || s.MaxBatch > MaxBatch {
			bad("serving.max_batch", "%d is out of range (1 to %d sequences)", s.MaxBatch, MaxBatch)
		}
		if s.Step <= 0 {
			bad("serving.step", "%v is out of range (greater than 0; 5.759ms is fitted for an 8B model on one H100)", s.Step)
		}
		for _, d := range []struct {
			name string
			v    sim.Time
		}{{"step_per_seq", s.StepPerSeq}, {"prefill_token", s.PrefillToken}} {
			if d.v < 0 {
				bad("serving."+d.name, "%v is negative (durations are 0 or more)", d.v)
			}
		}
		if c.API != (serving.API{}) {
			bad("api", "is set together with serving (a collective uses a self-hosted server or a hosted API, not both)")
		}
	}
	a := &c.API
	if *a != (serving.API{}) {
		for _, r := range []struct {
			name string
			v    int64
		}{{"rpm", a.RPM}, {"tpm", a.TPM}} {
			if r.v < 0 || r.v > MaxRate {
				bad("api."+r.name, "%d is out of range (0 for no limit, or 1 to %d per minute)", r.v, MaxRate)
			}
		}
		// Every call's prompt starts with the system prompt, so a bucket
		// smaller than it could never admit a call: every episode would
		// end in an error, which validation can tell beforehand.
		if a.TPM > 0 && a.TPM < int64(c.Calls.SystemPrompt) {
			bad("api.tpm", "%d is below the %d tokens of calls.system_prompt that start every call, so no call could ever be admitted (0 for no limit, or a minute's tokens of several calls)", a.TPM, c.Calls.SystemPrompt)
		}
		if a.Concurrency < 0 {
			bad("api.concurrency", "%d is negative (0 for no limit, or more calls in flight)", a.Concurrency)
		}
		if !(a.OutputRate > 0) || a.OutputRate > 1e9 {
			bad("api.output_rate", "%v is out of range (greater than 0 and at most 1e9 output tokens per second per call)", a.OutputRate)
		}
	}
	if c.shared() && c.Calls.PromptToken != Defaults().Calls.PromptToken {
		bad("calls.prompt_token", "is not used with a shared server or API (set serving.prefill_token; an API's ttft includes its prefill)")
	}
	if c.Tools.Pool < 0 {
		bad("tools.pool", "%d is negative (0 for unlimited, or more sandboxes)", c.Tools.Pool)
	}
}

// checkGraphTools reports a tool pool on a task that makes no tool calls:
// a setting that would do nothing.
func (c *Config) checkGraphTools(hasTools bool) error {
	if c.Tools.Pool > 0 && !hasTools {
		return fmt.Errorf("tools.pool: %d sandboxes but the task makes no tool calls (set task.tool_calls and task.tool_latency)", c.Tools.Pool)
	}
	return nil
}
