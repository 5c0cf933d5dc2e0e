package sweep

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// FuzzParseShard checks that parseShard accepts only a shard that exists
// (0 <= i < n <= maxShards), which String writes in a form that reads back
// to the same shard, and that a refusal quotes what was given: a flag's
// value may be empty or hold spaces and newlines, which a message must
// show.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"3/16", "0/1", " 1 / 2 ", "+1/2", "01/02", "16/16", "-1/4", "0/0", "1/-2", "0/1000001", "3", "a/b", "1/2/3", "", "0/\n0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := parseShard(s)
		if err != nil {
			require.ErrorContains(t, err, strconv.Quote(s))
			require.Zero(t, sh)
			return
		}
		require.True(t, 0 <= sh.Index && sh.Index < sh.Count && sh.Count <= maxShards, "%q read as %+v", s, sh)
		back, err := parseShard(sh.String())
		require.NoError(t, err, "%q read as %+v", s, sh)
		require.Equal(t, sh, back, "%q read as %+v", s, sh)
	})
}

// FuzzValueJSON checks what a metric value reads from JSON. A value read
// is finite only when it was given as a number (so null, which the json
// package reads into a float as 0, must be refused), and it is written as
// a number when finite and as "NaN", "+Inf" or "-Inf" otherwise, which
// reads back to the same value, bit for bit, and is written again the
// same. A refused string or null is named in the error, since Value's own
// checks, not the json package's, refuse those.
func FuzzValueJSON(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1.5, -2, 1e-300, 5e-324, 0.1 + 0.2, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()} {
		b, err := json.Marshal(Value(v))
		require.NoError(f, err)
		f.Add(b)
	}
	for _, s := range []string{`"12"`, `"nan"`, `"Infinity"`, `"-NaN"`, `""`, `null`, `true`, `[1]`, `{"a":1}`, `1e400`, ` 7 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v Value
		if err := json.Unmarshal(data, &v); err != nil {
			var s string
			switch {
			case strings.TrimSpace(string(data)) == "null":
				require.ErrorContains(t, err, "null")
			case json.Unmarshal(data, &s) == nil:
				require.ErrorContains(t, err, strconv.Quote(s))
			}
			return
		}
		x := float64(v)
		finite := !math.IsNaN(x) && !math.IsInf(x, 0)
		if finite {
			first := strings.TrimSpace(string(data))[0]
			require.True(t, first == '-' || '0' <= first && first <= '9', "%s read as the finite %v", data, x)
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		if finite {
			require.NotEqual(t, byte('"'), b[0], "%v written as %s", x, b)
		} else {
			require.Contains(t, []string{`"NaN"`, `"+Inf"`, `"-Inf"`}, string(b))
		}
		var back Value
		require.NoError(t, json.Unmarshal(b, &back), "%s", b)
		y := float64(back)
		require.True(t, math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y), "%v written as %s reads as %v", x, b, y)
		again, err := json.Marshal(back)
		require.NoError(t, err)
		require.Equal(t, string(b), string(again))
	})
}

// FuzzParseRecord checks that parseRecord never panics and accepts only
// a record of the plan's sweep: one that is, byte for byte, what
// newRecord writes for its trial and metrics, and that reads back from
// its marshal to the same record. The plan has variants, grid and random
// parameters and samples, so that every field of a record is checked
// against it.
func FuzzParseRecord(f *testing.F) {
	sc, err := scenarios.Parse([]byte(referenced), "referenced.yaml", []string{`sweep.random={task.coupling: "uniform(0, 1)"}`, "sweep.samples=2", "sweep.seeds=1"})
	require.NoError(f, err)
	p, _, err := NewPlan(sc, 2, "")
	require.NoError(f, err)
	index := p.TrialIndex()
	metrics := func(vs ...float64) map[string]float64 {
		m := make(map[string]float64)
		for i, name := range p.Metrics {
			m[name] = vs[i%len(vs)]
		}
		return m
	}
	good := newRecord(p, 5, metrics(0.5, math.NaN(), math.Inf(1), math.Inf(-1)))
	f.Add(good.marshal())
	f.Add(newRecord(p, 0, metrics(0, 1e-300, -2)).marshal())
	f.Add(newRecord(p, len(p.Trials)-1, metrics(40.25)).marshal())
	bad := *good
	bad.Sweep = "sha256:0123456789abcdef"
	f.Add(bad.marshal())
	bad = *good
	bad.Trial++
	f.Add(bad.marshal())
	bad = *good
	bad.Metrics = map[string]Value{p.Metrics[0]: 1}
	f.Add(bad.marshal())
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseRecord(p, index, data)
		if err != nil {
			require.Nil(t, r)
			return
		}
		values := make(map[string]float64, len(r.Metrics))
		for name, v := range r.Metrics {
			values[name] = float64(v)
		}
		b := r.marshal()
		require.Equal(t, string(newRecord(p, r.Trial, values).marshal()), string(b))
		back, err := parseRecord(p, index, b)
		require.NoError(t, err, "%s", b)
		require.True(t, same(r, back), "%s", b)
		require.Equal(t, string(b), string(back.marshal()))
	})
}
