package experiment

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFileName(t *testing.T) {
	assert.Equal(t, "team", FileName("team"))
	assert.Equal(t, "a_b_c", FileName("a/b c"))
	assert.Equal(t, "_..", FileName(".."))
	assert.Equal(t, "_", FileName(""))
}
