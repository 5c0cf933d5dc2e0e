package plots

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/race"
)

// TestFiguresEncodedAsSaveWrites: every PNG under docs/figures is encoded
// as Save encodes its pixels today, so the README's figures commands
// rewrite a committed PNG only when its pixels change. After a change to
// encodePNG, re-encode them (decode, encodePNG, write back).
//
// It runs on one goroutine, where the race detector finds nothing, and
// re-encodes forty large images: it skips under the detector.
func TestFiguresEncodedAsSaveWrites(t *testing.T) {
	if race.Enabled {
		t.Skip("one goroutine: nothing for the race detector (go test ./plots runs it)")
	}
	files, err := filepath.Glob(filepath.Join("..", "docs", "figures", "*.png"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			img, err := png.Decode(bytes.NewReader(b))
			require.NoError(t, err)
			again, err := encodePNG(img)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(b, again), "%s is not encoded as Save writes its pixels", f)
		})
	}
}
