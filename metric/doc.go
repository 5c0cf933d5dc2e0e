// Package metric is swarmsim's one table of metrics: for every metric
// column that a table of run, train, sweep or compare writes, its name,
// its axis label and terminal head, its unit, which way is better, and
// one sentence on how to read it.
//
// Writers take a column's unit (the unit column of summary.csv and
// compare.csv), its labels (charts, terminal tables) and its direction
// (compare's better column and probability of improvement) from here
// rather than from the column's name, so that a new metric is declared
// once. Families of columns, one per action, are declared by pattern
// (prob_<action>, actions_<action>) and matched only by that pattern. The
// main metrics (Main), those a reader judges a variant by, come first in
// compare's table, which leaves the others out unless asked.
//
// The package also owns the formulas of the coordination metrics of Kim
// et al. 2025 (paper.go: turns, message density, redundancy, error
// amplification, coordination overhead, efficiency, success gain), which
// the tables of episodes and of sweep trials both compute.
//
// The package imports nothing of the module: rundir, results, plots and
// everything above them may use it. docs/statistics.md explains the
// units and the directions.
package metric
