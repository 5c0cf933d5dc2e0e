package collective

import (
	"fmt"

	"github.com/swarmsim/swarmsim/sim"
)

// Serving is a self-hosted inference deployment shared by every agent:
// Replicas servers, each decoding a batch of at most MaxBatch sequences
// with continuous batching. A decode step takes Step + StepPerSeq·(b−1)
// with b sequences in the batch and gives each of them one output token;
// admitting a call prefills its prompt at PrefillToken per token, which
// lengthens the step that admits it for the whole batch. A call goes to the
// replica with the fewest sequences (in its batch and its queue), and waits
// in that replica's FIFO queue while the batch is full.
//
// The zero Replicas means no shared server: every agent has a model server
// to itself, priced by Calls. Defaults fills in the other fields with
// fitted values, so that `serving: {replicas: 1}` is a complete
// deployment; changing one of them while Replicas is 0 is an error.
type Serving struct {
	Replicas     int      `yaml:"replicas" json:"replicas"`
	MaxBatch     int      `yaml:"max_batch" json:"max_batch"`
	Step         sim.Time `yaml:"step" json:"step"`
	StepPerSeq   sim.Time `yaml:"step_per_seq" json:"step_per_seq"`
	PrefillToken sim.Time `yaml:"prefill_token" json:"prefill_token"`
}

// IsZero reports whether there is no shared server, so that a resolved
// scenario without one leaves the section out.
func (s Serving) IsZero() bool { return s.Replicas == 0 }

// DefaultServing returns a deployment of no replicas whose other fields
// are BLIS's coefficients fitted for Llama-3.1-8B-Instruct on one H100
// (vLLM 0.8.4, tensor parallelism 1; see docs/model.md): a step costs
// β0 = 5.753 ms plus β2 = 6.0 µs per sequence decoded and β1 = 17.25 µs
// per prompt token prefilled, so a step with one sequence takes 5.759 ms;
// at most 256 sequences per batch (vLLM's default max_num_seqs).
func DefaultServing() Serving {
	return Serving{
		MaxBatch:     256,
		Step:         5759 * sim.Microsecond,
		StepPerSeq:   6 * sim.Microsecond,
		PrefillToken: 17250 * sim.Nanosecond,
	}
}

// API is a hosted model API shared by every agent: at most Concurrency
// calls in flight, RPM requests and TPM tokens (prompt plus output) per
// minute, each enforced by a token bucket that holds a minute's worth; a
// call over a limit waits in one FIFO queue. An admitted call takes a time
// to first token drawn from TTFT, then generates its output at OutputRate
// tokens per second. Zero RPM, TPM or Concurrency means no such limit.
// The zero API means no hosted API.
type API struct {
	RPM         int64    `yaml:"rpm" json:"rpm"`
	TPM         int64    `yaml:"tpm" json:"tpm"`
	Concurrency int      `yaml:"concurrency" json:"concurrency"`
	TTFT        sim.Dist `yaml:"ttft" json:"ttft"`
	OutputRate  float64  `yaml:"output_rate" json:"output_rate"`
}

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
func (c *Config) shared() bool { return !c.Serving.IsZero() || c.API != (API{}) }

// validateInference adds the problems of the serving, api and tools
// sections to bad.
func (c *Config) validateInference(bad func(field, format string, args ...any)) {
	s := &c.Serving
	if s.Replicas == 0 {
		def := DefaultServing()
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
		if c.API != (API{}) {
			bad("api", "is set together with serving (a collective uses a self-hosted server or a hosted API, not both)")
		}
	}
	a := &c.API
	if *a != (API{}) {
		for _, r := range []struct {
			name string
			v    int64
		}{{"rpm", a.RPM}, {"tpm", a.TPM}} {
			if r.v < 0 || r.v > MaxRate {
				bad("api."+r.name, "%d is out of range (0 for no limit, or 1 to %d per minute)", r.v, MaxRate)
			}
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
