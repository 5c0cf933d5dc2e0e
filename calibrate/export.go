package calibrate

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/swarmsim/swarmsim/models/collective"
)

// Episode is a simulated episode to export as GenAI spans.
type Episode struct {
	// Trace is the episode's trace; Finish its end.
	Trace  *collective.Trace
	Finish int64 // nanoseconds of virtual time
	// Model names the model (gen_ai.request.model): the variant.
	Model string
	// ID numbers the episode; it is the trace ID, so that episodes
	// written together stay apart.
	ID uint64
	// Acceptable is written as swarmsim.acceptable on the root span.
	Acceptable bool
}

// exportEpoch is where virtual time 0 is put on the Unix clock: a fixed
// instant (2026-01-01T00:00:00Z), so that the same episode exports the
// same bytes.
const exportEpoch = 1_767_225_600_000_000_000

// WriteOTLP writes ep as one OTLP/JSON document on one line (as the
// Collector's file exporter writes): an invoke_agent span per agent (the
// main agent's is the root, each helper's a child of the agent that handed
// it work, or of the root), a chat span per model call of work with its
// tokens, and an execute_tool span per tool call. What happens between
// model calls (reading messages, a call's overhead, queueing, and checks,
// which recorded traces do not have and Fit would read as work) is left as
// gaps, as a framework's trace shows it.
func WriteOTLP(w io.Writer, ep Episode) error {
	tr := ep.Trace
	if tr == nil {
		return fmt.Errorf("episode %d: no trace", ep.ID)
	}
	traceID := fmt.Sprintf("%032x", ep.ID+1)
	spanID := func(n uint64) string { return fmt.Sprintf("%016x", n) }
	ts := func(t int64) string { return strconv.FormatInt(exportEpoch+t, 10) }
	type kv struct {
		Key   string         `json:"key"`
		Value map[string]any `json:"value"`
	}
	str := func(k, v string) kv { return kv{k, map[string]any{"stringValue": v}} }
	num := func(k string, v int64) kv { return kv{k, map[string]any{"intValue": strconv.FormatInt(v, 10)}} }
	type span struct {
		TraceID      string `json:"traceId"`
		SpanID       string `json:"spanId"`
		ParentSpanID string `json:"parentSpanId"`
		Name         string `json:"name"`
		Kind         int    `json:"kind"`
		Start        string `json:"startTimeUnixNano"`
		End          string `json:"endTimeUnixNano"`
		Attributes   []kv   `json:"attributes"`
	}
	// Agents' lifetimes and who handed each helper its first work.
	type life struct {
		start, end int64
		seen       bool
		parent     int
	}
	var agents []life
	grow := func(a int) {
		for len(agents) <= a {
			agents = append(agents, life{})
		}
	}
	for _, s := range tr.Spans {
		grow(s.Agent)
		l := &agents[s.Agent]
		if !l.seen || int64(s.Start) < l.start {
			l.start = int64(s.Start)
		}
		l.end = max(l.end, int64(s.End))
		l.seen = true
	}
	for i := range agents {
		agents[i].parent = -1
	}
	for _, f := range tr.Flows {
		grow(max(f.From, f.To))
		if f.Kind == "handoff" && f.To != 0 && agents[f.To].parent < 0 && f.From != f.To {
			agents[f.To].parent = f.From
		}
	}
	if len(agents) == 0 {
		grow(0)
	}
	agentSpan := func(a int) string { return spanID(uint64(a) + 1) }
	var spans []span
	for a, l := range agents {
		parent := ""
		start, end := l.start, l.end
		if a == 0 {
			start, end = 0, ep.Finish
		} else {
			p := max(l.parent, 0)
			parent = agentSpan(p)
		}
		name := fmt.Sprintf("agent-%d", a)
		attrs := []kv{str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", name)}
		if a == 0 {
			name = "main"
			attrs = []kv{str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", name),
				{"swarmsim.acceptable", map[string]any{"boolValue": ep.Acceptable}}}
		}
		spans = append(spans, span{traceID, agentSpan(a), parent, "invoke_agent " + name, 1, ts(start), ts(end), attrs})
	}
	next := uint64(len(agents)) + 1
	for _, s := range tr.Spans {
		var sp span
		switch s.Kind {
		case "work":
			sp = span{Name: "chat " + ep.Model, Attributes: []kv{str("gen_ai.operation.name", "chat"), str("gen_ai.request.model", ep.Model),
				num("gen_ai.usage.input_tokens", s.Prompt), num("gen_ai.usage.output_tokens", s.Output)}}
		case "tool":
			sp = span{Name: "execute_tool tool", Attributes: []kv{str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", "tool")}}
		default:
			continue
		}
		sp.TraceID, sp.SpanID, sp.ParentSpanID, sp.Kind = traceID, spanID(next), agentSpan(s.Agent), 1
		sp.Start, sp.End = ts(int64(s.Start)), ts(int64(s.End))
		next++
		spans = append(spans, sp)
	}
	doc := map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": []kv{str("service.name", "swarmsim")}},
		"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "swarmsim"}, "spans": spans}},
	}}}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
