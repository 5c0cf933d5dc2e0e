package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNeverDelegate: the hand-off reason names each organization once, as
// a list read aloud.
func TestNeverDelegate(t *testing.T) {
	const tail = ", so no hand-off can be misunderstood (centralized, decentralized, hybrid, split and team do)"
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{[]string{"sequential"}, `the fixed organization "sequential" never delegates`},
		{[]string{"independent", "sequential"}, `the fixed organizations "independent" and "sequential" never delegate`},
		{[]string{"a", "b", "c"}, `the fixed organizations "a", "b" and "c" never delegate`},
	} {
		assert.Equal(t, tt.want+tail, neverDelegate(tt.names))
	}
}
