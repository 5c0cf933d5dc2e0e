package collective

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/swarmsim/swarmsim/sim"
)

// Span is one activity of one agent: a model call on a part, a check, a
// share, waiting for inputs, a spawn.
type Span struct {
	Agent      int
	Start, End sim.Time
	Kind       string // input, work, rework, check, share, handoff, spawn, select; send, queue, tool, tool-wait with shared inference or tools
	Label      string // the subtask's name, if any
	// Prompt and Output are the tokens of the model call a work span is.
	Prompt, Output int64
}

// Flow is one message between agents.
type Flow struct {
	From, To     int
	Send, Arrive sim.Time
	Kind         string // input, handoff, finding
}

// Trace is the record of one episode's activities and messages.
type Trace struct {
	Spans []Span
	Flows []Flow
}

// clip ends every span by end, the episode's finish. Some activities (a
// check, a tool call, a spawn) are traced when they start, with the end
// they were due to have; one that the time limit cut short did not run
// past it, and a span beyond the episode would show work that episodes.csv
// does not count and that 'simulate fit' leaves out as timed on another
// clock.
func (t *Trace) clip(end sim.Time) {
	kept := t.Spans[:0]
	for _, s := range t.Spans {
		if s.End > end {
			if s.Start >= end {
				continue // due to begin at the finish: none of it ran
			}
			s.End = end
		}
		kept = append(kept, s)
	}
	t.Spans = kept
}

// chromeEvent is one entry of the Chrome Trace Event format; times are in
// whole microseconds.
type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   int64          `json:"ts"`
	Dur  *int64         `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   int            `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// micros rounds a virtual time to whole microseconds. Every time in a
// trace goes through it, start and end alike, and a duration is the
// difference of two rounded times: rounding is monotone, so slices that
// touch in virtual time touch exactly in the trace and nested slices stay
// nested. (A duration rounded on its own, added to a rounded start, can
// end a microsecond after the next slice starts: a badly nested slice.)
func micros(t sim.Time) int64 {
	us := int64(t / sim.Microsecond)
	if t%sim.Microsecond >= sim.Microsecond/2 {
		us++
	}
	return us
}

// WriteChrome writes the trace in the Chrome Trace Event JSON format, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open: agents are threads,
// activities are slices, messages are flow arrows from sender to receiver.
func (t *Trace) WriteChrome(w io.Writer, title string) error {
	agents := 0
	for _, s := range t.Spans {
		agents = max(agents, s.Agent+1)
	}
	for _, f := range t.Flows {
		agents = max(agents, f.From+1, f.To+1)
	}
	events := []chromeEvent{{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": title}}}
	for a := range agents {
		name := fmt.Sprintf("agent %d", a)
		if a == 0 {
			name = "agent 0 (main)"
		}
		events = append(events, chromeEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: a, Args: map[string]any{"name": name}})
	}
	for _, s := range t.Spans {
		dur := micros(s.End) - micros(s.Start)
		name := s.Kind
		if s.Label != "" {
			name = s.Kind + " " + s.Label
		}
		events = append(events, chromeEvent{Name: name, Cat: s.Kind, Ph: "X", Ts: micros(s.Start), Dur: &dur, Pid: 1, Tid: s.Agent})
	}
	for i, f := range t.Flows {
		// A flow arrow binds to enclosing slices; give each end an instant
		// slice of its own so the arrow always has an anchor.
		zero := int64(0)
		events = append(events,
			chromeEvent{Name: "send " + f.Kind, Cat: "message", Ph: "X", Ts: micros(f.Send), Dur: &zero, Pid: 1, Tid: f.From},
			chromeEvent{Name: f.Kind, Cat: "message", Ph: "s", Ts: micros(f.Send), Pid: 1, Tid: f.From, ID: i + 1},
			chromeEvent{Name: "receive " + f.Kind, Cat: "message", Ph: "X", Ts: micros(f.Arrive), Dur: &zero, Pid: 1, Tid: f.To},
			chromeEvent{Name: f.Kind, Cat: "message", Ph: "f", BP: "e", Ts: micros(f.Arrive), Pid: 1, Tid: f.To, ID: i + 1},
		)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(struct {
		TraceEvents     []chromeEvent `json:"traceEvents"`
		DisplayTimeUnit string        `json:"displayTimeUnit"`
	}{events, "ms"})
}
