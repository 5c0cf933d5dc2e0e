package calibrate_test

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/calibrate/otel"
	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// testdata/roundtrip.yaml is a hosted-API workflow whose parameters the
// fit must recover: one call per attempt of 0.2 to 4 s of work at 200
// tokens per second of work (40 to 800 output tokens, so that tokens
// explain the latency), ttft lognormal(mean=0.8, cv=0.5), 50 output
// tokens/s, a 20 ms overhead before each call, poisson(2) tool calls of
// gamma(mean=0.3, cv=0.5) latency.

// TestRoundTrip simulates episodes, exports them as OTLP GenAI spans,
// reads and fits them, and requires each parameter of the scenario back
// within 4 standard errors of its estimator, on 10 seeds of 300 episodes.
func TestRoundTrip(t *testing.T) {
	v, pol := roundTripVariant(t)
	const episodes = 300
	for seed := uint64(1); seed <= 10; seed++ {
		tr := roundTripTraces(t, v, pol, seed, episodes)
		f, err := calibrate.FitAll(tr)
		require.NoError(t, err)

		require.Len(t, f.Models, 1)
		m := f.Models[0]
		require.True(t, m.ByTokens, "seed %d: R² %v", seed, m.Line.R2)
		// se(slope)/slope = sqrt((1−R²)/(R²(n−2))).
		rel := math.Sqrt((1 - m.Line.R2) / (m.Line.R2 * float64(m.NTokens-2)))
		assert.InDelta(t, 50, m.OutputRate, 4*rel*50, "seed %d: output rate", seed)
		n := float64(m.NTokens)
		// The ttft residuals average to the regression's intercept, whose
		// standard error is sd(ttft)·sqrt(1/n + x̄²/Sxx).
		var sx, sxx float64
		for _, c := range tr.Calls {
			sx += float64(c.OutputTokens)
		}
		mean := sx / n
		for _, c := range tr.Calls {
			sxx += (float64(c.OutputTokens) - mean) * (float64(c.OutputTokens) - mean)
		}
		seTTFT := 0.8 * 0.5 * math.Sqrt(1/n+mean*mean/sxx)
		ttft := m.TTFT.Best()
		assert.InDelta(t, 0.8, ttft.Mean(), 4*seTTFT, "seed %d: ttft mean (%s)", seed, ttft.Family)

		require.Len(t, f.Tools, 1)
		tl := f.Tools[0]
		assert.InDelta(t, 0.3, tl.Latency.Best().Mean(), 4*0.3*0.5/math.Sqrt(float64(tl.N)), "seed %d: tool latency mean", seed)
		tc := f.ToolCalls.Best()
		assert.InDelta(t, 2, tc.Mean(), 4*math.Sqrt(2.0/episodes), "seed %d: tool calls per run (%s)", seed, tc.Family)
		assert.InDelta(t, 1, f.Calls.Best().Mean(), 0, "seed %d: one call per run", seed)
		assert.InDelta(t, 0.020, f.MeanGap, 1e-6, "seed %d: the overhead before each call", seed)
		// The prompt is the system prompt; outputs average 200·2.1 tokens.
		assert.InDelta(t, 400, m.MeanInput, 0)
		assert.InDelta(t, 200*2.1, m.MeanOutput, 4*200*3.8/math.Sqrt(12)/math.Sqrt(n), "seed %d: output tokens", seed)
	}
}

// roundTripVariant returns testdata/roundtrip.yaml's variant and its
// policy.
func roundTripVariant(t *testing.T) (scenarios.Variant, collective.Policy) {
	t.Helper()
	sc, err := scenarios.Load("testdata/roundtrip.yaml", nil)
	require.NoError(t, err)
	v := sc.Variants[0]
	pol, err := v.Policy()
	require.NoError(t, err)
	return v, pol
}

// roundTripTraces simulates episodes of the variant v under pol with seed
// and reads them back from their OTLP GenAI spans, as 'simulate trace
// --format otlp' writes them.
func roundTripTraces(t *testing.T, v scenarios.Variant, pol collective.Policy, seed uint64, episodes int) *calibrate.Traces {
	t.Helper()
	var b bytes.Buffer
	for k := range episodes {
		streams := sim.NewStreams(seed).Derive("episode", uint64(k))
		g, err := v.Spec.Task.Draw(streams.New("task", 0))
		require.NoError(t, err)
		res, err := collective.Run(g, v.Spec.Collective, pol, streams, collective.Options{Trace: true})
		require.NoError(t, err)
		require.NoError(t, calibrate.WriteOTLP(&b, calibrate.Episode{Trace: res.Trace, Finish: int64(res.Finish), Model: "m", ID: uint64(k), Acceptable: res.Acceptable}))
	}
	spans, err := otel.Read(&b, "episodes.jsonl")
	require.NoError(t, err)
	var tr calibrate.Traces
	tr.Add("episodes.jsonl", spans)
	require.Len(t, tr.Runs, episodes)
	assert.Equal(t, calibrate.Report{Spans: len(spans)}, tr.Report, "simulated spans are complete")
	return &tr
}

// TestRoundTripScenario runs the scenario fitted to the round trip's
// episodes and requires its calls to output the traced calls' mean output
// tokens, and to take their mean latency, within 4 standard errors of the
// difference. A call's output is calls.output_rate per second of its
// work, and the fitted work makes one call of 0.5 s on average: a rate of
// the mean output alone (422 tokens) made calls of 211 tokens, which
// decode at the fitted 50 tokens/s in half the traced time (5.0 s a call
// against 9.2 s).
func TestRoundTripScenario(t *testing.T) {
	v, pol := roundTripVariant(t)
	const episodes = 300
	tr := roundTripTraces(t, v, pol, 1, episodes)
	f, err := calibrate.FitAll(tr)
	require.NoError(t, err)
	var tracedOut, tracedLatency []float64
	for _, c := range tr.Calls {
		tracedOut = append(tracedOut, float64(c.OutputTokens))
		tracedLatency = append(tracedLatency, c.Duration)
	}

	yaml, err := f.Scenario("refit", []string{"episodes.jsonl"})
	require.NoError(t, err)
	fitted, err := scenarios.Parse(yaml, "scenario.yaml", nil)
	require.NoError(t, err, string(yaml))
	seed := uint64(1)
	var out, latency []float64
	require.NoError(t, experiment.Evaluate(context.Background(), fitted, experiment.EvalOptions{Episodes: episodes, Seed: &seed}, func(r experiment.Row) error {
		require.Equal(t, 1, r.Metrics.ModelCalls, "one call per run, as traced")
		out = append(out, float64(r.Metrics.OutputTokens))
		latency = append(latency, r.Metrics.CallLatency())
		return nil
	}))
	for _, c := range []struct {
		what           string
		traced, fitted []float64
	}{
		{"output tokens per call", tracedOut, out},
		{"call latency (s)", tracedLatency, latency},
	} {
		mt, st := stat.MeanStdDev(c.traced, nil)
		mf, sf := stat.MeanStdDev(c.fitted, nil)
		se := math.Sqrt(st*st/float64(len(c.traced)) + sf*sf/float64(len(c.fitted)))
		t.Logf("%s: fitted scenario %.4g, traced %.4g (standard error of the difference %.3g)", c.what, mf, mt, se)
		assert.InDelta(t, mt, mf, 4*se, "%s: fitted scenario %.4g against traced %.4g\n%s", c.what, mf, mt, yaml)
	}
}
