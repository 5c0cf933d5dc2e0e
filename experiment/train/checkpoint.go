package train

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// Training resumes. A train directory is claimed by train.json, which names
// what is trained (the resolved scenario's hash without its figures list,
// the first seed, the number of seeds: everything the numbers depend on;
// not the event bound, which only stops an episode with an error, so that
// a training it stopped resumes under a higher one, nor the figures list,
// checked when the training is done, so that a name corrected there
// finishes the training without running it again);
// each job (variant and seed) leaves a checkpoint in checkpoints/ after an
// iteration at most every checkpointEvery, and after its last (held until
// checkpointEvery after the one before, and dropped if the run completes
// by then: see Checkpoints), written atomically: the learner's state
// (rlcr.Checkpoint)
// and the rows so far. The same command, run again after an interrupt or a
// kill, finds the checkpoints and continues each job where it stopped, and
// its tables are byte-identical to those of a run that was never stopped,
// since an iteration's random draws depend only on the seed and its index.

// trainIdentity is the content of train.json.
type trainIdentity struct {
	Scenario string `json:"scenario"`
	Hash     string `json:"hash"`
	// Inputs is the digest of the files the training reads
	// (scenarios.Scenario.InputDigest), absent where it reads none.
	Inputs string `json:"inputs,omitempty"`
	Seed   uint64 `json:"seed"`
	Seeds  int    `json:"seeds"`
	// Variant is the one variant trained (--variant); "" for every one.
	Variant string `json:"variant,omitempty"`
}

// String describes the training for the message that refuses another's
// directory.
func (id trainIdentity) String() string {
	s := fmt.Sprintf("scenario %s (hash %s, seeds %d from %d", id.Scenario, rundir.ShortHash(id.Hash, ""), id.Seeds, id.Seed)
	if id.Variant != "" {
		s += ", variant " + id.Variant + " only"
	}
	return s + ")"
}

const (
	// IdentityFile names the training a train directory holds.
	IdentityFile = "train.json"
	// CheckpointDir is the subdirectory of a train directory that holds
	// the checkpoints.
	CheckpointDir = "checkpoints"
	// checkpointEvery is the least time from a job's start to its first
	// checkpoint and between two; its last, if it comes sooner, is held
	// until then (and dropped if the run completes first): what a kill
	// can lose of each job, with the iteration in progress.
	checkpointEvery = 250 * time.Millisecond
)

// trainCheckpoint is one job's checkpoint file. gob keeps every float64
// exactly, NaN included (a PPO-less iteration's value_ev).
type trainCheckpoint struct {
	Learner rlcr.Checkpoint
	Rows    []rlcr.Iteration
}

// checkpoints are the checkpoints in dir, one per job: the units a
// training resumes from.
func checkpoints(dir *rundir.Dir) experiment.Units {
	return experiment.Units{Dir: dir.Path(), Sub: CheckpointDir, Ext: ".gob"}
}

// checkpointKey names job j's checkpoint.
func checkpointKey(j *Job) string {
	return fmt.Sprintf("%s-seed%d", experiment.FileName(j.Variant.Name), j.Seed)
}

// OpenDir opens out for training sc for seeds seeds from seed, with
// variant the one variant sc was cut to (Scenario.Only) or "": a new
// directory, or one that holds checkpoints of the same training, which
// then resumes (see Resume). A directory that holds a complete result is
// refused unless force is set; force also discards checkpoints. The
// complete training that force replaces stays whole, set aside, until the
// new one commits: Abort puts it back (and discards the new training's
// checkpoints, which only a forced rerun, starting over, would meet).
func OpenDir(out string, sc *scenarios.Scenario, seed uint64, seeds int, variant string, force bool) (*rundir.Dir, error) {
	specs := make([]*scenarios.Spec, len(sc.Variants))
	for i := range sc.Variants {
		specs[i] = &sc.Variants[i].Spec
	}
	inputs, err := sc.InputDigest(specs...)
	if err != nil {
		return nil, err
	}
	id := trainIdentity{Scenario: sc.Name, Hash: sc.WorkHash, Inputs: inputs, Seed: seed, Seeds: seeds, Variant: variant}
	if err := rundir.CheckDir(out); err != nil {
		return nil, err
	}
	// A result that a killed forced rerun set aside comes back first,
	// unless that rerun's training resumes here (its commit removes it).
	if force || !isFile(filepath.Join(out, IdentityFile)) {
		if _, err := rundir.Recover(out); err != nil {
			return nil, err
		}
	}
	// A complete training is overwritten only with force; a complete
	// result of another kind never is, which the claim below says.
	if _, err := os.Stat(filepath.Join(out, rundir.ManifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	} else if err == nil && !force && isFile(filepath.Join(out, IdentityFile)) {
		return nil, fmt.Errorf("%s holds a complete run (%s); use --force to overwrite it, or --out to choose another directory", out, rundir.ManifestName)
	}
	data, err := json.MarshalIndent(id, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	c := &rundir.Claim{
		File: IdentityFile,
		Data: data,
		Same: func(old []byte) error {
			var prev trainIdentity
			if err := json.Unmarshal(old, &prev); err != nil {
				return fmt.Errorf("an unreadable %s (%w)", IdentityFile, err)
			}
			if prev == id {
				return nil
			}
			// The same training but for the files it reads?
			same := prev
			same.Inputs = id.Inputs
			if same == id {
				return fmt.Errorf("the training of %s before a file it reads (a graph of task.path, a policy.file) changed", prev)
			}
			return fmt.Errorf("the training of %s, not this one, of %s", prev, id)
		},
		Clear: []string{CheckpointDir},
		Fresh: "--force",
		Sole:  true,
	}
	return c.Open(out, force)
}

// Resume reads the jobs' checkpoints in dir, so that Run continues each
// job where its checkpoint left it, and returns the iterations they hold.
func Resume(dir *rundir.Dir, jobs []*Job) (int, error) {
	resumed := 0
	for _, j := range jobs {
		cp, err := loadCheckpoint(dir, j)
		if err != nil {
			return 0, err
		}
		if cp != nil {
			j.from, j.Rows = &cp.Learner, cp.Rows
			resumed += len(cp.Rows)
		}
	}
	return resumed, nil
}

// loadCheckpoint reads job j's checkpoint, if it has one.
func loadCheckpoint(dir *rundir.Dir, j *Job) (*trainCheckpoint, error) {
	units := checkpoints(dir)
	data, err := units.Get(checkpointKey(j))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cp trainCheckpoint
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&cp); err != nil {
		return nil, fmt.Errorf("%s: unreadable checkpoint (%v); use --force to start over", units.Path(checkpointKey(j)), err)
	}
	if len(cp.Rows) != cp.Learner.Done {
		return nil, fmt.Errorf("%s: %d rows for %d iterations; use --force to start over", units.Path(checkpointKey(j)), len(cp.Rows), cp.Learner.Done)
	}
	// Checked here, not only when the job's training starts, so that the
	// error names the file and nothing is trained before it.
	if err := cp.Learner.Check(j.Variant.Spec.Train); err != nil {
		return nil, fmt.Errorf("%s: %w; use --force to start over", units.Path(checkpointKey(j)), err)
	}
	return &cp, nil
}

// Checkpoints writes a training's checkpoints on a goroutine of its own:
// a worker hands over its job's state (a fresh copy, and the rows so far,
// which Emit only appends to) and trains on while the checkpoint is
// encoded, written and synced, which took a twentieth of a one-worker
// training of rlcr-peer. One goroutine writes them all, reusing one
// buffer (in a process too short to collect every byte allocated is a
// fresh page): those due at once in the order handed over, those held in
// the order due.
//
// A job's last checkpoint is held until checkpointEvery has passed since
// the job's checkpoint before it (or its start), then written, so that a
// kill loses no more of a finished job than of a running one. A run that
// completes sooner drops what is held (Discard): its result is then on
// disk and its checkpoints are removed, and writing, syncing and removing
// them took 7% of the CPU time of a one-seed `simulate train rlcr-peer`.
type Checkpoints struct {
	dir   *rundir.Dir
	every time.Duration // checkpointEvery; tests shorten or lengthen it before Run
	queue chan queuedCheckpoint
	done  chan struct{}

	mu   sync.Mutex
	err  error // the first write's; the writer skips the rest
	drop bool  // Discard: what is held when the queue closes is not written
	shut bool  // Close or Discard was called
}

type queuedCheckpoint struct {
	key string
	cp  trainCheckpoint
	due time.Time // when to write it; zero: at once
}

// StartCheckpoints starts the writer of the checkpoints of a training in
// dir. Close or Discard stops it.
func StartCheckpoints(dir *rundir.Dir) *Checkpoints {
	w := &Checkpoints{dir: dir, every: checkpointEvery, queue: make(chan queuedCheckpoint), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *Checkpoints) run() {
	defer close(w.done)
	var b bytes.Buffer
	write := func(q queuedCheckpoint) {
		if w.failed() != nil {
			return
		}
		b.Reset()
		err := gob.NewEncoder(&b).Encode(q.cp)
		if err == nil {
			err = checkpoints(w.dir).Put(q.key, b.Bytes())
		}
		if err != nil {
			w.mu.Lock()
			w.err = fmt.Errorf("checkpoint: %w", err)
			w.mu.Unlock()
		}
	}
	var held []queuedCheckpoint // in the order due
	var wake <-chan time.Time   // when the first held is due; nil while none is
	for {
		select {
		case q, ok := <-w.queue:
			if !ok {
				w.mu.Lock()
				drop := w.drop
				w.mu.Unlock()
				if !drop {
					for _, q := range held {
						write(q)
					}
				}
				return
			}
			if q.due.IsZero() {
				write(q)
				continue
			}
			// Jobs on several workers started at different times: the
			// last one handed over need not be the last due.
			i := len(held)
			for i > 0 && held[i-1].due.After(q.due) {
				i--
			}
			held = slices.Insert(held, i, q)
		case now := <-wake:
			for len(held) > 0 && !held[0].due.After(now) {
				write(held[0])
				held = held[1:]
			}
		}
		wake = nil
		if len(held) > 0 {
			wake = time.After(time.Until(held[0].due))
		}
	}
}

func (w *Checkpoints) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// put hands job j's checkpoint to the writer, to be written at due (at
// once if zero). It returns the error of an earlier write, which stops the
// training that meets it.
func (w *Checkpoints) put(j *Job, learner *rlcr.Checkpoint, due time.Time) error {
	if err := w.failed(); err != nil {
		return err
	}
	rows := j.Rows[:len(j.Rows):len(j.Rows)]
	w.queue <- queuedCheckpoint{checkpointKey(j), trainCheckpoint{Learner: *learner, Rows: rows}, due}
	return nil
}

// Close writes the checkpoints held, stops the writer and returns the
// first write's error: for a run that stops before its result is
// complete, so that the same command resumes every finished job where it
// ended. After Discard it does nothing.
func (w *Checkpoints) Close() error { return w.stop(false) }

// Discard drops the checkpoints held and stops the writer, once the
// run's result is complete: its checkpoints, written or not, are no longer
// needed, nor is whether they could be written.
func (w *Checkpoints) Discard() { w.stop(true) }

func (w *Checkpoints) stop(drop bool) error {
	w.mu.Lock()
	if w.shut {
		w.mu.Unlock()
		<-w.done // a stop under way in another goroutine
		return nil
	}
	w.shut, w.drop = true, drop
	w.mu.Unlock()
	close(w.queue)
	<-w.done
	return w.failed()
}

// isFile reports whether path names a file that can be statted.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}
