package replay

import (
	"fmt"
	"maps"
	"slices"

	"github.com/swarmsim/swarmsim/models/serving"
)

// Server is one variant of a scenario as the replay sees it: its
// self-hosted deployment (collective.serving) and hosted API
// (collective.api).
type Server struct {
	Name    string
	Serving serving.Deployment
	API     serving.API
}

// Deploy returns the deployment in which each model's calls go to the
// variant that variant[model] names, and the calls of models whose
// variant is not among servers to the first. When the first variant has replicas they take
// every call, and every variant must have the same ones (a replay has one
// deployment); otherwise each variant used is a hosted API of its own. A
// variant no model uses, other than the first, is an error: its settings
// would do nothing.
func Deploy(servers []Server, variant map[string]string) (Deployment, error) {
	if len(servers) == 0 {
		return Deployment{}, fmt.Errorf("replay: no variant")
	}
	index := map[string]int{}
	for i, s := range servers {
		index[s.Name] = i
	}
	used := map[int]bool{0: true}
	for _, m := range slices.Sorted(maps.Keys(variant)) {
		if i, ok := index[variant[m]]; ok {
			used[i] = true
		}
	}
	for i, s := range servers {
		if !used[i] {
			return Deployment{}, fmt.Errorf("replay: variant %q is named after no model of the traces (variants serve the model they are named after; the first serves the others): its settings would do nothing", s.Name)
		}
	}
	first := servers[0]
	if !first.Serving.IsZero() {
		for i := range servers {
			if servers[i].Serving != first.Serving && used[i] {
				return Deployment{}, fmt.Errorf("replay: variants %q and %q have different collective.serving: a replay has one deployment of replicas", first.Name, servers[i].Name)
			}
		}
		return Deployment{Serving: first.Serving}, nil
	}
	d := Deployment{Route: map[string]int{}}
	api := map[int]int{} // variant to API
	for i, s := range servers {
		if !used[i] {
			continue
		}
		if !s.Serving.IsZero() {
			return Deployment{}, fmt.Errorf("replay: variant %q has collective.serving.replicas but the first variant %q has none: a replay has one deployment of replicas", s.Name, first.Name)
		}
		if s.API == (serving.API{}) {
			return Deployment{}, fmt.Errorf("replay: variant %q has neither collective.serving.replicas nor collective.api: nothing serves its model calls", s.Name)
		}
		api[i] = len(d.APIs)
		d.APIs = append(d.APIs, s.API)
	}
	for m, v := range variant {
		if i, ok := index[v]; ok {
			d.Route[m] = api[i]
		}
	}
	return d, nil
}
