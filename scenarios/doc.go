// Package scenarios is the scenario file format: it parses, checks and
// resolves scenario files (what to simulate: a task family, a collective,
// a policy; the variants to compare on the same task draws; how many
// episodes from which seed) and lists their variants and sweep trials.
// It runs nothing: package experiment evaluates, trains and sweeps them.
//
// # Format
//
// A scenario is one YAML document:
//
//	name: organizations            # letters, digits, '.', '_', '-'; default: the file's name
//	description: One-line summary shown by `simulate list`.
//	seed: 1                        # master seed (default 0)
//	episodes: 200                  # per variant (default 100)
//	task:                          # a task.Family: shape and its parameters
//	  shape: needle
//	  tries: 4
//	  work: lognormal(mean=8m, cv=0.2)
//	  difficulty: 0.8
//	collective:                    # a collective.Config; omitted fields keep collective.Defaults()
//	  agents: 4
//	  time_limit: 3h
//	policy:
//	  organization: sequential     # sequential, independent, split, team; single, centralized, decentralized, hybrid
//	variants:                      # optional; the base with overrides
//	  - name: sequential
//	  - name: independent
//	    set: {policy.organization: independent, collective.select.accuracy: 0.95}
//
// Durations are written like "90s", "12m" or "1h30m"; distributions as
// sim.ParseDist reads them ("exp(5m)", "uniform(0.2, 0.6)", a constant).
// Loading is strict: an unknown key, a value of the wrong type, a value out
// of range and an unknown name (shape, organization, topology, mode) are
// errors of type *Error, which name the file, line and column (none for
// a field the file leaves out, such as a missing policy section), the field
// path ("collective.check.accuracy") and what is allowed. A problem that an
// override introduced is reported at the variant's `set:` entry, or against
// the --set flag. JSONSchema describes the format for editors.
//
// # Overrides
//
// A field path names a field by its keys separated by dots, with list
// entries selected by index: "collective.agents",
// "task.components[0].weight". A variant's `set:` maps paths under task,
// collective, policy, reward and train to values; Load and Parse also take
// command-line overrides "PATH=VALUE" (such as "episodes=50" or
// "task.work=exp(5m)"), applied to the base before the variants. A mapping
// value changes only the keys it names (but a --set of sweep.grid or
// sweep.random, whose keys are axes, replaces them all); a list replaces
// the whole list. Two overrides of one field (a path, and a mapping around
// it) are an error: the later would drop the earlier's value. Inside a flow mapping
// ({...}) a path with an index must be quoted: {"task.components[0].weight": 5}.
//
// Scenario.Resolved is the canonical YAML of the resolved scenario (every
// default filled in, overrides applied): a scenario file in its own right
// that parses to an equal scenario. Runs record it, with its Hash, in their
// manifest.
//
// # Library
//
// Ready scenarios are embedded in the binary (List and Names give them
// all): studies such as organizations, coupled-work, divisible-work,
// contention, latency-pressure, layered-peer, pressure-sweep and
// rlcr-peer; the experiments of docs/experiments.md, named exp-*; and
// tiny, the smallest.
// Load takes either a library name or a file path.
//
// # Sweeps
//
// An optional `sweep:` section describes trials of the scenario: a command
// (train, run or replay), seeds per point, grid axes (field paths under
// task, collective, policy, reward, train and replay, each with a list of
// values),
// random axes (a path and a distribution, drawn `samples` times per grid
// point) and the metrics to record:
//
//	sweep:
//	  command: train
//	  seeds: 2
//	  grid: {reward.latency: [0, 0.5, 1], task.coupling: [0, 0.9]}
//	  random: {train.lr: uniform(0.02, 0.2)}
//	  samples: 3
//	  metrics: [reward_mean, parallelism_mean]
//
// Values go through the same decoder as overrides and are checked with
// positions when the file loads. Scenario.Trials enumerates the trials
// with stable IDs; package experiment/sweep runs them.
package scenarios
