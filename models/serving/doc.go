// Package serving models the servers that LLM agents call: a self-hosted
// deployment of replicas that batch continuously (Replicas), a hosted API
// with a concurrency cap and rate limits (Hosted), and a pool of tool
// sandboxes (Pool). It knows calls, not agents: a client hands a server a
// Call it keeps for as long as the call is in flight, and the server tells
// the client, through its Client, when the call is admitted and when it is
// done. Package collective is its one client today.
//
// A server costs events per call, not per token: between arrivals and
// departures a batch's speed is constant, so each call's remaining work
// falls linearly and the next departure is known exactly (Sharing, a
// processor-sharing server); a hosted API's admissions are worked out when
// calls are sent, from token buckets (TokenBucket) that count exactly. Each
// server owns one sim.Timer, set for its next departure with the calls on
// their way counted in (Lookahead), and moved in place when a new call
// changes the plan, so that an arrival costs no event at all.
//
// The servers are plain state driven from the engine's public API (Env.Now
// and Timer); they keep their memory from one Reset to the next, so that a
// runner of many episodes allocates nothing per episode once warm.
package serving
