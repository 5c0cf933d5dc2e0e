// Package train trains a shared policy for every variant of a scenario
// and several seeds with RLCR: the jobs (a variant and a seed each) run on
// the one worker pool (internal/pool), and their results do not depend on
// how many workers. It owns the train directory's layouts: iterations.csv,
// summary.csv and the policies (WriteTables), the learning curves,
// profiles, final bars and scaling charts (LearningCurves), and resume.
//
// A train directory is claimed by train.json (OpenDir), and each job
// leaves a checkpoint in checkpoints/; Resume reads them, so that the same
// command run again after an interrupt or a kill continues every job
// where it stopped, with tables byte-identical to those of a training that
// never stopped.
package train
