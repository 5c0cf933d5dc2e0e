package sim

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
)

// TestStreamsKeyIsFNV1a checks the written-out FNV-1a against hash/fnv, so
// that every stream keeps its numbers.
func TestStreamsKeyIsFNV1a(t *testing.T) {
	for _, tt := range []struct {
		seed    uint64
		purpose string
		id      uint64
	}{{0, "", 0}, {1, "outcome", 7}, {^uint64(0), "rollout", 1 << 40}, {12345, "a much longer purpose name", 3}} {
		h := fnv.New64a()
		var buf [8]byte
		put := func(v uint64) {
			binary.LittleEndian.PutUint64(buf[:], v)
			h.Write(buf[:])
		}
		put(tt.seed)
		h.Write([]byte(tt.purpose))
		put(uint64(len(tt.purpose)))
		put(tt.id)
		x := h.Sum64()
		wa, wb := splitmix(&x), splitmix(&x)
		a, b := Streams{seed: tt.seed}.key(tt.purpose, tt.id)
		if a != wa || b != wb {
			t.Errorf("key(%d, %q, %d) = %x, %x; FNV-1a gives %x, %x", tt.seed, tt.purpose, tt.id, a, b, wa, wb)
		}
	}
}
