package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVariantFlag: run and train of one --variant write what a run or
// training of every variant writes for that variant, field for field (its
// episodes or iterations do not depend on the others), and say in the
// manifest which variant ran, beside the whole scenario as resolved.
func TestVariantFlag(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		variant string
		tables  []string // CSV tables with a row per variant (and more)
		files   []string // files of the variant alone
	}{
		{"run", []string{"run", testScenario, "--episodes", "6"}, "team",
			[]string{"episodes.csv", "summary.csv"}, nil},
		{"train", []string{"train", "latency-pressure", "--seeds", "1", "--set", "train.iterations=4", "--set", "train.batch=2", "--set", "train.group=2"}, "high",
			[]string{"iterations.csv", "summary.csv"}, []string{"policies/high-seed1.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			all, one := filepath.Join(root, "all"), filepath.Join(root, "one")
			mustSimulate(t, append(tc.args, "--charts=false", "--out", all)...)
			mustSimulate(t, append(tc.args, "--charts=false", "--out", one, "--variant", tc.variant)...)
			for _, name := range tc.tables {
				whole := readCSV(t, filepath.Join(all, name))
				want := [][]string{whole[0]}
				for _, r := range whole[1:] {
					if r[0] == tc.variant {
						want = append(want, r)
					}
				}
				require.Greater(t, len(want), 1, "%s has rows of %s", name, tc.variant)
				require.Less(t, len(want), len(whole), "%s has rows of other variants", name)
				assert.Equal(t, want, readCSV(t, filepath.Join(one, name)), name)
			}
			for _, name := range tc.files {
				want, err := os.ReadFile(filepath.Join(all, name))
				require.NoError(t, err)
				got, err := os.ReadFile(filepath.Join(one, name))
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got), name)
			}
			mAll, mOne := readManifest(t, all), readManifest(t, one)
			assert.Equal(t, []string{tc.variant}, mOne.Variants)
			assert.Greater(t, len(mAll.Variants), 1)
			assert.Equal(t, mAll.Resolved, mOne.Resolved, "the whole scenario, as resolved")
		})
	}

	// The scenario's figures are drawn from all its variants.
	for _, cmd := range []string{"run", "train", "sweep"} {
		_, stderr, code := simulate(t, cmd, testScenario, "--variant", "team", "--figures", t.TempDir())
		assert.Equal(t, exitUsage, code, cmd)
		assert.Contains(t, stderr, "copies the scenario's figures, drawn from all its variants, and --variant team runs one: give one of them", cmd)
	}

	// A --set that a variant overrides with another value is warned
	// about where other variants run too, not in a run of a variant it
	// applies to, and refused in a run of that variant alone, where it
	// changes nothing.
	const warning = "simulate run: warning: --set policy.organization=centralized applies only to the variants that do not set policy.organization to another value themselves: not to team"
	for _, tc := range []struct {
		variant string
		code    int
		want    string // in stderr; "": no warning
	}{
		{"", exitOK, warning},
		{"split", exitOK, ""},
		{"team", exitFail, "simulate run: --variant team: --set policy.organization=centralized: policy.organization: changes nothing: variant team sets policy.organization itself, to another value"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"run", testScenario, "--episodes", "1", "--charts=false", "--set", "policy.organization=centralized", "--out", out}
		if tc.variant != "" {
			args = append(args, "--variant", tc.variant)
		}
		_, stderr, code := simulate(t, args...)
		require.Equal(t, tc.code, code, stderr)
		if tc.want == "" {
			assert.NotContains(t, stderr, "warning", tc.variant)
		} else {
			assert.Contains(t, stderr, tc.want, tc.variant)
		}
		if tc.code != exitOK {
			assert.NoDirExists(t, out)
		}
	}

	// A variant the scenario does not have: the variants it has, a
	// suggestion, and nothing written.
	for _, tc := range []struct{ cmd, scenario, want string }{
		{"run", testScenario, `scenario tiny has no variant "tem" (allowed: split, team); did you mean "team"?`},
		{"train", testScenario, `scenario tiny has no variant "tem" (allowed: split, team); did you mean "team"?`},
		{"trace", testScenario, `scenario tiny has no variant "tem" (allowed: split, team); did you mean "team"?`},
		{"sweep", sweepScenario, `scenario test-sweep has no variant "tem" (allowed: default)`},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := []string{tc.cmd, tc.scenario, "--variant", "tem", "--out", out}
		if tc.cmd == "trace" {
			args[len(args)-1] = filepath.Join(out, "trace.json")
		}
		_, stderr, code := simulate(t, args...)
		assert.Equal(t, exitFail, code, tc.cmd)
		assert.Contains(t, stderr, "simulate "+tc.cmd+": --variant tem: "+tc.want)
		assert.NoDirExists(t, out, tc.cmd)
	}
}
