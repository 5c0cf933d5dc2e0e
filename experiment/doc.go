// Package experiment runs what a scenario file describes and writes what
// it finds: the layer between the file format (package scenarios) and the
// command line (cmd/simulate), which keeps only flags, help, printing and
// progress.
//
// # Evaluation
//
// Evaluate runs every variant of a scenario for its episodes and streams
// one Row per episode; Summarize turns rows into per-variant Summaries
// with confidence intervals. Episode k of every variant uses the same task
// draw and the same random streams (common random numbers, DrawEpisode),
// so that variants differ only by what they change.
//
// # Tables and charts
//
// EpisodesCSV and SummaryCSV are the layouts of a run's episodes.csv and
// summary.csv (WriteTables writes both). RunCharts builds the charts of a
// run (comparison bars and a timeline of episode 0 of each variant) from
// its summaries; a ChartWriter draws charts through package plots, which
// only renders, and keeps charts.json, the index 'simulate plot' redraws
// from.
//
// Multi-seed training with resume is package experiment/train; sweeps
// (trials, worker pool, resume, shards, merge) are package
// experiment/sweep.
package experiment
