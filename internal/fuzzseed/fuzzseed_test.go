package fuzzseed

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSON: lists are cut at every depth, documents past n are dropped,
// and numbers keep the digits they were written with.
func TestJSON(t *testing.T) {
	got, err := JSON([]byte(`{"a": [1, 2, 3], "b": {"c": [[1, 2, 3], 4, 5]}}
{"n": 12345678901234567890123}
{"dropped": true}`), 2)
	require.NoError(t, err)
	require.Equal(t, "{\"a\":[1,2],\"b\":{\"c\":[[1,2],4]}}\n{\"n\":12345678901234567890123}\n", string(got))
	_, err = JSON([]byte(`{"a": `), 2)
	require.Error(t, err)
}
