// Package experiment runs what a scenario file describes and writes what
// it finds: the layer between the file format (package scenarios) and the
// command line (cmd/simulate), which keeps only flags, help, printing and
// progress.
//
// # Evaluation
//
// Evaluate runs every variant of a scenario for its episodes on the
// worker pool (internal/pool) and streams one Row per episode, in order;
// Summarize turns rows into per-variant Summaries with confidence
// intervals. Episode k of every variant uses the same task draw and the
// same random streams (common random numbers), drawn by DrawEpisode, the
// one owner of those streams, so that variants differ only by what they
// change and 'simulate trace' and 'simulate graph' show the episode a run
// ran.
//
// # Tables and charts
//
// EpisodesCSV and SummaryCSV are the layouts of a run's episodes.csv and
// summary.csv (WriteTables writes both). RunCharts returns the charts of
// a run as data (Chart): comparison bars of the summaries, and a timeline
// of episode 0 of each variant from the trace evaluation kept
// (EvalOptions.Trace). CompareCharts returns those of 'simulate compare':
// each variant's difference B − A per charted metric. A ChartWriter draws
// them through package plots, which only renders, and keeps charts.json,
// the index 'simulate plot' redraws from.
//
// # Resume
//
// Units is how work resumes: one file per finished or saved unit of work,
// by key, written atomically. Training keeps its checkpoints in them and
// sweeps their trial records, so that both continue after an interrupt or
// a kill from what they find, with the same tables as work that never
// stopped.
//
// Multi-seed training is package experiment/train; sweeps (trials,
// shards, merge, their charts) are package experiment/sweep.
package experiment
