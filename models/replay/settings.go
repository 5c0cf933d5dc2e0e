package replay

import (
	"errors"
	"fmt"
	"math"
)

// Settings are a scenario's replay section: the recorded runs to replay
// and the load they are replayed under. At most one of Sessions, Rate and
// Speedup is given (each names a kind of load); none is one session, runs
// replayed one at a time.
type Settings struct {
	// Traces are the files and directories of OpenTelemetry GenAI spans
	// whose runs are replayed.
	Traces []string `yaml:"traces,omitempty" json:"traces,omitempty"`
	// Sessions is a closed loop of that many sessions (Closed).
	Sessions int `yaml:"sessions,omitempty" json:"sessions,omitempty"`
	// Rate is an open loop: runs arriving at a Poisson rate a second.
	Rate float64 `yaml:"rate,omitempty" json:"rate,omitempty"`
	// Speedup is an open loop: runs starting at their recorded start
	// times, that many times faster.
	Speedup float64 `yaml:"speedup,omitempty" json:"speedup,omitempty"`
	// Runs is the number of runs replayed (Load.Runs); 0 is each once,
	// once per session.
	Runs int `yaml:"runs,omitempty" json:"runs,omitempty"`
	// Pairing is how a hosted API's latencies pair with the recorded
	// ones.
	Pairing Pairing `yaml:"pairing,omitempty" json:"pairing,omitempty"`
}

// IsZero reports whether the settings are all defaults, so that a
// scenario without a replay section resolves without one.
func (s Settings) IsZero() bool {
	return len(s.Traces) == 0 && s.Sessions == 0 && s.Rate == 0 && s.Speedup == 0 && s.Runs == 0 && s.Pairing == Rank
}

// MaxSessions bounds a closed loop's sessions: each holds its runs'
// state, and a count such as 10^8 would exhaust memory before the first
// run (or overflow a slice's length).
const MaxSessions = 1 << 16

// MaxRuns bounds the runs a scenario's replay section or --runs asks for,
// and those its sessions ask for when runs is left out (CheckRuns):
// each replayed run keeps its result, and 200,000 of the shared traces'
// runs took 1.3 GB before a replay wrote anything. 65,536 runs, a few
// hundred MB, are far more than an unstable queue needs to show itself
// (docs/calibration.md uses 500). Replay itself takes more given as Load.Runs,
// for callers that know their runs are small: the M/G/1 test replays
// 242,000 runs of one call.
const MaxRuns = 1 << 16

// CheckRuns refuses a closed loop of several sessions, with Runs left at
// 0, that replays the recorded runs once per session beyond MaxRuns:
// Runs is bounded, but len(recorded) × Sessions was not, and could reach
// 65,536 times the traces' runs. Each run once (one session) is left
// alone: it keeps no more results than the traces hold runs. The error
// names neither the setting nor its fix, which the caller knows.
func (l Load) CheckRuns(recorded int) error {
	if l.Mode != Closed || l.Runs != 0 || l.Sessions < 2 {
		return nil
	}
	if total := recorded * l.Sessions; total > MaxRuns {
		return fmt.Errorf("%d sessions replaying each of the %d recorded runs once per session make %d runs, more than %d (each keeps its result)", l.Sessions, recorded, total, MaxRuns)
	}
	return nil
}

// Validate reports a negative or non-finite value, and settings that
// would do nothing: two kinds of load at once, or runs with recorded
// start times (each recorded run starts once). Errors start with the
// field's name.
func (s *Settings) Validate() error {
	var errs []error
	if s.Sessions < 0 || s.Sessions > MaxSessions {
		errs = append(errs, fmt.Errorf("sessions: %d is out of range (1 to %d, or leave it out)", s.Sessions, MaxSessions))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"rate", s.Rate}, {"speedup", s.Speedup}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s: %v is out of range (a positive number, or leave it out)", f.name, f.v))
		}
	}
	if s.Runs < 0 || s.Runs > MaxRuns {
		errs = append(errs, fmt.Errorf("runs: %d is out of range (1 to %d, or 0 for each run once)", s.Runs, MaxRuns))
	}
	switch {
	case s.Rate > 0 && s.Sessions > 0:
		errs = append(errs, errors.New("rate: given with sessions: a replay has one kind of load (sessions for a closed loop, rate or speedup for an open one)"))
	case s.Speedup > 0 && (s.Sessions > 0 || s.Rate > 0):
		errs = append(errs, errors.New("speedup: given with sessions or rate: a replay has one kind of load (sessions for a closed loop, rate or speedup for an open one)"))
	case s.Speedup > 0 && s.Runs > 0:
		errs = append(errs, errors.New("runs: given with speedup: each recorded run starts once, at its recorded time"))
	}
	if err := idleSessions(s.Sessions, s.Runs); err != nil {
		errs = append(errs, fmt.Errorf("sessions: %w", err))
	}
	if s.Pairing > Independent {
		errs = append(errs, fmt.Errorf("pairing: %v is not allowed (allowed: rank, independent)", s.Pairing))
	}
	return errors.Join(errs...)
}

// idleSessions refuses more sessions than runs: the sessions beyond the
// runs' count would never start one, so the load would be that of fewer
// sessions under another name.
func idleSessions(sessions, runs int) error {
	if runs > 0 && sessions > runs {
		return fmt.Errorf("%d sessions for %d runs: %d would never start a run (the load would be that of %d sessions); give at most %d sessions, or more runs", sessions, runs, sessions-runs, runs, runs)
	}
	return nil
}

// Load returns the load the settings describe.
func (s *Settings) Load() Load {
	switch {
	case s.Rate > 0:
		return Load{Mode: Poisson, Rate: s.Rate, Runs: s.Runs}
	case s.Speedup > 0:
		return Load{Mode: Recorded, Speedup: s.Speedup}
	}
	return Load{Mode: Closed, Sessions: max(s.Sessions, 1), Runs: s.Runs}
}

// String names the load as replay.csv's load column does: "sessions=4",
// "rate=0.5", "speedup=2".
func (l Load) String() string {
	switch l.Mode {
	case Poisson:
		return fmt.Sprintf("rate=%v", l.Rate)
	case Recorded:
		return fmt.Sprintf("speedup=%v", l.Speedup)
	}
	return fmt.Sprintf("sessions=%d", l.Sessions)
}

// pairings are the names of the pairings, by value.
var pairings = []string{Rank: "rank", Independent: "independent"}

func (p Pairing) String() string {
	if int(p) < len(pairings) {
		return pairings[p]
	}
	return fmt.Sprintf("Pairing(%d)", uint8(p))
}

// MarshalText writes the pairing's name.
func (p Pairing) MarshalText() ([]byte, error) {
	if int(p) >= len(pairings) {
		return nil, fmt.Errorf("replay: unknown pairing %d", uint8(p))
	}
	return []byte(pairings[p]), nil
}

// UnmarshalText reads a pairing's name: rank or independent.
func (p *Pairing) UnmarshalText(b []byte) error {
	for i, name := range pairings {
		if string(b) == name {
			*p = Pairing(i)
			return nil
		}
	}
	return fmt.Errorf("%q is not allowed (allowed: rank, independent)", b)
}
