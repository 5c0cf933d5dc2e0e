package serving

import "github.com/swarmsim/swarmsim/sim"

// Deployment is a self-hosted inference deployment: Replicas servers, each
// decoding a batch of at most MaxBatch sequences with continuous batching.
// A decode step takes Step + StepPerSeq·(b−1) with b sequences in the batch
// and gives each of them one output token; admitting a call prefills its
// prompt at PrefillToken per token, which lengthens the step that admits it
// for the whole batch. A call goes to the replica with the fewest sequences
// (in its batch and its queue), and waits in that replica's FIFO queue
// while the batch is full.
//
// The zero Replicas means no deployment. DefaultDeployment fills in the
// other fields with fitted values, so that `serving: {replicas: 1}` is a
// complete deployment.
type Deployment struct {
	Replicas     int      `yaml:"replicas" json:"replicas"`
	MaxBatch     int      `yaml:"max_batch" json:"max_batch"`
	Step         sim.Time `yaml:"step" json:"step"`
	StepPerSeq   sim.Time `yaml:"step_per_seq" json:"step_per_seq"`
	PrefillToken sim.Time `yaml:"prefill_token" json:"prefill_token"`
}

// IsZero reports whether there is no deployment, so that a resolved
// scenario without one leaves the section out.
func (d Deployment) IsZero() bool { return d.Replicas == 0 }

// DefaultDeployment returns a deployment of no replicas whose other fields
// are BLIS's coefficients fitted for Llama-3.1-8B-Instruct on one H100
// (vLLM 0.8.4, tensor parallelism 1; see docs/model.md): a step costs
// β0 = 5.753 ms plus β2 = 6.0 µs per sequence decoded and β1 = 17.25 µs
// per prompt token prefilled, so a step with one sequence takes 5.759 ms;
// at most 256 sequences per batch (vLLM's default max_num_seqs).
func DefaultDeployment() Deployment {
	return Deployment{
		MaxBatch:     256,
		Step:         5759 * sim.Microsecond,
		StepPerSeq:   6 * sim.Microsecond,
		PrefillToken: 17250 * sim.Nanosecond,
	}
}

// API is a hosted model API: at most Concurrency calls in flight, RPM
// requests and TPM tokens (prompt plus output) per minute, each enforced by
// a token bucket that holds a minute's worth; a call over a limit waits in
// one FIFO queue. An admitted call takes a time to first token drawn from
// TTFT, then generates its output at OutputRate tokens per second. Zero
// RPM, TPM or Concurrency means no such limit. The zero API means no
// hosted API.
type API struct {
	RPM         int64    `yaml:"rpm" json:"rpm"`
	TPM         int64    `yaml:"tpm" json:"tpm"`
	Concurrency int      `yaml:"concurrency" json:"concurrency"`
	TTFT        sim.Dist `yaml:"ttft" json:"ttft"`
	OutputRate  float64  `yaml:"output_rate" json:"output_rate"`
}
