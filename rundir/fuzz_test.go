package rundir_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/rundir"
)

// FuzzParseTable: any bytes give a table or an error naming the file,
// never a panic, and every parsed row has the header's width. A cell
// that is not a number is refused with the file and the line its row
// starts on, which a quoted field holding newlines moves down.
func FuzzParseTable(f *testing.F) {
	f.Add([]byte("variant,x\nv,1\n"))
	f.Add([]byte("a,b\n1\n"))
	f.Add([]byte(`"unterminated`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := rundir.ParseTable("t.csv", data)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "t.csv: "), "%v", err)
			return
		}
		lines := rowLines(t, data)
		for i, r := range tab.Rows {
			if len(r) != len(tab.Header) {
				t.Fatalf("row %d has %d cells for %d columns", i, len(r), len(tab.Header))
			}
			for c := range r {
				if _, err := tab.Float(i, c); err != nil {
					require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("t.csv:%d: column ", lines[i+1])), "%v", err)
				}
			}
		}
	})
}

// rowLines returns the line each record of the CSV data starts on,
// counted from the newlines before its first byte (past the blank lines
// that the reader skips), not from the reader's own positions.
func rowLines(t *testing.T, data []byte) []int {
	r := csv.NewReader(bytes.NewReader(data))
	var lines []int
	start := 0
	for {
		if _, err := r.Read(); err != nil {
			return lines
		}
		for start < len(data) && (data[start] == '\n' || data[start] == '\r' && start+1 < len(data) && data[start+1] == '\n') {
			start++
		}
		lines = append(lines, 1+bytes.Count(data[:start], []byte("\n")))
		start = int(r.InputOffset())
	}
}

// FuzzParseManifest: any bytes give a manifest or an error that starts
// with the manifest's path, never a panic. A manifest read has one of the
// kinds the commands dispatch on, inferred from its files when it had none,
// and reads back the same once written again, kind included.
func FuzzParseManifest(f *testing.F) {
	// A manifest as Commit writes it.
	dir := filepath.Join(f.TempDir(), "out")
	d, err := rundir.Create(dir, false)
	require.NoError(f, err)
	for _, name := range []string{"summary.csv", "episodes.csv"} {
		require.NoError(f, d.Write(name, []byte("variant\nv\n")))
	}
	require.NoError(f, d.Commit(&rundir.Manifest{
		Kind: rundir.KindRun, Scenario: "s", Description: "a run", Source: "s.yaml", Hash: "sha256:0123", Seed: 3,
		Episodes: 4, Variants: []string{"a", "b"}, SwarmsimVersion: "v1.2.3", GoVersion: "go1.26",
		Command: []string{"simulate", "run", "s.yaml"}, Resolved: "name: s\n",
	}))
	committed, err := os.ReadFile(filepath.Join(dir, rundir.ManifestName))
	require.NoError(f, err)
	f.Add(committed)
	f.Add([]byte(`{"files": ["iterations.csv", "summary.csv"]}`)) // before kinds were recorded
	f.Add([]byte(`{"kind": "replay", "files": ["replay.csv", "summary.csv"]}`))
	f.Add([]byte(`{"kind": "walk"}`))
	f.Add([]byte(`{"files": ["x.txt"]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{`))
	kinds := []rundir.Kind{rundir.KindRun, rundir.KindTrain, rundir.KindSweep, rundir.KindFit, rundir.KindCompare, rundir.KindReplay}
	const path = "out/manifest.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := rundir.ParseManifest(path, data)
		if err != nil {
			require.Nil(t, m)
			require.True(t, strings.HasPrefix(err.Error(), path+": "), "%v", err)
			return
		}
		require.True(t, slices.Contains(kinds, m.Kind), "kind %q", m.Kind)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		back, err := rundir.ParseManifest(path, b)
		require.NoError(t, err, "%s", b)
		require.Equal(t, m, back)
	})
}
