package main

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/scenarios"
)

// TestEveryColumnHasAMetric runs run, train, sweep (train and run
// trials, with their trial directories), compare and replay on small scenarios
// with every optional column (a shared server, tools, a handoff section;
// every metric a sweep can record), reads back every table they write
// (charts aside: their columns are a chart's axes) and checks that every
// metric column has an entry in the table of metrics, and that compare
// wrote each entry's unit and direction, in compare.csv and in every row
// of its table on the terminal (checkCompareTable). A new column without
// an entry fails here.
func TestEveryColumnHasAMetric(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command")
	}
	dir := t.TempDir()
	handoff := []string{"--set", "collective.handoff.miss=1", "--set", "collective.handoff.findings=1"}
	shared := []string{"--set", "collective.serving.replicas=1", "--set", "collective.serving.max_batch=1",
		"--set", "task.tool_calls=poisson(2)", "--set", "task.tool_latency=lognormal(mean=30s, cv=1)", "--set", "collective.tools.pool=1", "--set", "collective.token_budget=100000000"}
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, name := range []string{"run-a", "run-b"} {
		args := append([]string{"run", testScenario, "--episodes", "4", "--charts=false", "--out", out(name)}, handoff...)
		mustSimulate(t, append(args, shared...)...)
	}
	for _, name := range []string{"train-a", "train-b"} {
		mustSimulate(t, append([]string{"train", testScenario, "--seeds", "2", "--set", "train.iterations=3", "--set", "train.batch=2",
			"--set", "train.group=3", "--charts=false", "--out", out(name), "--set", "collective.handoff.duplicates=true"}, handoff...)...)
	}
	// A policy barely trained leaves agents waiting with nothing to come:
	// some of its episodes stall, which adds the stall's column.
	policies, err := filepath.Glob(filepath.Join(out("train-a"), "policies", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, policies)
	mustSimulate(t, "run", testScenario, "--episodes", "100", "--charts=false", "--policy", policies[0], "--out", out("run-policy"))
	for _, command := range []string{scenarios.SweepTrain, scenarios.SweepRun} {
		file := out(command + ".yaml")
		require.NoError(t, os.WriteFile(file, []byte(sweepWithEveryMetric(command)), 0o644))
		for _, name := range []string{"-a", "-b"} {
			mustSimulate(t, "sweep", file, "--trial-dirs", "--charts=false", "--out", out("sweep-"+command+name))
		}
	}
	mustSimulate(t, "replay", multiagentTraces, "--sessions", "1,2", "--charts=false", "--out", out("replay"))
	// compare's table on the terminal, every row of it, states each
	// metric's direction and its probability under the head that fits.
	printed := map[string]bool{}
	for _, kind := range []string{"run", "train", "sweep-train", "sweep-run"} {
		stdout := mustSimulate(t, "compare", out(kind+"-a"), out(kind+"-b"), "--charts=false", "--all", "--out", out("compare-"+kind))
		rows := checkCompareTable(t, stdout)
		assert.Len(t, rows, len(readCSV(t, out("compare-"+kind+"/compare.csv")))-1, "%s: --all prints every row", kind)
		for _, r := range rows {
			printed[r["metric"]] = true
		}
	}
	stdout := mustSimulate(t, "compare", out("run-a"), "--variants", "split,team", "--charts=false", "--all", "--out", out("compare-variants"))
	assert.Len(t, checkCompareTable(t, stdout), len(readCSV(t, out("compare-variants/compare.csv")))-1, "variants: --all prints every row")
	assert.True(t, printed["lr"] && printed["reward_mean"] && printed["finish_time"], "rows of every direction: %v", printed)

	tables := 0
	seen := map[string]bool{}
	err = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(path) != ".csv" || filepath.Base(filepath.Dir(path)) == "charts" {
			return err
		}
		tables++
		rel, _ := filepath.Rel(dir, path)
		recs := readCSV(t, path)
		for _, name := range metricColumns(t, rel, recs) {
			seen[name] = true
			if _, ok := metric.Lookup(name); !ok {
				t.Errorf("%s: column %s has no entry in the table of metrics (metric/table.go)", rel, name)
			}
		}
		if filepath.Base(path) == "compare.csv" {
			checkCompareColumns(t, rel, recs)
		}
		return nil
	})
	require.NoError(t, err)
	// Two runs and two trainings (episodes and summary, iterations and
	// summary), four sweeps (trials and summary, a table per trial) and
	// five comparisons.
	assert.Greater(t, tables, 4*2+4*2+5, "tables read")
	// And no entry is left over from a column that is gone.
	for _, m := range metric.All() {
		prefix, _, family := strings.Cut(m.Name, "<")
		written := seen[m.Name] || family && slices.ContainsFunc(slices.Collect(maps.Keys(seen)), func(s string) bool { return strings.HasPrefix(s, prefix) })
		assert.True(t, written, "%s has an entry in the table of metrics, and no table has the column", m.Name)
	}
}

// sweepWithEveryMetric is a sweep of tiny, with a handoff section, whose
// trials of command record every metric they can; a run sweep also names
// a reference, for the relative metrics and the scaling columns.
func sweepWithEveryMetric(command string) string {
	metrics := scenarios.SweepMetrics(command)
	reference := ""
	if command == scenarios.SweepRun {
		metrics = append(metrics, scenarios.RelativeMetrics()...)
		reference = "\n  reference: {task.coupling: 0}"
	}
	return fmt.Sprintf(`name: every-metric
seed: 3
episodes: 2
task: {shape: fork-join, width: 3, stages: 1, work: exp(5m), difficulty: 0.2, output_tokens: 400, coupling: 0.8, tool_calls: poisson(1), tool_latency: exp(30s)}
collective: {agents: 3, time_limit: 2h, handoff: {miss: 1, findings: 1}, tools: {pool: 1}}
policy: {organization: team}
train: {iterations: 2, batch: 2, group: 2}
sweep:
  command: %s
  seeds: 2
  grid:
    task.coupling: [0, 0.8]%s
  metrics: [%s]
`, command, reference, strings.Join(metrics, ", "))
}

// keyColumns name what a row is of, not a metric.
var keyColumns = []string{"variant", "episode", "seed", "iteration", "trial", "task.coupling", "load", "run", "session"}

// metricColumns returns the names of the metrics that the table rel
// (relative to the test's directory) holds: the values of the metric
// column of a tidy table (summaries of trainings and sweeps,
// comparisons), else the columns that are not keys. A run's summary.csv
// has a mean and interval per metric (<metric>_mean, _lo, _hi), and
// success_lo and success_hi are success_rate's interval.
func metricColumns(t *testing.T, rel string, recs [][]string) []string {
	require.NotEmpty(t, recs, rel)
	header := recs[0]
	if c := slices.Index(header, "metric"); c >= 0 {
		var names []string
		for _, r := range recs[1:] {
			names = append(names, r[c])
		}
		require.NotEmpty(t, names, "%s has no rows", rel)
		return names
	}
	runSummary := strings.HasPrefix(rel, "run-") && filepath.Base(rel) == "summary.csv"
	var names []string
	for _, h := range header {
		switch {
		case slices.Contains(keyColumns, h):
		case runSummary && h == "n":
		case runSummary && (h == "success_lo" || h == "success_hi"):
			names = append(names, "success_rate")
		case runSummary && strings.HasSuffix(h, "_mean"), runSummary && strings.HasSuffix(h, "_lo"), runSummary && strings.HasSuffix(h, "_hi"):
			names = append(names, h[:strings.LastIndex(h, "_")])
		default:
			names = append(names, h)
		}
	}
	return names
}

// checkCompareColumns checks that compare.csv wrote each metric's unit
// and direction from the table.
func checkCompareColumns(t *testing.T, rel string, recs [][]string) {
	c, u, b := slices.Index(recs[0], "metric"), slices.Index(recs[0], "unit"), slices.Index(recs[0], "better")
	require.True(t, c >= 0 && u >= 0 && b >= 0, "%s: %v", rel, recs[0])
	for _, r := range recs[1:] {
		m, ok := metric.Lookup(r[c])
		if !ok {
			continue // reported above
		}
		assert.Equal(t, m.Unit, r[u], "%s: unit of %s", rel, r[c])
		assert.Equal(t, string(m.Better), r[b], "%s: better of %s", rel, r[c])
	}
}
