package train

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/swarmsim/swarmsim/scenarios"
)

// maxNamedSettings is the most settings a legend entry names; variants
// that differ in more are named as they are.
const maxNamedSettings = 2

// Varied returns the settings (dotted paths, such as reward.latency) in
// which the variants' resolved configurations differ, sorted, with each
// variant's values of them: what the variants vary. The policy section
// is left out: training does not read it.
func Varied(variants []*scenarios.Variant) (paths []string, values map[*scenarios.Variant][]string) {
	flat := make([]map[string]string, len(variants))
	for i, v := range variants {
		spec := v.Spec
		spec.Policy = scenarios.PolicySpec{}
		b, err := json.Marshal(spec)
		if err != nil {
			return nil, nil // a spec is plain data: this does not happen
		}
		var tree any
		if err := json.Unmarshal(b, &tree); err != nil {
			return nil, nil
		}
		flat[i] = map[string]string{}
		flatten(flat[i], "", tree)
	}
	keys := map[string]bool{}
	for _, f := range flat {
		for k := range f {
			keys[k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		for _, f := range flat[1:] {
			if f[k] != flat[0][k] {
				paths = append(paths, k)
				break
			}
		}
	}
	values = map[*scenarios.Variant][]string{}
	for i, v := range variants {
		for _, p := range paths {
			values[v] = append(values[v], flat[i][p])
		}
	}
	return paths, values
}

// flatten writes the leaves of tree (decoded JSON) into out under dotted
// paths from prefix; a list is one leaf, as JSON.
func flatten(out map[string]string, prefix string, tree any) {
	if m, ok := tree.(map[string]any); ok {
		for k, v := range m {
			flatten(out, strings.TrimPrefix(prefix+"."+k, "."), v)
		}
		return
	}
	b, _ := json.Marshal(tree) // decoded JSON marshals
	out[prefix] = strings.Trim(string(b), `"`)
}

// legendNames returns the name of each variant's curve: the variant's
// name with the values of what the variants vary ("low: reward.latency
// 0.25"), less those that do nothing under the variant's settings
// (scenarios.Inert: exp-gae's λ beside the flat-collective advantage), or
// the name alone where they vary more than an entry can say: a note above
// the chart naming the settings left no room for the statistic's (it was
// clipped, and the chart left out).
func legendNames(variants []*scenarios.Variant) map[*scenarios.Variant]string {
	names := map[*scenarios.Variant]string{}
	paths, values := Varied(variants)
	for _, v := range variants {
		names[v] = v.Name
	}
	switch {
	case len(variants) < 2 || len(paths) == 0:
		return names
	case len(paths) > maxNamedSettings:
		return names
	}
	named := map[*scenarios.Variant]string{}
	for _, short := range [][]string{paths, shortPaths(paths)} {
		long := false
		for _, v := range variants {
			var parts []string
			for i, p := range short {
				if scenarios.Inert(&v.Spec, paths[i]) == "" {
					parts = append(parts, fmt.Sprintf("%s %s", p, values[v][i]))
				}
			}
			named[v] = v.Name
			if len(parts) > 0 {
				named[v] += ": " + strings.Join(parts, ", ")
			}
			long = long || len(named[v]) > maxEntry
		}
		if !long {
			return named
		}
	}
	return names
}

// maxEntry bounds, in bytes, a legend entry of a column-wide chart:
// longer ones do not fit, and the chart would be left out. An entry names
// the settings by the last part of their paths where the full ones are
// too long, and by the variant's name alone where those are too.
const maxEntry = 48

// shortPaths returns each path's last part ("max_batch" for
// collective.serving.max_batch), or the whole path where two share their
// last part.
func shortPaths(paths []string) []string {
	last := func(p string) string { return p[strings.LastIndexByte(p, '.')+1:] }
	seen := map[string]int{}
	for _, p := range paths {
		seen[last(p)]++
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if seen[last(p)] == 1 {
			out[i] = last(p)
		}
	}
	return out
}
