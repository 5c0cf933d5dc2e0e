package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestTraceSlicesNest traces the first episodes of every variant of every
// library scenario and checks that the slices of each thread nest: two
// slices of one agent are disjoint (touching is allowed) or one holds the
// other. Perfetto draws anything else as badly nested. A scenario that
// trace refuses under its organizations (a setting only a learned policy
// exercises) is traced with a learned policy.
func TestTraceSlicesNest(t *testing.T) {
	episodes := 4
	if testing.Short() {
		episodes = 1
	}
	learned := filepath.Join(trainTiny(t, "--charts=false"), "policies", "split-seed7.json")
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Load(name, nil)
		require.NoError(t, err)
		var extra []string
		if sc.RunInert() != nil {
			extra = []string{"--policy", learned}
		}
		for _, v := range sc.Variants {
			for k := range episodes {
				out := mustSimulate(t, append([]string{"trace", name, "--variant", v.Name, "--episode", strconv.Itoa(k)}, extra...)...)
				slices := parseSlices(t, []byte(out))
				require.NotEmpty(t, slices)
				for _, bad := range badlyNested(slices) {
					t.Errorf("%s, variant %s, episode %d: %s", name, v.Name, k, bad)
				}
			}
		}
	}
}

type slice struct {
	name       string
	tid        int
	start, end int64
	order      int
}

func parseSlices(t *testing.T, data []byte) []slice {
	var doc struct {
		TraceEvents []struct {
			Name string       `json:"name"`
			Ph   string       `json:"ph"`
			Ts   json.Number  `json:"ts"`
			Dur  *json.Number `json:"dur"`
			Tid  int          `json:"tid"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	var out []slice
	for i, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		// Whole microseconds: any reader adds them without rounding.
		ts, err := strconv.ParseInt(string(e.Ts), 10, 64)
		require.NoError(t, err, "ts %s", e.Ts)
		require.NotNil(t, e.Dur)
		dur, err := strconv.ParseInt(string(*e.Dur), 10, 64)
		require.NoError(t, err, "dur %s", *e.Dur)
		require.GreaterOrEqual(t, dur, int64(0))
		out = append(out, slice{name: e.Name, tid: e.Tid, start: ts, end: ts + dur, order: i})
	}
	return out
}

// badlyNested describes every pair of slices of one thread that overlap
// without one holding the other.
func badlyNested(all []slice) []string {
	all = slices.Clone(all)
	slices.SortFunc(all, func(a, b slice) int {
		return cmp.Or(cmp.Compare(a.tid, b.tid), cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end), cmp.Compare(a.order, b.order))
	})
	var bad []string
	var open []slice // the slices enclosing the current one, outermost first
	for i, s := range all {
		if i > 0 && s.tid != all[i-1].tid {
			open = open[:0]
		}
		for len(open) > 0 && open[len(open)-1].end <= s.start {
			open = open[:len(open)-1]
		}
		if len(open) > 0 && s.end > open[len(open)-1].end {
			p := open[len(open)-1]
			bad = append(bad, fmt.Sprintf("thread %d: %q [%d, %d] overlaps %q [%d, %d]", s.tid, s.name, s.start, s.end, p.name, p.start, p.end))
			continue
		}
		open = append(open, s)
	}
	return bad
}

func TestBadlyNestedFindsOverlaps(t *testing.T) {
	ok := []slice{{name: "a", start: 0, end: 10}, {name: "b", start: 10, end: 20}, {name: "c", start: 12, end: 15}, {name: "d", start: 20, end: 20}}
	assert.Empty(t, badlyNested(ok))
	overlap := []slice{{name: "a", start: 0, end: 10}, {name: "b", start: 9, end: 20}}
	assert.Len(t, badlyNested(overlap), 1)
	otherThread := []slice{{name: "a", start: 0, end: 10}, {name: "b", tid: 1, start: 9, end: 20}}
	assert.Empty(t, badlyNested(otherThread))
}
