package results_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/results"
)

// FuzzParsePlan checks that ParsePlan never panics, and that a plan it
// accepts has the current format and its own content's hash, and reads
// back from its Marshal to a plan with the same bytes. Random bytes almost
// never carry their own hash, so the fuzzer would not get past the hash
// check on its own: the same bytes are also decoded without checks and
// hashed, and that plan, whatever it holds, must then be accepted and round
// trip, and be refused as damaged once its hash or its content is changed
// without hashing it again. A refusal of valid UTF-8 is valid UTF-8, as
// messages quote parts of a damaged plan.
//
// The fuzzer minimizes each input that reaches new code, in time
// quadratic in its length, and from the plan simulate wrote (testdata, 3.7
// kB) that took all of a 45 s run. The seed is therefore that plan cut to
// its last trial and the first line of its resolved scenario (to the
// parser, one string like another), without the indentation: 1 kB.
func FuzzParsePlan(f *testing.F) {
	written, err := results.ReadPlan("testdata")
	require.NoError(f, err)
	written.Resolved = written.Resolved[:strings.Index(written.Resolved, "\n")+1]
	written.Trials = written.Trials[1:]
	for _, p := range []*results.Plan{written, plan()} {
		p.Hash = p.ContentHash()
		b, err := json.Marshal(p)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"format":"swarmsim-sweep/1","hash":"sha256:","trials":null}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := results.ParsePlan(data)
		if err != nil {
			require.Nil(t, p)
			if utf8.Valid(data) {
				require.True(t, utf8.ValidString(err.Error()), "the message for valid UTF-8 is valid UTF-8: %q", err)
			}
		} else {
			require.Equal(t, results.PlanFormat, p.Format)
			require.Equal(t, p.ContentHash(), p.Hash)
			requireRoundTrip(t, p)
		}

		var raw results.Plan
		if json.Unmarshal(data, &raw) != nil {
			return
		}
		raw.Format = results.PlanFormat
		raw.Hash = raw.ContentHash()
		requireRoundTrip(t, &raw)

		// Two plans that differ in one field, each under the other's hash.
		other := raw
		other.Seed++
		other.Hash = other.ContentHash()
		swapped := [2]results.Plan{raw, other}
		swapped[0].Hash, swapped[1].Hash = other.Hash, raw.Hash
		for i, p := range swapped {
			_, err := results.ParsePlan(p.Marshal())
			require.ErrorContains(t, err, "damaged", "plan %d of 2 under the other's hash", i+1)
		}
	})
}

// TestParsePlanWritten: a plan as simulate wrote it (simulate sweep
// testdata/swept.yaml --variant hard --seed 7) still reads, and marshals
// to the same bytes. Its hash is of the JSON of the Plan that reads it, so
// a field added without omitempty would make every earlier sweep damaged.
func TestParsePlanWritten(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", results.PlanFile))
	require.NoError(t, err)
	p, err := results.ParsePlan(data)
	require.NoError(t, err)
	require.Equal(t, string(data), string(p.Marshal()))
}

// requireRoundTrip requires p's Marshal to parse, to a plan whose Marshal
// is the same bytes.
func requireRoundTrip(t *testing.T, p *results.Plan) {
	t.Helper()
	b := p.Marshal()
	back, err := results.ParsePlan(b)
	require.NoError(t, err, "%s", b)
	require.Equal(t, string(b), string(back.Marshal()))
}
