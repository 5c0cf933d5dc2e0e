package policy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	c "github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
)

func save(t testing.TB, p policy.Softmax) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, policy.Save(&b, p))
	return b.Bytes()
}

func requireSameBits(t testing.TB, want, got []float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "params[%d]: %v vs %v", i, want[i], got[i])
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1.0 / 3, -2.5e-310, math.SmallestNonzeroFloat64, math.MaxFloat64, -1e21, 1e-7}
	for _, pc := range softmaxCases()[:2] {
		t.Run(pc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(50, 50))
			p := pc.make(r, 1)
			copy(p.Params(), special)
			data := save(t, p)
			q, err := policy.Load(bytes.NewReader(data), "p.json")
			require.NoError(t, err)
			require.Equal(t, p.Kind(), q.Kind())
			requireSameBits(t, p.Params(), q.Params())
			require.Equal(t, string(data), string(save(t, q)), "Save∘Load∘Save")

			copy(p.Params(), make([]float64, len(special))) // keep the probabilities finite
			copy(q.Params(), p.Params())
			for range 100 {
				x, m := randFeatures(r), randMask(r, 1)
				var pp, pq [c.NumActions]float64
				p.Probs(x, m, &pp)
				q.Probs(x, m, &pq)
				require.Equal(t, pp, pq)
			}
		})
	}
}

func TestSaveRejects(t *testing.T) {
	p := policy.NewLinear()
	p.Params()[3] = math.NaN()
	require.ErrorContains(t, policy.Save(&bytes.Buffer{}, p), "params[3]")
	p.Params()[3] = math.Inf(-1)
	require.ErrorContains(t, policy.Save(&bytes.Buffer{}, p), "params[3]")
}

// A policy with no weight on a task kind is written with the features
// before the kinds only, as files were before the kinds existed; one
// weight on a kind writes them all. Either reads back to the same
// parameters, and the file without kinds gives the kinds weight 0.
func TestSaveKindFeatures(t *testing.T) {
	names := policy.FeatureNames()
	base := slices.Index(names, "kind_decomposable")
	require.Positive(t, base)
	for _, pc := range softmaxCases()[:2] {
		for _, useKind := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s kind=%v", pc.name, useKind), func(t *testing.T) {
				p := pc.make(rand.New(rand.NewPCG(7, 7)), 1)
				ps := p.Params()
				rows := c.NumActions // the linear policy's W
				if p.Kind() == "mlp" {
					rows = 8 // mlp8's W1
				}
				for r := range rows {
					clear(ps[r*policy.NumFeatures+base : (r+1)*policy.NumFeatures])
				}
				wantFeatures := names[:base]
				if useKind {
					ps[policy.NumFeatures-1] = 0.5 // the first row's weight on tool-heavy
					wantFeatures = names
				}
				data := save(t, p)
				var f struct {
					Features []string
					Params   []float64
				}
				require.NoError(t, json.Unmarshal(data, &f))
				require.Equal(t, wantFeatures, f.Features)
				require.Len(t, f.Params, len(ps)-rows*(len(names)-len(wantFeatures)))
				q, err := policy.Load(bytes.NewReader(data), "p.json")
				require.NoError(t, err)
				requireSameBits(t, ps, q.Params())
			})
		}
	}
}

// mutate decodes a saved policy, changes it and encodes it again.
func mutate(t *testing.T, p policy.Softmax, change func(f map[string]any)) string {
	t.Helper()
	var f map[string]any
	require.NoError(t, json.Unmarshal(save(t, p), &f))
	change(f)
	b, err := json.Marshal(f)
	require.NoError(t, err)
	return string(b)
}

func TestLoadErrors(t *testing.T) {
	lin := policy.NewLinear()
	mlp := policy.NewMLP(3, rand.New(rand.NewPCG(1, 1)))
	withKind := policy.NewLinear()
	withKind.Params()[policy.NumFeatures-1] = 1
	valid := string(save(t, lin))
	tests := []struct {
		name  string
		data  string
		field string // the error must name it
	}{
		{"empty", "", "empty file"},
		{"not JSON", "{", "bad.json:1:2: truncated"},
		// Errors of decoding gave a byte offset, or Go's words and no
		// place ("cannot unmarshal number into Go struct field
		// policyFile.format of type string").
		{"bad syntax", "{\"format\" 1}", "bad.json:1:11: invalid JSON: invalid character '1'"},
		{"bad syntax on line 2", "{\"format\": \"x\",\n \"kind\" 1}", "bad.json:2:9: invalid JSON"},
		{"not an object", "[1, 2]", `bad.json:1:1: want a JSON object {"format": "swarmsim-policy/1", "kind", "features", "actions", "hidden", "params"}, found array`},
		{"a number for a string", "{\n \"format\": 5}", `bad.json:2:12: field "format": want a string, found number`},
		{"a string for a number", "{\"format\": \"swarmsim-policy/1\",\n \"hidden\": \"x\"}", `bad.json:2:14: field "hidden": want a number, found string`},
		{"an unknown field in place", "{\"format\": \"swarmsim-policy/1\",\n \"weights\": []}", `bad.json:2:2: unknown field "weights" (allowed: format, kind, features, actions, hidden, params)`},
		{"trailing data", valid + "{}", "after the JSON object"},
		{"unknown field", mutate(t, lin, func(f map[string]any) { f["extra"] = 1 }), "extra"},
		{"wrong format", mutate(t, lin, func(f map[string]any) { f["format"] = "swarmsim-policy/2" }), "format"},
		{"missing format", mutate(t, lin, func(f map[string]any) { delete(f, "format") }), "format"},
		{"unknown kind", mutate(t, lin, func(f map[string]any) { f["kind"] = "cnn" }), "kind"},
		{"missing kind", mutate(t, lin, func(f map[string]any) { delete(f, "kind") }), "kind"},
		{"kind weights without their features", mutate(t, withKind, func(f map[string]any) {
			fs := f["features"].([]any)
			f["features"] = fs[:len(fs)-4]
		}), "params"},
		{"too few features", mutate(t, lin, func(f map[string]any) {
			fs := f["features"].([]any)
			f["features"] = fs[:len(fs)-1]
		}), "features"},
		{"renamed feature", mutate(t, lin, func(f map[string]any) { f["features"].([]any)[2] = "lonely" }), "features"},
		{"swapped features", mutate(t, lin, func(f map[string]any) {
			fs := f["features"].([]any)
			fs[1], fs[2] = fs[2], fs[1]
		}), "features"},
		{"null features", mutate(t, lin, func(f map[string]any) { f["features"] = nil }), "features"},
		{"extra action", mutate(t, lin, func(f map[string]any) { f["actions"] = append(f["actions"].([]any), "pray") }), "actions"},
		{"renamed action", mutate(t, lin, func(f map[string]any) { f["actions"].([]any)[0] = "toil" }), "actions"},
		{"missing hidden", mutate(t, lin, func(f map[string]any) { delete(f, "hidden") }), "hidden"},
		{"linear with hidden", mutate(t, lin, func(f map[string]any) { f["hidden"] = 3 }), "hidden"},
		{"mlp without hidden", mutate(t, mlp, func(f map[string]any) { f["hidden"] = 0 }), "hidden"},
		{"mlp too wide", mutate(t, mlp, func(f map[string]any) { f["hidden"] = 1 << 20 }), "hidden"},
		{"fractional hidden", mutate(t, mlp, func(f map[string]any) { f["hidden"] = 1.5 }), "hidden"},
		{"mlp params for another width", mutate(t, mlp, func(f map[string]any) { f["hidden"] = 4 }), "params"},
		{"too few params", mutate(t, lin, func(f map[string]any) {
			ps := f["params"].([]any)
			f["params"] = ps[:len(ps)-1]
		}), "params"},
		{"too many params", mutate(t, lin, func(f map[string]any) { f["params"] = append(f["params"].([]any), 0.0) }), "params"},
		{"missing params", mutate(t, lin, func(f map[string]any) { delete(f, "params") }), "params"},
		{"null param", mutate(t, lin, func(f map[string]any) { f["params"].([]any)[5] = nil }), "params"},
		{"string param", mutate(t, lin, func(f map[string]any) { f["params"].([]any)[5] = "1" }), "params"},
		{"overflowing param", strings.Replace(valid, "\"params\": [\n    0,", "\"params\": [\n    1e999,", 1), "params"},
		{"NaN param", strings.Replace(valid, "\"params\": [\n    0,", "\"params\": [\n    NaN,", 1), "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := policy.Load(strings.NewReader(tt.data), "bad.json")
			require.Error(t, err)
			require.Nil(t, p)
			require.ErrorContains(t, err, "bad.json")
			require.ErrorContains(t, err, tt.field)
			require.NotContains(t, err.Error(), `field ""`, "an error of the whole file names no field")
			t.Log(err)
		})
	}
}

// TestLoadHiddenEdges loads mlp files at the edges of the allowed hidden
// widths, 1 and MaxHidden, and one past each.
func TestLoadHiddenEdges(t *testing.T) {
	tests := []struct {
		name   string
		save   int // the width of the saved policy
		hidden int // the width the file claims
		ok     bool
	}{
		{"narrowest", 1, 1, true},
		{"widest", policy.MaxHidden, policy.MaxHidden, true},
		{"below narrowest", 1, 0, false},
		{"above widest", policy.MaxHidden, policy.MaxHidden + 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := policy.NewMLP(tt.save, rand.New(rand.NewPCG(2, 2)))
			data := mutate(t, p, func(f map[string]any) { f["hidden"] = tt.hidden })
			q, err := policy.Load(strings.NewReader(data), "edge.json")
			if !tt.ok {
				require.ErrorContains(t, err, `edge.json: field "hidden"`)
				require.Nil(t, q)
				return
			}
			require.NoError(t, err)
			requireSameBits(t, p.Params(), q.Params())
		})
	}
}

func FuzzLoad(f *testing.F) {
	r := rand.New(rand.NewPCG(60, 60))
	lin := policy.NewLinear()
	for i := range lin.Params() {
		lin.Params()[i] = r.NormFloat64()
	}
	f.Add(save(f, lin))
	f.Add(save(f, policy.NewMLP(2, r)))
	f.Add([]byte(`{"format":"swarmsim-policy/1","kind":"mlp","hidden":1}`))
	f.Add([]byte(`{"format":"swarmsim-policy/1","kind":"linear","features":[],"actions":[],"hidden":0,"params":[]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := policy.Load(bytes.NewReader(data), "fuzz")
		if err != nil {
			require.Nil(t, p)
			require.True(t, strings.HasPrefix(err.Error(), "policy fuzz: "), "the error names the file: %v", err)
			return
		}
		saved := save(t, p)
		q, err := policy.Load(bytes.NewReader(saved), "resaved")
		require.NoError(t, err)
		require.Equal(t, p.Kind(), q.Kind())
		requireSameBits(t, p.Params(), q.Params())
		require.Equal(t, string(saved), string(save(t, q)))
	})
}
