// Package results reads result tables back from complete directories
// (package rundir) and turns them into the figures a researcher judges
// runs by: the per-seed values of a training (each seed's mean over its
// last tenth of iterations), their aggregates across seeds
// (summary.csv: mean, median and IQM with bootstrap intervals, package
// stats), and comparisons of two directories of one scenario, or of two
// variants of one run (compare.csv: differences with paired or stratified
// bootstrap intervals and the probability of improvement).
//
// It knows tables, not how they were made: the command line calls it,
// and docs/statistics.md explains the statistics.
package results
