package policy

import (
	"math"

	c "github.com/swarmsim/swarmsim/models/collective"
)

// The features, in order. Each lies roughly in [0, 1] (counts are
// log1p-scaled and may exceed 1 for large collectives). The products at
// the end let a linear policy express conjunctions such as "delegate when
// there is more than one ready subtask and a helper to give it to".
const (
	fBias              = iota // 1
	fMain                     // the agent is the main agent
	fAlone                    // the agent works an independent attempt alone
	fTimeUsed                 // elapsed over the time limit, clamped to [0, 2]
	fLogElapsed               // log1p(elapsed/60 s)/5, clamped to [0, 4]
	fProgress                 // fraction of the task's work released
	fReadyFrac                // min(ready, 8)/8
	fLogReady                 // log1p(ready)/3
	fLogBusy                  // log1p(busy)/3
	fLogIdle                  // log1p(idle)/3
	fLogFree                  // log1p(free)/3
	fUnread                   // unread > 0
	fLogAttempts              // log1p(attempts)/3
	fLogPending               // log1p(pending)/3
	fUnchecked                // holds an unverified part
	fUnshared                 // holds findings not yet shared
	fCoupling                 // coupling ahead, clamped to [0, 1]
	fLogNextWork              // log1p(next work / mean work), clamped to [0, 4]
	fLogRetries               // log1p(retries)/2
	fComplete                 // every subtask released
	fHasReady                 // ready > 0
	fReady2Helper             // ready > 1 and (idle + free) > 0
	fReady2Time               // (ready > 1) × time used
	fUncheckedCoupling        // unchecked × coupling
	fUnsharedCoupling         // unshared × coupling
	fUncheckedTime            // unchecked × time used
	fMainStart                // main agent at time 0
	fCompleteNoPending        // complete and no independent attempt pending

	// The task's kind, one-hot in the order of task.Kinds; all 0 for a
	// task drawn without a kind, so that a policy trained on such tasks
	// never moves its weights on them (their gradient is 0).
	fKindDecomposable
	fKindNavigation
	fKindSequential
	fKindToolHeavy

	// NumFeatures is the length of the feature vector.
	NumFeatures = iota
)

// numKinds is the number of task kinds the kind features cover, and
// numBase the number of features before them: the features of a policy
// file that has no weight on a kind (see Save).
const (
	numKinds = NumFeatures - fKindDecomposable
	numBase  = fKindDecomposable
)

var featureNames = [NumFeatures]string{
	fBias:              "bias",
	fMain:              "main",
	fAlone:             "alone",
	fTimeUsed:          "time_used",
	fLogElapsed:        "log_elapsed",
	fProgress:          "progress",
	fReadyFrac:         "ready_frac",
	fLogReady:          "log_ready",
	fLogBusy:           "log_busy",
	fLogIdle:           "log_idle",
	fLogFree:           "log_free",
	fUnread:            "unread",
	fLogAttempts:       "log_attempts",
	fLogPending:        "log_pending",
	fUnchecked:         "unchecked",
	fUnshared:          "unshared",
	fCoupling:          "coupling",
	fLogNextWork:       "log_next_work",
	fLogRetries:        "log_retries",
	fComplete:          "complete",
	fHasReady:          "has_ready",
	fReady2Helper:      "ready2_x_helper",
	fReady2Time:        "ready2_x_time_used",
	fUncheckedCoupling: "unchecked_x_coupling",
	fUnsharedCoupling:  "unshared_x_coupling",
	fUncheckedTime:     "unchecked_x_time_used",
	fMainStart:         "main_x_start",
	fCompleteNoPending: "complete_x_no_pending",
	fKindDecomposable:  "kind_decomposable",
	fKindNavigation:    "kind_navigation",
	fKindSequential:    "kind_sequential",
	fKindToolHeavy:     "kind_tool_heavy",
}

// FeatureNames returns the names of the features, in order. They are
// written into policy files and checked when a file is loaded.
func FeatureNames() []string { return append([]string(nil), featureNames[:]...) }

// Features writes the normalised features of o into dst. NaN fields count
// as 0 and every float field is clamped, so the features are always
// finite. It does not allocate.
func Features(o *c.Observation, dst *[NumFeatures]float64) {
	timeUsed := clamp(o.TimeUsed, 0, 2)
	coupling := clamp(o.Coupling, 0, 1)
	unchecked := b2f(o.Unchecked)
	unshared := b2f(o.Unshared)
	ready2 := b2f(o.Ready > 1)

	dst[fBias] = 1
	dst[fMain] = b2f(o.Main)
	dst[fAlone] = b2f(o.Alone)
	dst[fTimeUsed] = timeUsed
	dst[fLogElapsed] = clamp(math.Log1p(clamp(o.Elapsed, 0, math.MaxFloat64)/60)/5, 0, 4)
	dst[fProgress] = clamp(o.Progress, 0, 1)
	dst[fReadyFrac] = float64(min(max(o.Ready, 0), 8)) / 8
	dst[fLogReady] = thirds.of(o.Ready)
	dst[fLogBusy] = thirds.of(o.Busy)
	dst[fLogIdle] = thirds.of(o.Idle)
	dst[fLogFree] = thirds.of(o.Free)
	dst[fUnread] = b2f(o.Unread > 0)
	dst[fLogAttempts] = thirds.of(o.Attempts)
	dst[fLogPending] = thirds.of(o.Pending)
	dst[fUnchecked] = unchecked
	dst[fUnshared] = unshared
	dst[fCoupling] = coupling
	dst[fLogNextWork] = clamp(math.Log1p(clamp(o.NextWork, 0, math.MaxFloat64)), 0, 4)
	dst[fLogRetries] = halves.of(o.Retries)
	dst[fComplete] = b2f(o.Complete)
	dst[fHasReady] = b2f(o.Ready > 0)
	dst[fReady2Helper] = ready2 * b2f(o.Idle+o.Free > 0)
	dst[fReady2Time] = ready2 * timeUsed
	dst[fUncheckedCoupling] = unchecked * coupling
	dst[fUnsharedCoupling] = unshared * coupling
	dst[fUncheckedTime] = unchecked * timeUsed
	dst[fMainStart] = b2f(o.Main && o.Elapsed == 0)
	dst[fCompleteNoPending] = b2f(o.Complete && o.Pending == 0)
	for k := range numKinds {
		dst[fKindDecomposable+k] = b2f(o.Kind == k+1)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// clamp limits v to [lo, hi]; NaN becomes lo.
func clamp(v, lo, hi float64) float64 {
	switch {
	case !(v >= lo): // also NaN
		return lo
	case v > hi:
		return hi
	}
	return v
}

// countScale is log1p(n)/div for counts n: the features of counts.
type countScale struct {
	div   float64
	small [64]float64 // log1p(n)/div for small n, worked out once
}

// Counts' features are log1p(n)/3, retries' log1p(n)/2.
var thirds, halves = newCountScale(3), newCountScale(2)

func newCountScale(div float64) *countScale {
	s := &countScale{div: div}
	for n := range s.small {
		s.small[n] = math.Log1p(float64(n)) / div
	}
	return s
}

// of is log1p(n)/div, with negative counts as 0. Small counts, the common
// case, read it from the table: the same values, without a logarithm or a
// division per feature. The rest is in large, so that of is inlined.
func (s *countScale) of(n int) float64 {
	if uint(n) < uint(len(s.small)) {
		return s.small[n]
	}
	return s.large(n)
}

// large is of for counts beyond the table, and negative ones.
func (s *countScale) large(n int) float64 {
	n = max(n, 0)
	if n < len(s.small) {
		return s.small[n]
	}
	return math.Log1p(float64(n)) / s.div
}
