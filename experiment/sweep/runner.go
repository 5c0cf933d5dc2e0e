package sweep

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/swarmsim/swarmsim/results"

	"github.com/swarmsim/swarmsim/internal/pool"
	"github.com/swarmsim/swarmsim/scenarios"
)

// Status says which trials of a shard are left to run.
type Status struct {
	// Shard lists the trials of the shard, by index in the plan.
	Shard []int
	// Pending lists those without a valid record, to run.
	Pending []int
	// Invalid lists trial files that could not be used: their trials are
	// run again.
	Invalid []Invalid
}

// Done returns the number of the shard's trials already done.
func (s *Status) Done() int { return len(s.Shard) - len(s.Pending) }

// Check reads the records in dir and returns which trials of shard are
// still to run.
func Check(dir string, plan *results.Plan, shard Shard) (*Status, error) {
	recs, bad, err := ReadRecords(dir, plan)
	if err != nil {
		return nil, err
	}
	st := &Status{Invalid: bad}
	for j, t := range plan.Trials {
		if !shard.Owns(j) {
			continue
		}
		st.Shard = append(st.Shard, j)
		if _, ok := recs[t.ID]; !ok {
			st.Pending = append(st.Pending, j)
		}
	}
	return st, nil
}

// Options adjust Execute.
type Options struct {
	// Workers is the number of trials run at once; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Workers int
	// Output, if not nil, is called with each finished trial before its
	// record is written, to write the trial's own files (into
	// TrialDir(dir, t.ID)); an error stops the sweep. It may be called
	// from several goroutines at once.
	Output func(t *scenarios.Trial, o *Outcome) error
	// Finished, if not nil, is called after each trial's record is
	// written, from the goroutine that ran it.
	Finished func(t *scenarios.Trial)
	// MaxEvents bounds the events of each episode of every trial
	// (collective.Options.MaxEvents); 0 means the default. A bound only
	// stops an episode with an error, so a trial's record never depends
	// on it and a sweep stopped by it resumes under a higher one.
	MaxEvents uint64
}

// Work is a sweep to run: the directory its records go to, its plan, the
// scenario, and the trials (those of the plan, in order).
type Work struct {
	Dir      string
	Plan     *results.Plan
	Scenario *scenarios.Scenario
	Trials   []scenarios.Trial
}

// Execute runs the trials of w listed in pending (indices into w.Trials)
// on a pool of workers and writes each one's record into w.Dir as soon as
// it is done. It stops at the first failure, or when ctx is done; the
// records written so far stay, so that running the rest later completes
// the sweep.
func Execute(ctx context.Context, w *Work, pending []int, opt Options) error {
	plan, trials := w.Plan, w.Trials
	if len(trials) != len(plan.Trials) {
		return fmt.Errorf("sweep: %d trials for a plan of %d", len(trials), len(plan.Trials))
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// The pool reports the failure of the earliest trial, not the
	// cancellations it caused in others.
	return pool.Run(ctx, len(pending), workers, func(ctx context.Context, _, i int) error {
		j := pending[i]
		t := &trials[j]
		if t.ID != plan.Trials[j].ID {
			return fmt.Errorf("sweep: trial %d is %s in the plan but %s here", j, plan.Trials[j].ID, t.ID)
		}
		if err := runOne(ctx, w, t, opt); err != nil {
			if !errors.Is(err, context.Canceled) {
				err = fmt.Errorf("trial %s (%s): %w", t.ID, plan.Describe(j), err)
			}
			return err
		}
		if opt.Finished != nil {
			opt.Finished(t)
		}
		return nil
	})
}

// runOne runs trial t of w and writes its record.
func runOne(ctx context.Context, w *Work, t *scenarios.Trial, opt Options) error {
	o, err := RunTrial(ctx, w.Scenario, t, opt.MaxEvents)
	if err != nil {
		return err
	}
	if opt.Output != nil {
		if err := opt.Output(t, o); err != nil {
			return err
		}
	}
	return writeRecord(w.Dir, newRecord(w.Plan, t.Index, o.Metrics))
}
