package serving_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/sim"
)

// eventLog is a Client that writes down every callback in the order it
// comes, so that tests can check the order of admissions and ends at one
// instant as well as their times. Any Fail is logged too: a run that goes
// as planned has none, not even a Fail(nil).
type eventLog struct {
	env    *sim.Env
	events []string
	onDone func(id int) // if set, called after each Done is logged
}

func (l *eventLog) Admitted(id int, at sim.Time) {
	l.events = append(l.events, admitted(id, at))
}

func (l *eventLog) Done(id int) {
	l.events = append(l.events, done(id, l.env.Now()))
	if l.onDone != nil {
		l.onDone(id)
	}
}

func (l *eventLog) Fail(err error) { l.events = append(l.events, fmt.Sprintf("fail: %v", err)) }

func admitted(id int, at sim.Time) string { return fmt.Sprintf("admit %d at %v", id, at) }
func done(id int, at sim.Time) string     { return fmt.Sprintf("done %d at %v", id, at) }

// apiCall is a call of these tests, sent at time 0: it reaches the API
// after delay and is in flight there for service once admitted.
type apiCall struct {
	delay, service sim.Time
	tokens         int64
}

// startHosted makes a hosted API of cfg and sends it the calls, in order,
// all at time 0, with IDs their indices.
func startHosted(t *testing.T, cfg serving.API, calls []apiCall) (*sim.Env, *serving.Hosted, *eventLog) {
	t.Helper()
	env := sim.New(sim.Limits{})
	log := &eventLog{env: env}
	h := &serving.Hosted{}
	require.NoError(t, h.Reset(env, &cfg, log))
	cs := make([]serving.Call, len(calls))
	for i, c := range calls {
		cs[i] = serving.Call{ID: i, Prompt: c.tokens, Service: c.service}
		require.NoError(t, h.Submit(&cs[i], c.delay))
	}
	return env, h, log
}

// TestHostedFinish checks the API's figures at the end of an episode that
// stops with calls still queued or in flight, against the definitions:
// QueueMean = (∫ calls waiting dt)/T, BatchMean = (∫ calls in flight dt)/T,
// Utilisation = BatchMean/Concurrency (0 with no cap), each integral worked
// out by hand from when each call arrives, is admitted and ends, cut at T.
// Finish also reports the admissions before T that no timer has reported
// yet, and none at T or later: Finish takes in the admissions before T.
func TestHostedFinish(t *testing.T) {
	const s = sim.Second
	for _, tc := range []struct {
		name         string
		cfg          serving.API
		calls        []apiCall
		end          sim.Time
		want         serving.Stats
		wantAdmitted int // Admitted callbacks up to and in Finish
	}{
		{
			// Both in flight over [0, 5s]: 2 on average, nothing waits.
			name: "no cap, two calls in flight", cfg: serving.API{},
			calls: []apiCall{{0, 10 * s, 1}, {0, 10 * s, 1}}, end: 5 * s,
			want: serving.Stats{BatchMean: 2}, wantAdmitted: 2,
		},
		{
			// Two in flight and the third waiting over [0, 5s].
			name: "cap 2, one call queued", cfg: serving.API{Concurrency: 2},
			calls: []apiCall{{0, 10 * s, 1}, {0, 10 * s, 1}, {0, 10 * s, 1}}, end: 5 * s,
			want: serving.Stats{Utilisation: 1, QueueMean: 1, BatchMean: 2}, wantAdmitted: 2,
		},
		{
			// Call 0 is in flight over [1s, 3s]; call 1 arrives at 2s,
			// waits to 3s and is in flight over [3s, 6.5s]; call 2 arrives
			// at 6s and waits to the end. Waiting: 1s + 0.5s; in flight:
			// 2s + 3.5s; over 6.5s.
			name: "cap 1, arrivals and ends inside", cfg: serving.API{Concurrency: 1},
			calls: []apiCall{{1 * s, 2 * s, 1}, {2 * s, 4 * s, 1}, {6 * s, 1 * s, 1}}, end: 6500 * sim.Millisecond,
			want:         serving.Stats{Utilisation: 5.5 / 6.5, QueueMean: 1.5 / 6.5, BatchMean: 5.5 / 6.5},
			wantAdmitted: 2,
		},
		{
			// One call in flight for 10s of 20s: half a call on average,
			// an eighth of the cap of four.
			name: "cap 4, partly used", cfg: serving.API{Concurrency: 4},
			calls: []apiCall{{0, 10 * s, 1}}, end: 20 * s,
			want: serving.Stats{Utilisation: 0.125, BatchMean: 0.5}, wantAdmitted: 1,
		},
		{
			// No time has passed: no figures, rather than 0/0.
			name: "at time 0", cfg: serving.API{Concurrency: 1},
			calls: []apiCall{{0, 10 * s, 1}}, end: 0,
			want: serving.Stats{}, wantAdmitted: 0,
		},
		{
			// The call arrives and would be admitted at the end itself:
			// it neither waited nor was in flight before it.
			name: "admitted at the end", cfg: serving.API{},
			calls: []apiCall{{5 * s, 10 * s, 1}}, end: 5 * s,
			want: serving.Stats{}, wantAdmitted: 0,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, h, log := startHosted(t, tc.cfg, tc.calls)
			require.NoError(t, env.RunUntil(tc.end))
			got := h.Finish(tc.end)
			assert.InDelta(t, tc.want.Utilisation, got.Utilisation, 1e-12, "utilisation")
			assert.InDelta(t, tc.want.QueueMean, got.QueueMean, 1e-12, "queue")
			assert.InDelta(t, tc.want.BatchMean, got.BatchMean, 1e-12, "batch")
			n := 0
			for _, e := range log.events {
				require.NotContains(t, e, "fail")
				if strings.HasPrefix(e, "admit ") {
					n++
				}
			}
			assert.Equal(t, tc.wantAdmitted, n, "admissions reported: %q", log.events)
		})
	}
}

// TestHostedCallbackOrder: with a cap of one, the calls 0 (0.5s), 1 (1s),
// 2 and 3 (no time at all) sent together are admitted at 0, 0.5s, 1.5s
// and 1.5s. Admissions are reported at the timer, the first end after
// them; at an instant the ends free their places one by one, each to the
// first call waiting, which is admitted before its predecessor's client
// goes on (Done). So at 1.5s call 2 takes call 1's place, then call 3
// takes call 2's: no admission comes before the end that frees its place.
func TestHostedCallbackOrder(t *testing.T) {
	const ms = sim.Millisecond
	env, _, log := startHosted(t, serving.API{Concurrency: 1},
		[]apiCall{{0, 500 * ms, 1}, {0, 1000 * ms, 1}, {0, 0, 1}, {0, 0, 1}})
	require.NoError(t, env.Run())
	assert.Equal(t, []string{
		admitted(0, 0),
		admitted(1, 500*ms),
		done(0, 500*ms),
		admitted(2, 1500*ms),
		done(1, 1500*ms),
		admitted(3, 1500*ms),
		done(2, 1500*ms),
		done(3, 1500*ms),
	}, log.events)
}

// TestHostedLenInDone: Len counts the calls sent and not done, so a
// client told that a call is done no longer finds it there.
func TestHostedLenInDone(t *testing.T) {
	env, h, log := startHosted(t, serving.API{}, []apiCall{{0, sim.Second, 1}, {0, 2 * sim.Second, 1}})
	require.Equal(t, 2, h.Len())
	var lens []int
	log.onDone = func(int) { lens = append(lens, h.Len()) }
	require.NoError(t, env.Run())
	assert.Equal(t, []int{1, 0}, lens, "in Done of the first call, then of the second")
	assert.Zero(t, h.Len())
}

// TestHostedRequestLimitDelaysTokens: a call that the token bucket lets
// in at once but the request bucket holds back takes its tokens at its
// admission, not when it was first asked for. By hand, with RPM 2 (two
// requests, one more every 30s) and TPM 60 (60 tokens, one more a second):
// calls 0 and 1 of one token each take both requests at 0, leaving 58
// tokens. Call 2 (50 tokens) waits for a request until 30s and takes its
// tokens then, from a bucket full again: 10 left. Call 3 (60 tokens) has
// its request at 60s but its tokens only at 30s + 50s = 80s. Had call 2
// taken its tokens at 0, the bucket would hold 60 by 52s and call 3 would
// go at 60s.
func TestHostedRequestLimitDelaysTokens(t *testing.T) {
	const s = sim.Second
	env, _, log := startHosted(t, serving.API{RPM: 2, TPM: 60},
		[]apiCall{{0, 0, 1}, {0, 0, 1}, {0, 0, 50}, {0, 0, 60}})
	require.NoError(t, env.Run())
	assert.Equal(t, []string{
		admitted(0, 0), admitted(1, 0), done(0, 0), done(1, 0),
		admitted(2, 30*s), done(2, 30*s),
		admitted(3, 80*s), done(3, 80*s),
	}, log.events)
}
