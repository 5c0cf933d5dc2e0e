package sim

import "math/rand/v2"

// Streams derives independent random streams from one master seed.
//
// Each stream is named by a purpose and an entity number ("work", agent 7),
// and its seed depends only on the master seed and that name. Adding an
// agent, a message or a whole purpose therefore leaves every other stream's
// draws unchanged: the common random numbers that make variants comparable
// and counterfactual replays meaningful.
//
// The zero Streams is the master seed 0.
type Streams struct {
	seed uint64
}

// NewStreams returns the streams of a master seed.
func NewStreams(seed uint64) Streams { return Streams{seed: seed} }

// Seed returns the master seed.
func (s Streams) Seed() uint64 { return s.seed }

// Derive returns the streams of a sub-experiment, such as one episode: a
// family of streams as independent of s's own as s's are of each other.
func (s Streams) Derive(purpose string, id uint64) Streams {
	a, _ := s.key(purpose, id)
	return Streams{seed: a}
}

// New returns a fresh PCG generator for (purpose, id). Two calls with the
// same arguments return generators that produce the same numbers.
func (s Streams) New(purpose string, id uint64) *rand.Rand {
	return rand.New(s.PCG(purpose, id))
}

// PCG returns the source behind New.
func (s Streams) PCG(purpose string, id uint64) *rand.PCG {
	a, b := s.key(purpose, id)
	return rand.NewPCG(a, b)
}

// Reseed puts pcg in the state that PCG(purpose, id) starts in, so that a
// caller that draws many streams in turn can keep one generator instead
// of allocating one a stream.
func (s Streams) Reseed(pcg *rand.PCG, purpose string, id uint64) {
	pcg.Seed(s.key(purpose, id))
}

// key hashes (seed, purpose, id) with FNV-1a (the bytes of seed, purpose,
// len(purpose) and id, integers little-endian) and spreads the result with
// SplitMix64 into the two words a PCG needs. FNV-1a is written out rather
// than taken from hash/fnv: the same numbers, without a hash.Hash per key
// (an episode derives several).
func (s Streams) key(purpose string, id uint64) (uint64, uint64) {
	h := fnvWord(fnvOffset, s.seed)
	for i := range len(purpose) {
		h ^= uint64(purpose[i])
		h *= fnvPrime
	}
	h = fnvWord(h, uint64(len(purpose)))
	h = fnvWord(h, id)
	x := h
	return splitmix(&x), splitmix(&x)
}

// FNV-1a's 64-bit parameters.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvWord continues the FNV-1a hash h with the eight bytes of v, low byte
// first: the byte loop written out, since a key is derived several times
// an episode and the loop's counter and shifts cost as much as the hash.
func fnvWord(h, v uint64) uint64 {
	h = (h ^ v&0xff) * fnvPrime
	h = (h ^ v>>8&0xff) * fnvPrime
	h = (h ^ v>>16&0xff) * fnvPrime
	h = (h ^ v>>24&0xff) * fnvPrime
	h = (h ^ v>>32&0xff) * fnvPrime
	h = (h ^ v>>40&0xff) * fnvPrime
	h = (h ^ v>>48&0xff) * fnvPrime
	return (h ^ v>>56) * fnvPrime
}

func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Key names one purpose of a Streams ("attempt outcome", "check") for
// counter-based draws: Float64(a, b, c) is a pure function of the master
// seed, the purpose and the three counters. It needs no generator state, so
// the draw for "attempt 2 of subtask 17 in episode 5" is the same however
// many other draws happened before it: common random numbers at the finest
// grain, with no allocation.
type Key struct{ k uint64 }

// Key returns the counter-based stream of a purpose.
func (s Streams) Key(purpose string) Key {
	a, _ := s.key(purpose, 0)
	return Key{k: a}
}

// Uint64 returns the draw for counters (a, b, c).
func (k Key) Uint64(a, b, c uint64) uint64 {
	x := k.k ^ a*0x9e3779b97f4a7c15
	v := splitmix(&x)
	x = v ^ b*0xc2b2ae3d27d4eb4f
	v = splitmix(&x)
	x = v ^ c*0x165667b19e3779f9
	return splitmix(&x)
}

// Float64 returns a uniform draw in [0, 1) for counters (a, b, c).
func (k Key) Float64(a, b, c uint64) float64 {
	return float64(k.Uint64(a, b, c)>>11) / (1 << 53)
}

// Source is a math/rand/v2 Source for counter-based draws that take more
// than one number (a normal by the ziggurat, which rejects now and then):
// Seed names the draw with one Key.Uint64, and the source goes on from
// there with SplitMix64. Naming a draw costs one hash, where seeding a PCG
// from a Key costs two. Its zero value yields SplitMix64 from state 0.
type Source struct{ x uint64 }

// Seed starts the draw for counters (a, b, c) of k: the numbers that follow
// are a pure function of the master seed, the purpose and the counters.
func (s *Source) Seed(k Key, a, b, c uint64) { s.x = k.Uint64(a, b, c) }

// Uint64 returns the draw's next number.
func (s *Source) Uint64() uint64 { return splitmix(&s.x) }
