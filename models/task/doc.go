// Package task holds task-decomposition graphs: the DAGs of subtasks an
// agent collective works through, with the generators that draw them and
// the readers that import real workflows.
//
// A Graph is immutable and stored in compressed sparse row form, so that
// graphs of 100,000 nodes cost a few flat slices. Each Node carries the
// attributes the collective model needs: Work (virtual time at unit speed),
// Difficulty (turned into a success chance per attempt), OutputTokens (the
// size of the result sent to consumers run by other agents), Coupling (how
// much the parts must be reconciled at a join), Loop (a ReAct-style
// repeat-until-acceptable node) and Join (JoinAll, or JoinAny for
// alternatives of which one acceptable result suffices).
//
// Edges carry tokens: by default the producer's OutputTokens, or a
// per-edge value (see Edge). Graph.CriticalPath gives the latency lower
// bound that agent-collective papers score (longest path by Work);
// Graph.TotalWork the time of one agent working alone; Graph.Width the
// largest level (see Graph.Level), a cheap measure of available
// parallelism.
//
// A Family describes how to draw graphs (chain, fork-join, tree, layered
// random DAG, needle search, mixtures, or a file) with node attributes from
// sim.Dist distributions; it is meant to be filled from a scenario file.
// A Family's Kind names a preset with the structure of one of the four
// benchmarks of Kim et al. 2025 (decomposable, navigation, sequential,
// tool-heavy; see Kinds and KindPreset), whose fields explicit ones
// override; a drawn Graph says its kind (Graph.Kind).
// ReadDOT, ReadWfFormat and Load import graphs from Graphviz DOT and
// WfCommons WfFormat JSON; WriteDOT exports them for Graphviz.
//
// Orders never depend on map iteration: nodes keep their input order,
// adjacency lists are sorted by ID, Topo takes the smallest ready ID first,
// and a Family's draws depend only on the *rand.Rand passed in.
//
// See the package examples for a fork-join family and its critical path.
package task
