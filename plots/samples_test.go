package plots_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/plots"
)

var samples = flag.String("samples", "", "write every chart at every size into this directory, to look at")

// TestSamples renders the fixtures for people to look at:
//
//	go test ./plots -run TestSamples -samples=/tmp/charts
func TestSamples(t *testing.T) {
	if *samples == "" {
		t.Skip("no -samples directory")
	}
	require.NoError(t, os.MkdirAll(*samples, 0o755))
	for sizeName, size := range map[string]plots.Size{"column": plots.Column, "page": plots.Page, "tall": plots.Tall} {
		charts, err := buildAll(size)
		require.NoError(t, err)
		for _, c := range charts {
			require.NoError(t, plots.Save(c.plot, size, filepath.Join(*samples, c.name+"_"+sizeName), c.table))
		}
	}
}
