// Package otel reads OpenTelemetry spans from the two JSON forms agent
// traces are found in, into one Span type that knows nothing of the form:
//
//   - OTLP/JSON, what the OpenTelemetry Collector's file exporter writes:
//     an object {"resourceSpans": [{"resource": ..., "scopeSpans":
//     [{"spans": [...]}]}]}, possibly one object per line; IDs in hex
//     (base64 is accepted too, as protojson writes it), times as strings
//     of Unix nanoseconds, attributes as lists of {"key", "value":
//     {"stringValue" | "intValue" | "doubleValue" | "boolValue" |
//     "arrayValue"}}.
//   - The OpenTelemetry Python SDK's span JSON (ReadableSpan.to_json): one
//     span object, an array of them, or an object {"spans": [...]} as
//     any-agent records runs. IDs are "0x"-prefixed hex or plain integers,
//     the parent is "parent_id" or a "parent" context, times are RFC 3339
//     strings or integers of Unix nanoseconds, attributes a plain object.
//
// Read tells the forms apart by their top-level keys. What is missing in
// a span of a recognised form (an end time, attributes) is left for the
// caller to count: Span.HasEnd is false, Span.Attrs is empty. A value of
// the wrong type, or a document of neither form, is an error that names
// the file, the span and the field, and the line the span starts on
// (Span.Line, which each span read keeps).
package otel
