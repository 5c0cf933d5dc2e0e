package main

import (
	"path/filepath"
	"testing"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestDefaultOut checks the default directories of run, train and sweep:
// a scenario whose name ends with the command's word does not repeat it
// (out/pressure-sweep-sweep-seed1, issue 26, item 7), and no two commands
// default to one directory, whatever the names.
func TestDefaultOut(t *testing.T) {
	for _, tc := range []struct {
		name, variant, suffix, want string
	}{
		{"tiny", "", "", "tiny-seed1"},
		{"tiny", "team", "", "tiny-team-seed1"},
		{"tiny", "team", "-train", "tiny-team-train-seed1"},
		{"tiny", "a b", "-sweep", "tiny-a_b-sweep-seed1"},
		{"lp", "x-train", "", "lp-x-train-run-seed1"},
		{"lp", "train", "-train", "lp-train-train-seed1"}, // not lp's own out/lp-train-seed1
		{"pressure-sweep", "v", "-sweep", "pressure-sweep-v-sweep-seed1"},
		{"tiny", "", "-train", "tiny-train-seed1"},
		{"tiny", "", "-sweep", "tiny-sweep-seed1"},
		{"pressure-sweep", "", "-sweep", "pressure-sweep-seed1"},
		{"pressure-sweep", "", "-train", "pressure-sweep-train-seed1"},
		{"pressure-sweep", "", "", "pressure-sweep-run-seed1"},
		{"lp-train", "", "-train", "lp-train-seed1"},
		{"lp-train", "", "", "lp-train-run-seed1"},
		{"lp-run", "", "", "lp-run-seed1"},
	} {
		got := defaultOut(&scenarios.Scenario{Name: tc.name}, tc.variant, tc.suffix, 1)
		if want := filepath.Join("out", tc.want); got != want {
			t.Errorf("defaultOut(%s, %q, %q) = %s, want %s", tc.name, tc.variant, tc.suffix, got, want)
		}
	}
	// Two commands never default to one directory, for any names, even
	// names built from each other's suffixes. (One command may: train of
	// x and of x-train both write out/x-train-seed1, and a training's
	// identity file refuses the other scenario.)
	names := []string{"x", "x-run", "x-train", "x-sweep", "x-sweep-train", "x-train-sweep", "x-run-train", "x-sweep-run"}
	seen := map[string]string{} // directory: the command that defaults to it
	for _, n := range names {
		for _, variant := range []string{"", "run", "train", "sweep", "y-train"} {
			for _, suffix := range []string{"", "-train", "-sweep"} {
				out := defaultOut(&scenarios.Scenario{Name: n}, variant, suffix, 1)
				if prev, ok := seen[out]; ok && prev != suffix {
					t.Errorf("commands %q and %q both default to %s (name %s, variant %q)", prev, suffix, out, n, variant)
				}
				seen[out] = suffix
			}
		}
	}
}
