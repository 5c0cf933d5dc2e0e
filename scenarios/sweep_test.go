package scenarios_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// sweepBase is a scenario without its sweep section.
const sweepBase = `name: s
seed: 3
task:
  shape: fork-join
  width: 3
  stages: 1
  work: exp(5m)
collective:
  agents: 4
policy:
  organization: split
`

func parseSweep(t *testing.T, sweep string, sets ...string) (*scenarios.Scenario, error) {
	t.Helper()
	return scenarios.Parse([]byte(sweepBase+sweep), "s.yaml", sets)
}

func TestSweepParse(t *testing.T) {
	sc, err := parseSweep(t, `sweep:
  command: train
  seeds: 2
  grid:
    reward.task: [0, 0.5, 1]
    task.coupling: [0, 0.9]
    collective.spawn: [0, 2m]
  random:
    train.lr: uniform(0.02, 0.2)
    collective.agents: uniform(2, 6)
  samples: 2
`)
	require.NoError(t, err)
	sw := sc.Sweep
	require.NotNil(t, sw)
	assert.Equal(t, scenarios.SweepTrain, sw.Command)
	assert.Equal(t, 2, sw.Seeds)
	assert.Equal(t, 2, sw.Samples)
	assert.Equal(t, []string{"reward_mean", "success_rate", "latency_mean", "parallelism_mean"}, sw.Metrics, "the default metrics")
	require.Len(t, sw.Grid, 3)
	assert.Equal(t, "reward.task", sw.Grid[0].Path)
	assert.Equal(t, []string{"0", "0.5", "1"}, sw.Grid[0].Values)
	assert.Equal(t, []float64{0, 0.5, 1}, sw.Grid[0].Numbers)
	assert.Equal(t, []string{"0", "0.9"}, sw.Grid[1].Values, "distributions")
	assert.Equal(t, []string{"0s", "2m0s"}, sw.Grid[2].Values, "durations")
	assert.Equal(t, []float64{0, 120}, sw.Grid[2].Numbers)
	assert.Equal(t, "s", sw.Grid[2].Unit)
	assert.Equal(t, sim.Uniform(0.02, 0.2), sw.Random[0].Dist)
	assert.Equal(t, 12, sw.Points())

	assertRoundTrip(t, sc)
	again, err := scenarios.Parse(sc.Resolved, "resolved.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, sc.Sweep, again.Sweep, "the resolved sweep reads back the same")

	t.Run("no-sweep", func(t *testing.T) {
		sc, err := parseSweep(t, "")
		require.NoError(t, err)
		assert.Nil(t, sc.Sweep)
		assert.NotContains(t, string(sc.Resolved), "sweep")
		_, err = sc.Trials(1, "")
		assert.ErrorContains(t, err, "no sweep section")
	})
	t.Run("set", func(t *testing.T) {
		sc, err := parseSweep(t, "", "sweep={command: run, grid: {collective.agents: [1, 2]}}", "sweep.seeds=3")
		require.NoError(t, err)
		require.NotNil(t, sc.Sweep)
		assert.Equal(t, scenarios.SweepRun, sc.Sweep.Command)
		assert.Equal(t, 3, sc.Sweep.Seeds)
		assert.Equal(t, []string{"1", "2"}, sc.Sweep.Grid[0].Values)
	})
}

func TestSweepParseErrors(t *testing.T) {
	// Lines of the sweep section start at line 12 of the file.
	tests := []struct {
		sweep string
		sets  []string
		want  []string
	}{
		{"sweep:\n  seeds: 2\n", nil, []string{"s.yaml:12:1: sweep.command: missing (allowed: train, run, replay)"}},
		{"sweep:\n  command: trian\n", nil, []string{`s.yaml:13:3: sweep.command: "trian" is not allowed (allowed: train, run, replay)`}},
		{"sweep:\n  command: train\n  seeds: 0\n", nil, []string{"s.yaml:14:3: sweep.seeds: 0 is out of range"}},
		{"sweep:\n  command: train\n  sead: 1\n", nil, []string{"s.yaml:14:3: sweep.sead: unknown key (allowed: command, seeds, grid, random, samples, metrics, reference)"}},
		{"sweep:\n  command: train\n  metrics: [reward_mean, finish_mean]\n", nil,
			[]string{`s.yaml:14:26: sweep.metrics[1]: "finish_mean" is not a metric of train trials (allowed: reward_mean,`, "prob_submit"}},
		{"sweep:\n  command: run\n  metrics: [reward_mean, reward_mean]\n", nil, []string{`s.yaml:14:26: sweep.metrics[1]: "reward_mean" is listed twice`}},
		{"sweep:\n  command: run\n  metrics: [succes_rate]\n", nil, []string{`sweep.metrics[0]: "succes_rate" is not a metric of run trials`, `; did you mean "success_rate"?`}},
		{"sweep:\n  command: run\n  seeds: 50000\n  random:\n    task.coupling: uniform(0, 1)\n  samples: 3\n", nil, []string{"sweep: 150000 trials are too many (at most 100000)"}},
		{"sweep:\n  command: run\n  grid:\n    collective.agentz: [1, 2]\n", nil,
			[]string{"s.yaml:15:5: sweep.grid: collective.agentz: unknown key", `did you mean "agents"`}},
		{"sweep:\n  command: run\n  grid:\n    seed: [1, 2]\n", nil, []string{"s.yaml:15:5: sweep.grid: seed: a sweep varies the spec"}},
		{"sweep:\n  command: run\n  grid:\n    coupling: [0.1, 0.5]\n", nil, []string{"s.yaml:15:5: sweep.grid: coupling: a sweep varies the spec: paths under task, collective, policy, reward, train and replay; the scenario has task.coupling: a path without its section?"}},
		{"sweep:\n  command: run\n  grid:\n    collective.agents: 3\n", nil, []string{"s.yaml:15:5: collective.agents: got the integer 3, want a list of values"}},
		{"sweep:\n  command: run\n  grid:\n    collective.agents: []\n", nil, []string{"s.yaml:15:5: collective.agents: got an empty list"}},
		{"sweep:\n  command: run\n  grid:\n    collective.agents: [2, four]\n", nil, []string{`s.yaml:15:28: collective.agents: got "four", want an integer`}},
		{"sweep:\n  command: run\n  grid:\n    collective.agents: [2, 0]\n", nil,
			[]string{"s.yaml:15:28: collective.agents: 0 is out of range (at least 1) (with the sweep value collective.agents = 0)"}},
		{"sweep:\n  command: run\n  grid:\n    collective.agents: [2, 2]\n", nil, []string{"s.yaml:15:28: collective.agents: 2 is given twice (items 1 and 2 of the list)"}},
		{"sweep:\n  command: run\n  grid:\n    collective: [{agents: 2}]\n    collective.agents: [1]\n", nil,
			[]string{"s.yaml:16:5: sweep.grid: collective.agents overlaps the axis collective"}},
		{"sweep:\n  command: train\n  random:\n    train.lr: uniform(0.1, 0.2)\n", nil, []string{"s.yaml:12:1: sweep.samples: missing (random axes need samples"}},
		{"sweep:\n  command: run\n  samples: 2\n", nil, []string{"s.yaml:14:3: sweep.samples: given without random axes"}},
		// samples is 1 to 1e6: at 1e6 the trials are too many, past it the
		// count itself is refused, and so is one below 1.
		{"sweep:\n  command: run\n  random:\n    reward.task: uniform(0, 1)\n  samples: 1000000\n", nil, []string{"sweep: 1000000 trials are too many"}},
		{"sweep:\n  command: run\n  random:\n    reward.task: uniform(0, 1)\n  samples: 1000001\n", nil, []string{"s.yaml:16:3: sweep.samples: 1000001 is out of range (1 to 1000000)"}},
		{"sweep:\n  command: run\n  random:\n    reward.task: uniform(0, 1)\n  samples: -1\n", nil, []string{"s.yaml:16:3: sweep.samples: -1 is out of range (1 to 1000000)"}},
		{"sweep:\n  command: train\n  random:\n    train.lr: expo(3)\n  samples: 1\n", nil, []string{`s.yaml:15:15: train.lr: invalid distribution "expo(3)"`, `did you mean "exp"?`}},
		// An axis in a section that the trials never read would change nothing.
		{"sweep:\n  command: run\n  grid:\n    train.lr: [0.1, 0.2]\n", nil,
			[]string{"s.yaml:15:5: sweep.grid: train.lr: an evaluation never trains, so it never reads the train section (simulate train and sweeps of command train do)"}},
		{"sweep:\n  command: run\n  random:\n    train.lr: uniform(0.1, 0.2)\n  samples: 1\n", nil,
			[]string{"s.yaml:15:5: sweep.random: train.lr: an evaluation never trains"}},
		{"sweep:\n  command: train\n  grid:\n    policy.organization: [split, team]\n", nil,
			[]string{"s.yaml:15:5: sweep.grid: policy.organization: training never reads the policy section"}},
		{"sweep:\n  command: train\n  grid:\n    policy: [{organization: team}]\n", nil,
			[]string{"s.yaml:15:5: sweep.grid: policy: training never reads the policy section"}},
		{"sweep:\n  command: run\n  random:\n    policy.organization: uniform(0, 1)\n  samples: 1\n", nil,
			[]string{"s.yaml:15:5: policy.organization: holds a string; random axes draw numbers"}},
		{"sweep:\n  command: run\n  grid:\n    reward.task: [1]\n  random:\n    reward.task: uniform(0, 1)\n  samples: 1\n", nil,
			[]string{"s.yaml:17:5: sweep.random: reward.task overlaps the axis reward.task"}},
		{"variants:\n  - name: a\n    set: {reward.task: 1}\nsweep:\n  command: run\n  grid:\n    reward.task: [0, 1]\n", nil,
			[]string{`s.yaml:18:5: sweep.grid: reward.task: variant "a" sets reward.task, which would replace every swept value`}},
		// Random draws out of range are reported with the trial's values.
		{"sweep:\n  command: run\n  grid:\n    reward.task: [0, 1]\n  random:\n    collective.agents: uniform(0, 0.4)\n  samples: 1\n", nil,
			[]string{"s.yaml:17:24: collective.agents: 0 is out of range (at least 1) (a draw of this random axis, in trial reward.task=0, collective.agents=0;"}},
		// Problems of a --set sweep name the flag.
		{"", []string{"sweep={command: run, grid: {collective.agents: [0]}}"},
			[]string{"--set sweep={command: run, grid: {collective.agents: [0]}}: collective.agents: 0 is out of range"}},
		{"sweep:\n  command: run\n", []string{"sweep.seeds=-1"}, []string{"--set sweep.seeds=-1: sweep.seeds: -1 is out of range"}},
		// A --set of another section leaves the file's problems at their line.
		{"sweep:\n  command: trian\n", []string{"collective.agents=5"}, []string{`s.yaml:13:3: sweep.command: "trian" is not allowed`}},
		{"sweep:\n  command: run\n  samples: 2\n", []string{"collective.agents=5"}, []string{"s.yaml:14:3: sweep.samples: given without random axes"}},
		{"sweep:\n  command: run\n  metrics: [succes_rate]\n", []string{"task.width=4", "sweep.seeds=2"}, []string{`s.yaml:14:13: sweep.metrics[0]: "succes_rate" is not a metric`}},
		// One of the sweep section that brings the problem in is named.
		{"sweep:\n  command: train\n  metrics: [latency_mean]\n", []string{"sweep.command=run", "collective.agents=5"},
			[]string{`--set sweep.command=run: sweep.metrics[0]: "latency_mean" is not a metric of run trials`}},
		{"sweep:\n  command: train\n", []string{"sweep.random={train.lr: uniform(0.1, 0.2)}", "collective.agents=5"},
			[]string{"--set sweep.random={train.lr: uniform(0.1, 0.2)}: sweep.samples: missing"}},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := parseSweep(t, tc.sweep, tc.sets...)
			require.Error(t, err, "%s", tc.sweep)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestSweepMaxTrials: a sweep may have exactly MaxTrials trials.
func TestSweepMaxTrials(t *testing.T) {
	for seeds, want := range map[int]string{
		scenarios.MaxTrials:     "",
		scenarios.MaxTrials + 1: fmt.Sprintf("sweep: %d trials are too many", scenarios.MaxTrials+1),
	} {
		_, err := parseSweep(t, fmt.Sprintf("sweep:\n  command: run\n  seeds: %d\n", seeds))
		if want == "" {
			assert.NoError(t, err, seeds)
			continue
		}
		assert.ErrorContains(t, err, want, seeds)
	}
}

// TestSweepAxisNumbers: a grid axis has numbers for charts when every
// value is one: numbers, durations (in seconds), constant distributions;
// a distribution that is not constant, or a string, leaves it none.
func TestSweepAxisNumbers(t *testing.T) {
	for _, tc := range []struct {
		axis    string
		numbers []float64
		unit    string
	}{
		{"reward.task: [0, 0.5]", []float64{0, 0.5}, ""},
		{"collective.spawn: [0, 2m]", []float64{0, 120}, "s"},
		{"task.coupling: [0, 0.9]", []float64{0, 0.9}, ""},
		{"task.work: [5m, exp(5m)]", nil, ""},
		{"policy.organization: [split, team]", nil, ""},
	} {
		t.Run(tc.axis, func(t *testing.T) {
			sc, err := parseSweep(t, "sweep:\n  command: run\n  grid:\n    "+tc.axis+"\n")
			require.NoError(t, err)
			ax := sc.Sweep.Grid[0]
			assert.Equal(t, tc.numbers, ax.Numbers)
			assert.Equal(t, tc.unit, ax.Unit)
		})
	}
}

const gridSweep = `reward:
  penalty: linear
  scale: 1h
variants:
  - name: a
  - name: b
    set: {collective.agents: 2}
sweep:
  command: train
  seeds: 2
  grid:
    reward.latency: [0, 1]
    task.coupling: [0, 0.5, 0.9]
  random:
    train.lr: uniform(0.02, 0.2)
  samples: 2
`

func TestSweepTrials(t *testing.T) {
	sc, err := parseSweep(t, gridSweep)
	require.NoError(t, err)
	trials, err := sc.Trials(10, "")
	require.NoError(t, err)
	require.Len(t, trials, 2*2*3*2*2, "variants × points × samples × seeds")

	// Order: variant, grid point (row-major), sample, seed.
	want := []string{}
	for _, v := range []string{"a", "b"} {
		for _, lat := range []string{"0", "1"} {
			for _, k := range []string{"0", "0.5", "0.9"} {
				for sample := range 2 {
					for seed := 10; seed < 12; seed++ {
						want = append(want, fmt.Sprintf("%s %s %s %d %d", v, lat, k, sample, seed))
					}
				}
			}
		}
	}
	ids := map[string]bool{}
	lrs := map[int]string{}
	for i, tr := range trials {
		assert.Equal(t, i, tr.Index)
		got := fmt.Sprintf("%s %s %s %d %d", tr.Variant.Name, tr.Params[0].Value, tr.Params[1].Value, tr.Sample, tr.Seed)
		assert.Equal(t, want[i], got, "trial %d", i)
		assert.Len(t, tr.ID, 16)
		assert.False(t, ids[tr.ID], "IDs are unique")
		ids[tr.ID] = true
		assert.Equal(t, "train.lr", tr.Params[2].Path)
		if lr, ok := lrs[tr.Sample]; ok {
			assert.Equal(t, lr, tr.Params[2].Value, "sample %d draws the same values at every point", tr.Sample)
		}
		lrs[tr.Sample] = tr.Params[2].Value
		assert.Equal(t, tr.Params[2].Value, fmt.Sprint(tr.Variant.Spec.Train.LR))
		// The values, then the variant's overrides.
		assert.Equal(t, tr.Point, []int{map[string]int{"0": 0, "1": 1}[tr.Params[0].Value], map[string]int{"0": 0, "0.5": 1, "0.9": 2}[tr.Params[1].Value]})
		assert.Equal(t, tr.Params[0].Value, fmt.Sprint(tr.Variant.Spec.Reward.Latency))
		assert.Equal(t, tr.Params[1].Value, tr.Variant.Spec.Task.Coupling.String())
		assert.Equal(t, map[string]int{"a": 4, "b": 2}[tr.Variant.Name], tr.Variant.Spec.Collective.Agents)
	}
	assert.NotEqual(t, lrs[0], lrs[1], "samples differ")
	assert.Equal(t, 0.0, sc.Base.Reward.Latency, "trials leave the base alone")

	// IDs are stable: the same on every machine and in every run.
	assert.Equal(t, scenarios.TrialID(trials[0].Variant.Name, trials[0].Seed, 0, true, trials[0].Params), trials[0].ID)
	again, err := sc.Trials(10, "")
	require.NoError(t, err)
	for i := range trials {
		assert.Equal(t, trials[i].ID, again[i].ID)
	}
	params := []scenarios.Param{{"reward.latency", "0.5"}, {"task.coupling", "0"}}
	id := scenarios.TrialID("default", 1, 0, false, params)
	assert.Equal(t, "9d64a1c437a773bd", id, "the ID of a trial never changes")
	assert.Equal(t, id, scenarios.TrialID("default", 1, 0, false, []scenarios.Param{params[1], params[0]}), "parameters are sorted")
	assert.NotEqual(t, id, scenarios.TrialID("default", 1, 0, false, []scenarios.Param{{"reward.latency", "0.6"}, {"task.coupling", "0"}}), "a value")
	assert.NotEqual(t, id, scenarios.TrialID("default", 2, 0, false, params), "the seed")
	assert.NotEqual(t, id, scenarios.TrialID("other", 1, 0, false, params), "the variant")
	assert.NotEqual(t, id, scenarios.TrialID("default", 1, 1, true, params), "the sample")

	// Another seed draws other random values.
	other, err := sc.Trials(11, "")
	require.NoError(t, err)
	assert.NotEqual(t, trials[0].Params[2], other[0].Params[2])

	// One variant.
	onlyB, err := sc.Trials(10, "b")
	require.NoError(t, err)
	require.Len(t, onlyB, 24)
	for i, tr := range onlyB {
		assert.Equal(t, trials[24+i].ID, tr.ID)
	}
	_, err = sc.Trials(10, "c")
	assert.ErrorContains(t, err, `no variant "c" (allowed: a, b)`)

	// A scenario cut to one variant has that variant's trials, with the
	// per-variant state that trials read (their overrides) kept in step.
	resolved, hash := string(sc.Resolved), sc.Hash
	require.NoError(t, sc.Only("b"))
	cut, err := sc.Trials(10, "")
	require.NoError(t, err)
	require.Len(t, cut, 24)
	for i, tr := range cut {
		assert.Equal(t, onlyB[i].ID, tr.ID)
		assert.Equal(t, onlyB[i].Variant.Spec, tr.Variant.Spec)
	}
	assert.Equal(t, resolved, string(sc.Resolved), "the whole scenario as loaded")
	assert.Equal(t, hash, sc.Hash)
	assert.ErrorContains(t, sc.Only("a"), `scenario `+sc.Name+` has no variant "a" (allowed: b)`, "a is gone")
}

// TestSweepTrialsWithoutRandomAxes: without random axes a trial's ID
// leaves the sample out, and the trials of each seed have specs of their
// own (changing one changes no other).
func TestSweepTrialsWithoutRandomAxes(t *testing.T) {
	const src = `task:
  shape: mixture
  components:
    - {weight: 1, shape: chain, length: 2, work: 1m}
    - {weight: 1, shape: chain, length: 3, work: 1m}
policy: {organization: split}
sweep:
  command: run
  seeds: 3
  grid:
    reward.task: [0, 1]
`
	sc, err := scenarios.Parse([]byte(src), "s.yaml", nil)
	require.NoError(t, err)
	trials, err := sc.Trials(5, "")
	require.NoError(t, err)
	require.Len(t, trials, 6)
	for _, tr := range trials {
		assert.Equal(t, scenarios.TrialID(tr.Variant.Name, tr.Seed, 0, false, tr.Params), tr.ID)
	}
	for i := range 3 {
		trials[i].Variant.Spec.Task.Components[0].Weight = float64(10 + i)
	}
	for i := range 3 {
		assert.Equal(t, float64(10+i), trials[i].Variant.Spec.Task.Components[0].Weight, "seed %d", i)
	}
	assert.Equal(t, 1.0, sc.Base.Task.Components[0].Weight, "the base")
}

// TestSweepResolvedSections: the resolved sweep writes the grid only
// with grid axes and random and samples only with random axes, and loads
// again.
func TestSweepResolvedSections(t *testing.T) {
	for _, tc := range []struct {
		name, sweep string
		has, hasNot []string
	}{
		{"grid", "grid:\n    reward.task: [0, 1]\n", []string{"grid:"}, []string{"random:", "samples:"}},
		{"random", "random:\n    reward.task: uniform(0, 1)\n  samples: 2\n", []string{"random:", "samples: 2"}, []string{"grid:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := parseSweep(t, "sweep:\n  command: run\n  "+tc.sweep)
			require.NoError(t, err)
			_, section, _ := strings.Cut(string(sc.Resolved), "\nsweep:")
			for _, s := range tc.has {
				assert.Contains(t, section, s)
			}
			for _, s := range tc.hasNot {
				assert.NotContains(t, section, s)
			}
			assertRoundTrip(t, sc)
		})
	}
}

func TestSweepRandomConversions(t *testing.T) {
	sc, err := parseSweep(t, `sweep:
  command: run
  random:
    collective.agents: uniform(1.6, 3.4)
    collective.spawn: uniform(1m, 2m)
    task.coupling: uniform(0, 1)
  samples: 20
`)
	require.NoError(t, err)
	trials, err := sc.Trials(1, "")
	require.NoError(t, err)
	require.Len(t, trials, 20)
	for _, tr := range trials {
		c := tr.Variant.Spec.Collective
		assert.Contains(t, []int{2, 3}, c.Agents, "integers are rounded")
		assert.True(t, c.Spawn >= sim.Minute && c.Spawn <= 2*sim.Minute, "durations in seconds: %v", c.Spawn)
		assert.Equal(t, c.Spawn.String(), tr.Params[1].Value)
		assert.False(t, strings.Contains(tr.Variant.Spec.Task.Coupling.String(), "("), "a constant distribution")
	}
}

// TestSweepRandomDrawOutOfRange: a random axis whose draws can leave the
// field's range is refused at the axis, with the file, line and field,
// whether the draw that leaves it is one of the scenario's seed (when the
// file loads) or of another seed (when a sweep with --seed makes its
// trials).
func TestSweepRandomDrawOutOfRange(t *testing.T) {
	sweep := func(samples int) string {
		return fmt.Sprintf("sweep:\n  command: run\n  random:\n    collective.check.accuracy: uniform(0.5, 1.5)\n  samples: %d\n", samples)
	}
	tests := []struct {
		name    string
		samples int
		seed    uint64 // of the trials; 0 for the load's own check
	}{
		{"at load", 20, 0},
		{"with another seed", 2, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Seed 0's two draws are in range; seed 5's are not.
			sc, err := parseSweep(t, sweep(tt.samples), "seed=0")
			if tt.seed != 0 {
				require.NoError(t, err, "the scenario's own draws are in range")
				_, err = sc.Trials(tt.seed, "")
			}
			var e *scenarios.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "s.yaml", e.Source)
			assert.Equal(t, 15, e.Line, "the line of the random axis")
			assert.Equal(t, "collective.check.accuracy", e.Path)
			assert.Contains(t, e.Msg, "is out of range [0, 1]")
			assert.Contains(t, e.Msg, "a draw of this random axis")
		})
	}
}

// TestSweepUnderANestedVariantSet: a variant's set of a mapping sets only
// the keys it names, so an axis of another field of its section is swept
// in that variant too; one of a key it names is refused, as its dotted
// form is.
func TestSweepUnderANestedVariantSet(t *testing.T) {
	const head = "name: s\ntask: {shape: fork-join, width: 3, stages: 1, work: 1m}\npolicy: {organization: team}\nsweep:\n  command: run\n  grid:\n    collective.agents: [2, 6]\nvariants:\n"
	sc, err := scenarios.Parse([]byte(head+"  - {name: a, set: {collective: {check: {cost: 0.5}}}}\n"), "s.yaml", nil)
	require.NoError(t, err)
	trials, err := sc.Trials(1, "")
	require.NoError(t, err)
	var agents []int
	for _, tr := range trials {
		agents = append(agents, tr.Variant.Spec.Collective.Agents)
		assert.Equal(t, 0.5, tr.Variant.Spec.Collective.Check.Cost)
	}
	assert.Equal(t, []int{2, 6}, agents)
	_, err = scenarios.Parse([]byte(head+"  - {name: a, set: {collective: {agents: 3}}}\n"), "s.yaml", nil)
	assert.ErrorContains(t, err, `s.yaml:7:5: sweep.grid: collective.agents: variant "a" sets collective.agents, which would replace every swept value`)
}

// TestCheckSeeds: seeds up to the largest, 2⁶⁴−1, are fine; one more would
// wrap around to 0, and a sweep's trials are refused with the field named.
func TestCheckSeeds(t *testing.T) {
	const top = ^uint64(0)
	for _, tc := range []struct {
		first uint64
		n     int
		ok    bool
	}{
		{0, 1, true}, {top, 1, true}, {top - 1, 2, true}, {top - 9, 10, true},
		{top, 2, false}, {top - 1, 3, false}, {top - 8, 10, false},
	} {
		err := scenarios.CheckSeeds(tc.first, tc.n)
		if tc.ok {
			assert.NoError(t, err, "%d seeds from %d", tc.n, tc.first)
		} else {
			assert.ErrorContains(t, err, fmt.Sprintf("%d seeds from %d pass the largest seed, %d, and would wrap around to 0: give a first seed (--seed) of at most %d", tc.n, tc.first, top, top-uint64(tc.n-1)))
		}
	}
	sc, err := scenarios.Load("pressure-sweep", []string{"sweep.seeds=3"})
	require.NoError(t, err)
	_, err = sc.Trials(top-2, "")
	assert.NoError(t, err)
	_, err = sc.Trials(top-1, "")
	assert.ErrorContains(t, err, "sweep.seeds: 3 seeds from")
}
