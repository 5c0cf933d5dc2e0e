#!/usr/bin/env python3
"""Writes multi-agent GenAI traces in both JSON forms from one definition.

The same two runs become multiagent.otlp.json (OTLP/JSON, as the Collector's
file exporter writes it) and multiagent.python.json (ReadableSpan.to_json
objects in an array, hex IDs, RFC 3339 times). Run: python3 multiagent.py
"""
import datetime
import json

T0 = 1_760_000_000_000_000_000  # Unix ns


def run(trace, researchers):
    """One run: an orchestrator that fans out to researchers in parallel,
    then hands the findings to a writer. Returns span dicts."""
    spans = []
    nxt = [1]

    def span(name, op, start, end, parent, attrs=None, **extra):
        sid = trace * 1000 + nxt[0]
        nxt[0] += 1
        a = {"gen_ai.operation.name": op} if op else {}
        a.update(attrs or {})
        spans.append(dict(name=name, sid=sid, parent=parent, start=start, end=end, attrs=a, **extra))
        return sid

    def chat(start, end, parent, tin, tout):
        at = {"gen_ai.request.model": "gpt-4.1-mini"}
        if tin is not None:
            at.update({"gen_ai.usage.input_tokens": tin, "gen_ai.usage.output_tokens": tout})
        return span("chat gpt-4.1-mini", "chat", start, end, parent, at)

    base = T0 + trace * 100 * 10**9
    s = lambda sec: base + round(sec * 1e6) * 1000  # whole microseconds, as both forms keep them
    root = span("invoke_agent orchestrator", "invoke_agent", s(0), s(30), None,
                {"gen_ai.agent.name": "orchestrator", "swarmsim.acceptable": trace % 2 == 1})
    chat(s(0), s(1.2), root, 500, 60)
    for i in range(researchers):
        off = 1.3 + 0.05 * i
        r = span("invoke_agent researcher", "invoke_agent", s(off), s(off + 8 + i), root,
                 {"gen_ai.agent.name": "researcher"})
        chat(s(off + 0.1), s(off + 1.5), r, 400 + 10 * i, 40)
        span("execute_tool web_search", "execute_tool", s(off + 1.5), s(off + 3.5 + 0.5 * i), r,
             {"gen_ai.tool.name": "web_search"})
        chat(s(off + 3.6 + 0.5 * i), s(off + 7.5 + i), r, 900, 300)
    chat(s(13), s(14.5), root, 2000, 120)
    w = span("invoke_agent writer", "invoke_agent", s(14.6), s(28), root, {"gen_ai.agent.name": "writer"})
    chat(s(14.7), s(20), w, None, None)  # token counts missing
    span("execute_tool write_file", "execute_tool", s(20), None, w, {"gen_ai.tool.name": "write_file"})  # never ended
    chat(s(20.5), s(27.5), w, 2500, 800)
    span("http.request", None, s(27.6), s(27.7), w)  # no attributes
    chat(s(28.1), s(29.5), root, 3000, 50)
    return trace, spans


RUNS = [run(1, 2), run(2, 3)]


def hexid(n, width):
    return format(n, "0%dx" % width)


def otlp():
    out = []
    for trace, spans in RUNS:
        items = []
        for sp in spans:
            attrs = []
            for k, v in sp["attrs"].items():
                if isinstance(v, bool):
                    val = {"boolValue": v}
                elif isinstance(v, int):
                    val = {"intValue": str(v)}
                else:
                    val = {"stringValue": v}
                attrs.append({"key": k, "value": val})
            item = {"traceId": hexid(trace, 32), "spanId": hexid(sp["sid"], 16),
                    "parentSpanId": hexid(sp["parent"], 16) if sp["parent"] else "",
                    "name": sp["name"], "kind": 1,
                    "startTimeUnixNano": str(sp["start"]),
                    "endTimeUnixNano": str(sp["end"]) if sp["end"] else "0",
                    "status": {}}
            if attrs:
                item["attributes"] = attrs
            items.append(item)
        out.append({"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "swarm"}}]},
                                      "scopeSpans": [{"scope": {"name": "agents"}, "spans": items}]}]})
    # The Collector's file exporter writes one export request per line.
    return "\n".join(json.dumps(o) for o in out) + "\n"


def iso(ns):
    if ns is None:
        return None
    t = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%06dZ" % ((ns % 10**9) // 1000)


def python():
    out = []
    for trace, spans in RUNS:
        for sp in spans:
            out.append({"name": sp["name"],
                        "context": {"trace_id": "0x" + hexid(trace, 32), "span_id": "0x" + hexid(sp["sid"], 16), "trace_state": "[]"},
                        "kind": "SpanKind.INTERNAL",
                        "parent_id": "0x" + hexid(sp["parent"], 16) if sp["parent"] else None,
                        "start_time": iso(sp["start"]), "end_time": iso(sp["end"]),
                        "status": {"status_code": "UNSET"},
                        "attributes": sp["attrs"], "events": [], "links": [],
                        "resource": {"attributes": {"service.name": "swarm"}, "schema_url": ""}})
    return json.dumps(out, indent=2) + "\n"


if __name__ == "__main__":
    open("multiagent.otlp.json", "w").write(otlp())
    open("multiagent.python.json", "w").write(python())
