package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/swarmsim/swarmsim/models/rlcr"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

// limitOptions bound the resources of long work: the events of one
// episode, and the memory of the whole process. A runaway scenario (a
// typo that asks for 200,000 subtasks and 4,000 agents) then ends with a
// message that says which bound it met and how to raise it, instead of
// growing until the kernel kills it.
type limitOptions struct {
	maxMemory byteSize
	maxEvents countFlag
}

// events is the bound on an episode's events; 0 means the default.
func (o *limitOptions) events() uint64 { return uint64(o.maxEvents) }

// defaultMaxMemory is the memory bound without --max-memory: far above
// what the library's scenarios need (tens of MB), below what a shared
// machine can give before swapping.
const defaultMaxMemory = 8 << 30

// bytesPerNode is what one subtask costs an episode, measured as peak
// RSS over nodes for fork-join graphs of 2·10⁴ to 10⁶ nodes (about 480 B,
// at the GC target simulate sets), rounded up.
const bytesPerNode = 512

// bytesPerAgent is what one agent costs an episode once it exists:
// measured as peak RSS over agents for the independent organization
// (every agent attempts the task at once), about 1.7 KiB for 10⁶ agents,
// rounded up. Agents are made as the episode needs them, so a team
// larger than its work costs less.
const bytesPerAgent = 2048

// bytesPerRead is what an agent's record of one finding it has read
// costs, over the pairs of a working agent and a subtask: each agent
// keeps the findings it read, so a team working on a wide graph holds
// agents × subtasks of them at worst. Peak RSS over that product was 6.1
// to 7.2 B for fork-join graphs of 2,000 to 8,000 parts with as many
// agents (split organization), rounded up.
const bytesPerRead = 8

// memoryPoll is how often the heap is measured against the bound.
const memoryPoll = 50 * time.Millisecond

func (o *limitOptions) flags(fs *flag.FlagSet) {
	o.memoryFlag(fs, "stop when the process's heap passes `SIZE` (such as 512MiB or 16GiB;\n0 for no bound), and refuse work estimated to need more")
	fs.Var(&o.maxEvents, "max-events", "end an episode with an error after `N` events\n(default: 1000 per subtask plus one million)")
}

// memoryFlag defines --max-memory alone, with the usage text usage.
func (o *limitOptions) memoryFlag(fs *flag.FlagSet, usage string) {
	o.maxMemory = defaultMaxMemory
	fs.Var(&o.maxMemory, "max-memory", usage)
}

// errMemory is the cause of a context cancelled by the memory guard.
var errMemory = errors.New("memory bound reached")

// A workload is one thing whose episodes the memory estimate sizes: a
// variant of a run, or a trial of a sweep, named as messages name it.
type workload struct {
	name    string
	variant *scenarios.Variant
	// rollouts is how many episodes one worker holds at once: one for an
	// evaluation; for training an iteration's batch × group, whose
	// rollouts all keep their memory until the update (measured: peak
	// RSS grows with batch × group, about one episode's worth each).
	rollouts int
}

// variantWorkload returns v as a workload, trained or evaluated.
func variantWorkload(v *scenarios.Variant, train bool) workload {
	w := workload{fmt.Sprintf("variant %q", v.Name), v, 1}
	if train {
		w.rollouts = max(1, v.Spec.Train.Batch*v.Spec.Train.Group)
	}
	return w
}

// variantWorkloads returns sc's variants as workloads.
func variantWorkloads(sc *scenarios.Scenario, train bool) []workload {
	ws := make([]workload, len(sc.Variants))
	for i := range sc.Variants {
		ws[i] = variantWorkload(&sc.Variants[i], train)
	}
	return ws
}

// episodeBytes estimates what one episode of w holds at its peak: its
// task graph, its agents, the findings its working agents read (at most
// one agent per subtask works at once), and in training the decisions
// its rollout keeps for the update.
func (w workload) episodeBytes() float64 {
	nodes, agents := w.variant.Spec.Task.Nodes(), w.variant.Spec.Collective.Agents
	b := float64(float64(nodes)*bytesPerNode) + float64(float64(agents)*bytesPerAgent) + float64(float64(min(agents, nodes))*float64(nodes)*bytesPerRead)
	if w.rollouts > 1 {
		b += rlcr.RecordedBytes(nodes)
	}
	return b
}

// sizeSettings names the settings of f that fix how many subtasks its
// graphs have: those of its shape that the scenario sets.
func sizeSettings(f *task.Family) []string {
	var names []string
	for _, s := range []struct {
		name string
		set  bool
	}{{"kind", f.Kind != ""}, {"length", f.Length > 0}, {"width", f.Width > 0}, {"stages", f.Stages > 0}, {"branching", f.Branching > 0}, {"depth", f.Depth > 0}} {
		if s.set {
			names = append(names, "task."+s.name)
		}
	}
	if len(names) == 0 {
		return []string{"the task's size"}
	}
	return names
}

// check refuses work whose episodes, on concurrent workers at once, are
// estimated to pass the memory bound (episodeBytes), before any of it
// starts. The error names the settings that drive the estimate, the
// estimate and the bound. What an estimate leaves out (messages, an
// API's queues) guard bounds while the work runs.
func (o *limitOptions) check(work []workload, concurrent int) error {
	if o.maxMemory == 0 {
		return nil
	}
	concurrent = max(1, concurrent)
	for _, w := range work {
		episode := w.episodeBytes()
		held := concurrent * w.rollouts
		need := episode * float64(held)
		if need <= float64(o.maxMemory) {
			continue
		}
		// Only what is there to lower: a trace runs one episode, with no
		// --workers.
		how, lower := fmt.Sprintf("%d at once", held), []string(nil)
		if concurrent > 1 {
			lower = append(lower, "--workers")
		}
		if w.rollouts > 1 {
			how = fmt.Sprintf("%d at once (%d rollouts, batch × group, per worker, with their recorded decisions)", held, w.rollouts)
			lower = append(lower, "train.batch", "train.group")
		}
		if held == 1 {
			how = "one episode"
		}
		fix := ""
		if len(lower) > 0 {
			fix = ", lower " + orList(lower)
		}
		size := sizeSettings(&w.variant.Spec.Task)
		return fmt.Errorf("%s: a team of %d agents (collective.agents) on task graphs of up to %d subtasks (%s) needs about %s per episode and %s for %s, above --max-memory %s; make the team or the task smaller (collective.agents; %s)%s, or raise the bound (--max-memory %s, or 0 for none)",
			w.name, w.variant.Spec.Collective.Agents, w.variant.Spec.Task.Nodes(), strings.Join(size, ", "), byteSize(episode), byteSize(need), how, o.maxMemory,
			strings.Join(size, ", "), fix, byteSize(math.Exp2(math.Ceil(math.Log2(need)))))
	}
	return nil
}

// guard returns a context that is cancelled, with a cause that names the
// bound, when the heap passes it, and a function that stops watching. It
// also sets the garbage collector's soft limit to the bound, so that the
// collector works harder before the guard gives up.
func (o *limitOptions) guard(ctx context.Context) (context.Context, func()) {
	if o.maxMemory == 0 {
		return ctx, func() {}
	}
	old := debug.SetMemoryLimit(int64(o.maxMemory))
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(memoryPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if heap := sample[0].Value.Uint64(); heap > uint64(o.maxMemory) {
					cancel(fmt.Errorf("%w: the heap holds %s, above --max-memory %s (raise it, or make the scenario smaller)", errMemory, byteSize(float64(heap)), o.maxMemory))
					return
				}
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
		debug.SetMemoryLimit(old)
	}
}

// byteSize is a number of bytes, written and read with binary units
// (KiB, MiB, GiB, TiB; K, M, G, T mean the same).
type byteSize float64

var byteUnits = []struct {
	names []string
	scale float64
}{
	{[]string{"TiB", "T", "TB"}, 1 << 40},
	{[]string{"GiB", "G", "GB"}, 1 << 30},
	{[]string{"MiB", "M", "MB"}, 1 << 20},
	{[]string{"KiB", "K", "KB"}, 1 << 10},
	{[]string{"B", ""}, 1},
}

func (b byteSize) String() string {
	for _, u := range byteUnits {
		if float64(b) >= u.scale && u.scale > 1 {
			x := math.Round(float64(b)/u.scale*10) / 10
			// Rounded up, a size just below the largest would print as
			// one that Set refuses.
			if x*u.scale >= 1<<63 {
				x = math.Floor(float64(b)/u.scale*10) / 10
			}
			return strconv.FormatFloat(x, 'f', -1, 64) + u.names[0]
		}
	}
	return strconv.FormatFloat(float64(b), 'f', 0, 64) + "B"
}

func (b *byteSize) Set(s string) error {
	text := strings.TrimSpace(s)
	for _, u := range byteUnits {
		for _, name := range u.names {
			num, ok := strings.CutSuffix(text, name)
			if !ok || (name == "" && strings.ContainsAny(num, "KMGTBiktmg")) {
				continue
			}
			x, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			// NaN is no size (ParseFloat reads "NaN"), and a bound beyond
			// an int64 of bytes is none the runtime can set. The runtime
			// takes whole bytes: a fraction of one (.1) would be a bound
			// of 0 there, and printed as 0B, which here means none.
			v := math.Round(x * u.scale)
			if err != nil || !(v >= 0 && v < 1<<63) || v == 0 && x != 0 {
				continue
			}
			*b = byteSize(math.Abs(v)) // -0 is 0
			return nil
		}
	}
	return errors.New("want a size such as 512MiB, 16GiB or 0")
}

// start prepares long work on sc, the episodes of work with concurrent
// at once: it reads the files sc refers to and checks the memory estimate
// before anything is written, then guards the memory. done, called with
// the work's error, stops the guard and returns the error to report: the
// bound that stopped the work, if one did, or an episode's event limit
// with the flag that raises it.
func (o *limitOptions) start(ctx context.Context, sc *scenarios.Scenario, work []workload, concurrent int) (_ context.Context, done func(error) error, _ error) {
	if err := sc.CheckFiles(); err != nil {
		return nil, nil, err
	}
	if err := o.check(work, concurrent); err != nil {
		return nil, nil, err
	}
	gctx, stop := o.guard(ctx)
	return gctx, func(err error) error {
		if err != nil && gctx.Err() != nil && ctx.Err() == nil {
			err = context.Cause(gctx)
		}
		if errors.Is(err, sim.ErrEventLimit) {
			err = fmt.Errorf("%w; --max-events raises the bound", err)
		}
		stop()
		return err
	}, nil
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
