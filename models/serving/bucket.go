package serving

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/swarmsim/swarmsim/sim"
)

// TokenBucket is a rate limiter: a bucket that holds at most a capacity of
// tokens, gains tokens continuously at a rate, and starts full. Taking n
// tokens needs n in the bucket. Over any window of length w it therefore
// lets at most capacity + rate·w tokens through.
//
// The arithmetic is exact: the level is kept in integer fractions of a
// token fine enough that the bucket gains a whole number of them every
// nanosecond, so that no rounding can let a token through early. A bucket
// is plain state, not tied to an Env: its owner asks when tokens will be
// available and schedules its own wake-up.
type TokenBucket struct {
	scale    int64 // fractions per token
	gain     int64 // fractions gained per nanosecond
	capacity int64 // in fractions
	tokens   int64 // capacity in whole tokens, the most one request may take
	level    int64 // in fractions, as of at
	at       sim.Time
}

// NewTokenBucket returns a full bucket of capacity tokens that gains rate
// tokens every per. rate, per and capacity must be positive, and
// capacity·per/gcd(rate, per) must fit in an int64 (it does for any
// capacity up to 150 million tokens per minute).
func NewTokenBucket(rate int64, per sim.Time, capacity int64) (*TokenBucket, error) {
	b := &TokenBucket{}
	if err := b.Reset(rate, per, capacity); err != nil {
		return nil, err
	}
	return b, nil
}

// Reset makes b the full bucket NewTokenBucket(rate, per, capacity) would
// return, at time 0; on error b is unchanged.
func (b *TokenBucket) Reset(rate int64, per sim.Time, capacity int64) error {
	if rate <= 0 || per <= 0 || capacity <= 0 {
		return fmt.Errorf("serving: token bucket: rate %d per %v with capacity %d (all must be positive)", rate, per, capacity)
	}
	g := gcd(rate, int64(per))
	scale, gain := int64(per)/g, rate/g
	if capacity > math.MaxInt64/scale {
		return fmt.Errorf("serving: token bucket: capacity %d at %d per %v is too fine to count exactly", capacity, rate, per)
	}
	*b = TokenBucket{scale: scale, gain: gain, capacity: capacity * scale, tokens: capacity, level: capacity * scale}
	return nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ErrTooLarge is returned by TokenBucket.Ready for a request of more tokens
// than the bucket can hold: it could never be granted.
var ErrTooLarge = errors.New("more tokens than the bucket holds")

// refill brings the level up to now. Times before the last refill are
// treated as that time, so that the level never goes backwards.
func (b *TokenBucket) refill(now sim.Time) {
	if now <= b.at {
		return
	}
	// dt·gain in 128 bits: it fills the room or fits in an int64.
	hi, lo := bits.Mul64(uint64(now-b.at), uint64(b.gain))
	b.at = now
	if room := b.capacity - b.level; hi != 0 || lo >= uint64(room) {
		b.level = b.capacity
		return
	}
	b.level += int64(lo)
}

// Ready returns the earliest time, now or later, at which the bucket will
// hold n tokens if nobody else takes any. It returns ErrTooLarge when n
// exceeds the capacity. Ready costs O(1).
func (b *TokenBucket) Ready(now sim.Time, n int64) (sim.Time, error) {
	if n > b.tokens {
		return sim.MaxTime, fmt.Errorf("%w: %d needed, %d held at most", ErrTooLarge, n, b.tokens)
	}
	b.refill(now)
	need := n*b.scale - b.level
	if need <= 0 {
		return max(now, b.at), nil
	}
	return max(now, b.at) + sim.Time((need+b.gain-1)/b.gain), nil
}

// TakeReady takes n tokens at time now if the bucket holds them then, and
// reports that it did, with the time Ready returns; otherwise it takes
// none and returns when the bucket will hold them, as Ready does. It is
// Ready and then Take when Ready's answer is now, at the cost of one: for
// an owner whose bucket is seldom short. n must be at most the capacity
// (Holds), where Ready returns ErrTooLarge.
func (b *TokenBucket) TakeReady(now sim.Time, n int64) (sim.Time, bool) {
	b.refill(now)
	need := n*b.scale - b.level
	if need <= 0 {
		b.level -= n * b.scale
		return max(now, b.at), true
	}
	return max(now, b.at) + sim.Time((need+b.gain-1)/b.gain), false
}

// Holds reports whether n tokens fit in the bucket: whether they can ever
// be taken.
func (b *TokenBucket) Holds(n int64) bool { return n <= b.tokens }

// Take removes n tokens at time now if the bucket holds them, and reports
// whether it did. Take costs O(1).
func (b *TokenBucket) Take(now sim.Time, n int64) bool {
	b.refill(now)
	if n < 0 || n > b.tokens || n*b.scale > b.level {
		return false
	}
	b.level -= n * b.scale
	return true
}

// Level returns the tokens in the bucket at time now (a fraction when the
// bucket is refilling).
func (b *TokenBucket) Level(now sim.Time) float64 {
	b.refill(now)
	return float64(b.level) / float64(b.scale)
}

// BucketMark is a bucket's state at one moment (Mark), to put it back to
// (Restore): an owner that plans ahead on a bucket undoes a plan with it.
type BucketMark struct {
	level int64
	at    sim.Time
}

// Mark returns the bucket's state now.
func (b *TokenBucket) Mark() BucketMark { return BucketMark{level: b.level, at: b.at} }

// Restore puts the bucket back to the state m that Mark returned, since
// its last Reset: whatever was taken and refilled after is undone.
func (b *TokenBucket) Restore(m BucketMark) { b.level, b.at = m.level, m.at }
