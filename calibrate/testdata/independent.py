#!/usr/bin/env python3
"""An independent parse of agent traces, for checking calibrate.Load.

For each file given, reads the spans with the json module (either form:
OTLP/JSON documents, one per line, or Python SDK span JSON) and prints one
line per file: the number of model calls and tool calls that have an end
time in traces that hold an invoke_agent span, and the sums of their
durations in nanoseconds. A span written twice over in its trace (one span
ID twice: any-agent's OpenAI recorder repeats a tool span) is one call.
Usage: independent.py FILE...
"""
import json
import sys

MODEL_OPS = {"chat", "call_llm", "text_completion", "generate_content"}


def otlp_spans(doc):
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for sp in ss.get("spans", []):
                attrs = {}
                for kv in sp.get("attributes", []):
                    v = kv["value"]
                    attrs[kv["key"]] = next(iter(v.values())) if v else None
                end = int(sp.get("endTimeUnixNano", "0"))
                yield sp["traceId"], sp["spanId"], attrs, int(sp["startTimeUnixNano"]), end or None


def python_spans(items):
    for sp in items:
        start, end = sp["start_time"], sp["end_time"]
        if isinstance(start, str):
            start, end = iso_ns(start), iso_ns(end) if end else None
        yield sp["context"]["trace_id"], sp["context"]["span_id"], sp.get("attributes") or {}, start, end


def iso_ns(s):
    import datetime
    t = datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return (int(t.timestamp()) * 10**6 + t.microsecond) * 1000


def spans(path):
    text = open(path).read()
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    for d in docs:
        if isinstance(d, dict) and "resourceSpans" in d:
            yield from otlp_spans(d)
        elif isinstance(d, dict):
            yield from python_spans(d["spans"])
        else:
            yield from python_spans(d)


for path in sys.argv[1:]:
    all_spans = list({(sp[0], sp[1]): sp for sp in spans(path)}.values())
    rooted = {t for t, _, a, _, _ in all_spans if a.get("gen_ai.operation.name") == "invoke_agent"}
    calls = tools = call_ns = tool_ns = 0
    for trace, _, attrs, start, end in all_spans:
        op = attrs.get("gen_ai.operation.name")
        if trace not in rooted or end is None or end < start:
            continue
        if op in MODEL_OPS:
            calls += 1
            call_ns += end - start
        elif op == "execute_tool":
            tools += 1
            tool_ns += end - start
    print(path, calls, tools, call_ns, tool_ns)
