package env_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"testing"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/experiment/env"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/scenarios"
)

// firstValid is the policy of the benchmarks: each decision's first
// valid action, which costs next to nothing, so that they measure the
// environment.
var firstValid = collective.PolicyFunc(func(_ *collective.Observation, m collective.Mask, _ float64) collective.Action { return m.First() })

// uniformValid picks one of the valid actions uniformly by the decision's
// draw, as bench/env.sh's numpy policy does with zero parameters: unlike
// firstValid, which never delegates (work comes first whenever it is
// valid), it delegates, shares and checks, so that a step touches what
// (a)'s steps touch.
var uniformValid = collective.PolicyFunc(func(_ *collective.Observation, m collective.Mask, u float64) collective.Action {
	for k := int(u * float64(bits.OnesCount8(uint8(m)))); k > 0; k-- {
		m &= m - 1 // drop the lowest valid action
	}
	return m.First()
})

// BenchmarkStep steps 256 rows of latency-pressure (variant high) in
// groups of 8 with firstValid's choices and reports the cost per
// decision, beside the same policy deciding in process on a Runner over
// the same episodes (ns/decision of each, counting the decisions with a
// choice): the environment's overhead is the difference. The figures are
// for the coordinator to measure on a quiet machine.
func BenchmarkStep(b *testing.B) {
	const rows = 256
	pol := firstValid
	b.Run("env", func(b *testing.B) { stepRows(b, rows, 8, 1, firstValid) })
	b.Run("in-process", func(b *testing.B) {
		sc, err := scenarios.Load("latency-pressure", nil)
		if err != nil {
			b.Fatal(err)
		}
		var v *scenarios.Variant
		for i := range sc.Variants {
			if sc.Variants[i].Name == "high" {
				v = &sc.Variants[i]
			}
		}
		var r collective.Runner
		decisions, k := 0, 0
		b.ReportAllocs()
		for b.Loop() {
			streams, g, err := experiment.DrawEpisode(v, sc.Seed, k%rows)
			if err != nil {
				b.Fatal(err)
			}
			res, err := r.Run(g, v.Spec.Collective, pol, streams, collective.Options{Record: true})
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range res.Decisions {
				if !d.Mask.Single() { // the decisions the environment puts to its caller
					decisions++
				}
			}
			k++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(decisions), "ns/decision")
	})
}

// BenchmarkStepWorkers steps 1,024 rows of latency-pressure (variant
// high) in groups of 8 on 1, 2, 4, ... workers, up to the CPUs, and
// reports the cost per decision with a choice: how a batch call scales
// with the goroutines that step its rows (make's workers). Run it on a
// machine with many idle cores.
func BenchmarkStepWorkers(b *testing.B) {
	for w := 1; w <= runtime.NumCPU(); w *= 2 {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) { stepRows(b, 1024, 8, w, firstValid) })
	}
}

// BenchmarkStepRows steps 16 to 256 rows of latency-pressure (variant
// high, group 1) on one worker and on two: where a second thread starts
// to pay for waking it at every step.
func BenchmarkStepRows(b *testing.B) {
	for rows := 16; rows <= 256; rows *= 2 {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("rows=%d/workers=%d", rows, w), func(b *testing.B) { stepRows(b, rows, 1, w, firstValid) })
		}
	}
}

// BenchmarkStepUniform steps 256 rows of latency-pressure (variant high,
// group 1) on one worker, each row deciding with uniformValid: the
// server's part of bench/env.sh's (a), without the pipe and the client.
func BenchmarkStepUniform(b *testing.B) { stepRows(b, 256, 1, 1, uniformValid) }

// stepRows steps rows of latency-pressure (variant high) in groups of
// group on workers goroutines, each row deciding with pol, resetting when
// every row has ended, and reports ns per decision with a choice.
func stepRows(b *testing.B, rows, group, workers int, pol collective.PolicyFunc) {
	e, err := env.New(env.Config{Scenario: "latency-pressure", Variant: "high", NumEnvs: rows, Group: group, Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Reset(nil); err != nil {
		b.Fatal(err)
	}
	actions := make([]int32, rows)
	decisions := 0
	b.ReportAllocs()
	for b.Loop() {
		active := 0
		for i := range actions {
			if p, ok := e.Pending(i); ok {
				actions[i] = int32(pol.Decide(p.Obs, p.Mask, p.U))
				active++
			}
		}
		if active == 0 {
			if _, err := e.Reset(nil); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if _, err := e.Step(actions); err != nil {
			b.Fatal(err)
		}
		decisions += active
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(decisions), "ns/decision")
}

// BenchmarkServe steps 256 rows of latency-pressure (variant high)
// through the protocol, over pipes, with each row's first valid action,
// and reports the cost per decision: BenchmarkStep/env's plus the
// framing, the JSON header and the arrays both ways. The figures are for
// the coordinator to measure on a quiet machine.
func BenchmarkServe(b *testing.B) {
	const rows = 256
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- env.Serve(inR, outW, "bench") }()
	replies := env.NewReader(outR)
	request := func(msg []byte) *env.Message {
		go inW.Write(msg) //nolint:errcheck // a server that stops reading fails the read below
		m, err := replies.Read()
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(m.Header, []byte(`"ok":true`)) {
			b.Fatalf("%s", m.Header)
		}
		return m
	}
	request(frame(b, map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "latency-pressure", "variant": "high", "num_envs": rows, "group": 8}))
	reset := frame(b, map[string]any{"op": "reset"})
	stepHeader := frame(b, map[string]any{"op": "step", "arrays": []env.Array{{Name: "actions", Dtype: "i4", Shape: []int{rows}}}})
	masks := func(m *env.Message) ([]byte, []byte) {
		var mask, active []byte
		for i, a := range m.Arrays {
			switch a.Name {
			case "action_mask":
				mask = m.Payloads[i]
			case "active":
				active = m.Payloads[i]
			}
		}
		return mask, active
	}
	mask, active := masks(request(reset))
	msg := make([]byte, len(stepHeader)+4*rows)
	decisions := 0
	b.ReportAllocs()
	for b.Loop() {
		if !bytes.Contains(active, []byte{1}) {
			mask, active = masks(request(reset))
			continue
		}
		copy(msg, stepHeader)
		actions := msg[len(stepHeader):]
		for i := range rows {
			a := bytes.IndexByte(mask[i*env.NumActions:(i+1)*env.NumActions], 1)
			binary.LittleEndian.PutUint32(actions[4*i:], uint32(max(a, 0)))
			decisions += int(active[i])
		}
		mask, active = masks(request(msg))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(decisions), "ns/decision")
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
