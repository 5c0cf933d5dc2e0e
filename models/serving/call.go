package serving

import "github.com/swarmsim/swarmsim/sim"

// Call is one call in flight at a server. Its client keeps it (an agent has
// at most one call in flight, so it is a field of the agent) and fills in
// the exported fields before it submits it; the server keeps its state in
// the others, so that nothing is allocated per call.
type Call struct {
	ID             int   // the client's name for the call, passed back to its Client
	Prompt, Output int64 // tokens
	// Service is the call's time at a Hosted API once admitted (its time
	// to first token and its output), worked out by the client when it
	// sends the call; Replicas work it out themselves.
	Service sim.Time
	// Arrive is when the call reaches the server, set by Submit (and by a
	// Pool's client, when it queues a call for a place).
	Arrive sim.Time

	setup sim.Time    // on a replica, the prefill of its prompt, which pauses the batch that admits it
	api   apiSchedule // at a Hosted API
}

// A Client is told of its calls' progress at a server. The server calls it
// on the engine's clock, from Submit or from its timer.
type Client interface {
	// Admitted reports that the call named id starts service at time at,
	// after it waited in the server's queue since it arrived, if at all.
	Admitted(id int, at sim.Time)
	// Done reports that the call named id is complete now.
	Done(id int)
	// Fail reports an error that stops the server: its timer could not be
	// set.
	Fail(err error)
}

// Stats are a server's figures over an episode, up to its end.
type Stats struct {
	// Utilisation is, for replicas, the fraction of replica-time with a
	// batch; for an API, the mean calls in flight over its concurrency cap
	// (0 with no cap).
	Utilisation float64
	QueueMean   float64 // time-average number of calls queued
	// BatchMean is, for replicas, the mean batch while busy; for an API,
	// the mean calls in flight.
	BatchMean float64
}

// moveTimer moves t to fire at due, keeping its place among events of the
// same time when due has not changed; idle (no due) stops it. It tells
// client of an error.
func moveTimer(t *sim.Timer, now, due sim.Time, idle bool, client Client) {
	switch {
	case idle:
		t.Stop()
	case t.Pending() && t.When() == due:
	default:
		if err := t.Set(due - now); err != nil {
			client.Fail(err)
		}
	}
}
