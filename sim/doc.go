// Package sim is a discrete-event simulation engine: a virtual clock, a
// queue of events due on it, and processes written as straight-line Go code
// that wait on the clock, in the manner of SimPy.
//
// # Clock and events
//
// An [Env] holds the clock and the event queue. [Time] is an integer count
// of virtual nanoseconds, so that two events due at the same instant tie
// exactly, whatever arithmetic produced their times; it prints and parses
// as a Go duration ("90s", "1h30m").
//
// Events fire in a total order: by time, then by [Priority] (lower first),
// then in the order they were scheduled. Nothing else, not a map's
// iteration order, not a goroutine's timing, decides which of two events
// goes first. [Env.Step] fires one event, [Env.Run] fires events until none
// are left, and [Env.RunUntil] fires those due strictly before a time and
// then sets the clock to it. [Env.RunThrough] fires those due at or before
// a time until an event calls [Env.Stop]: a model that runs to an end of
// its own (an episode) runs at the cost of one event per event, without a
// Step and a look at the next event's time for each. A model that works
// out a run of its own events in one step checks with [Env.PendingAt] that
// none ties with an event already scheduled, and counts them with
// [Env.Elide]. Runs do not nest: Step and the run loops called from an
// event of a run in progress on the same Env are refused.
//
// Three kinds of things fire, from the cheapest up:
//
//   - Callbacks ([Env.Call], [Env.CallPriority]): a function run by the
//     scheduler at a time. The cheapest kind of event; it must not wait.
//   - Events ([Event], made with [Env.NewEvent] or [Env.Timeout]): something
//     that happens once, with a value or an error. [Event.Succeed] and
//     [Event.Fail] trigger it; processes wait for it with [Proc.Await];
//     functions attach with [Event.OnDone]. [Env.AllOf] and [Env.AnyOf]
//     are events that wait for several others.
//   - Processes ([Env.Process], [Proc]): a Go function that runs on the
//     clock and suspends itself with [Proc.Wait] and [Proc.Await]. Each is
//     a coroutine (iter.Pull): exactly one process runs at a time, and
//     switching between the scheduler and a process costs tens of
//     nanoseconds, not a goroutine hand-off.
//
// [Resource] (a pool of units with a FIFO or priority queue) and [Store] (a
// mailbox of typed items) are built on the public event API, in files of
// their own. [Dist] gives the distributions that scenario files name, and
// [Sampler] draws from one with its constants worked out once. A [Timer]
// is a wake-up its owner moves in place when its plan changes, which is how
// a model of its own (the inference servers of models/serving) drives
// plain state from one event per change rather than one per unit of work.
//
// # Writing a process
//
// A process is a function of its [Proc]. It waits with the Proc's methods
// and returns when it is done; every wait returns an error that the process
// must check, because it may have been interrupted or the Env closed:
//
//	env := sim.New(sim.Limits{MaxTime: 8 * sim.Hour})
//	defer env.Close()
//	desk, _ := sim.NewResource(env, 2, sim.FIFO)
//	service := sim.NewStreams(seed).New("service", 0)
//	env.Process("customer", func(p *sim.Proc) error {
//		if err := desk.Acquire(p, 0); err != nil {
//			return err // interrupted, or the Env was closed
//		}
//		defer desk.Release()
//		d, _ := sim.FromSeconds(service.ExpFloat64() * 60)
//		return p.Wait(d) // served for an exponential time, mean one minute
//	})
//	err := env.Run()
//
// A process ends when its function returns. A returned error fails the
// process's [Proc.Done] event: whoever awaits it receives the error, and if
// nobody does, the run stops with it. A panic in a process stops the run
// with an error that names the process. Failures are never dropped
// silently.
//
// # Interrupts and deadlines
//
// [Proc.Interrupt] makes a process's current wait return an [*Interrupt]
// carrying a cause, before anything else due at that instant. A deadline is
// a callback that interrupts every process it bounds: they all stop at the
// same virtual time. A process that returns the *Interrupt it received ends
// in an orderly way, not as a failure. The timer of an interrupted Wait
// stays in the queue and is ignored when it fires ([Env.Pending] counts
// it).
//
// # Limits, observer, closing
//
// [Limits] bound the number of events and the virtual time of a run, so
// that a runaway model (a process looping on Wait(0), say) ends with an
// error wrapping [ErrEventLimit] or [ErrTimeLimit] instead of hanging.
// Misuse (a negative delay, waiting from outside the running process,
// triggering an event twice) returns errors, not panics.
//
// An [Observer] installed with [Env.SetObserver] is told about every firing,
// in order, before it happens: the hook for traces and event logs.
//
// Suspended processes hold coroutines, which are goroutines. [Env.Close]
// releases them (their waits return [ErrClosed]); call it when an episode
// is over, or a long series of episodes leaks memory.
//
// # Randomness and determinism
//
// [Streams] derives an independent random generator for each (purpose,
// entity) pair from one master seed, and [Streams.Derive] a family of them
// for each episode. Give every entity and purpose its own stream: then
// adding an agent, a message or a whole purpose leaves everyone else's draws
// unchanged (common random numbers), which is what makes two variants of a
// model, or a counterfactual replay, comparable. A [Key] names draws by
// counters instead (the draw for attempt 2 of subtask 17), with no state at
// all, and a [Source] feeds a draw that takes several numbers (a normal by
// the ziggurat) from one Key hash.
//
// A run is deterministic, event for event, if the model keeps these rules:
// draw only from streams derived from the seed (never from math/rand's
// global generator, nor a distribution with a nil source); never let map
// iteration, select or goroutines decide what is scheduled or in which
// order; and use an Env from one goroutine only. Same model, same seed:
// the same [Observer] log, on any machine.
//
// # Costs
//
// Each event costs one queue operation. Up to 32 pending events are kept
// as a sorted run: a pop is O(1), and a push walks back from the end, one
// comparison when the new event is the latest, as most are. A larger queue
// is a 4-ary heap, O(log n) in the number of pending events, until it
// empties. A callback due now with nothing else due by now (a model's
// zero-delay step) skips the queue: it waits beside it and fires next, in
// the place its sequence number gives it. A process wait adds two coroutine switches (to the
// scheduler and back). In steady state nothing is allocated per event:
// callbacks, waits and stale timers all reuse the heap's storage. The
// benchmarks in bench_test.go measure both against bare floors, and
// docs/performance.md records the figures.
//
// # Examples
//
// The package examples run and check their output: a first process
// (Example), AnyOf with a timeout, interrupts, Resource requests, a Store,
// running until a process ends (SimPy's run(until=proc), ExampleEnv_Step),
// and an M/M/1 queue whose mean waiting time is compared with the analytic
// value (Example_mm1). docs/engine.md is a longer introduction.
//
// A product added to or subtracted from another number is written
// float64(x*y) + z: the conversion rounds the product, so that no
// architecture fuses the two into one multiply-add and the module's own
// arithmetic computes the same bits on every machine (internal/portable
// checks it). Package math's functions may still differ in their last bits
// between architectures (docs/cluster.md, "Determinism").
package sim
