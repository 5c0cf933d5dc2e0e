package calibrate_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/calibrate"
	"github.com/swarmsim/swarmsim/internal/shareddata"
	"github.com/swarmsim/swarmsim/rundir"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sharedTraces returns the recorded runs' folder, or skips.
func sharedTraces(t *testing.T) string {
	dir, ok := shareddata.Find("agent-traces", "any-agent")
	if !ok {
		t.Skip("shared/data/agent-traces is not beside the repository")
	}
	return dir
}

// Frameworks of the recorded runs: fitting on some and checking on the
// others shows what a fit does on traces it has never seen.
var frameworks = []string{"agno", "google", "langchain", "openai"}

// independent runs testdata/independent.py (a parse with Python's json
// module) on files and returns per file: calls, tools, call ns, tool ns.
func independent(t *testing.T, files []string) map[string][4]int64 {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	out, err := exec.Command(py, append([]string{"testdata/independent.py"}, files...)...).Output()
	require.NoError(t, err)
	got := map[string][4]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		require.Len(t, f, 5, line)
		var v [4]int64
		for i := range v {
			v[i], err = strconv.ParseInt(f[i+1], 10, 64)
			require.NoError(t, err)
		}
		got[f[0]] = v
	}
	return got
}

// TestEveryCallRead requires Load to read, framework by framework (each
// held out from the others), every model and tool call that an
// independent parse finds: the same counts and the same summed durations
// (to the nanosecond, summed per file).
func TestEveryCallRead(t *testing.T) {
	root := sharedTraces(t)
	for _, fw := range frameworks {
		t.Run(fw, func(t *testing.T) {
			checkAgainstIndependent(t, filepath.Join(root, fw))
		})
	}
	t.Run("multiagent", func(t *testing.T) {
		checkAgainstIndependent(t, "testdata/multiagent.otlp.json")
		checkAgainstIndependent(t, "testdata/multiagent.python.json")
	})
}

func checkAgainstIndependent(t *testing.T, path string) {
	files := []string{path}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "*.json"))
	}
	want := independent(t, files)
	var calls, tools, callNS, toolNS int64
	for _, v := range want {
		calls += v[0]
		tools += v[1]
		callNS += v[2]
		toolNS += v[3]
	}
	tr, err := calibrate.Load([]string{path})
	require.NoError(t, err)
	assert.EqualValues(t, calls, len(tr.Calls))
	assert.EqualValues(t, tools, len(tr.Tools))
	var gotCall, gotTool float64
	for _, c := range tr.Calls {
		gotCall += c.Duration
	}
	for _, c := range tr.Tools {
		gotTool += c.Duration
	}
	// Durations are float seconds of whole nanoseconds: their sum is exact
	// to well under a microsecond for these sizes.
	assert.InDelta(t, float64(callNS)/1e9, gotCall, 1e-6)
	assert.InDelta(t, float64(toolNS)/1e9, gotTool, 1e-6)
	assert.Greater(t, calls, int64(0))
}

// TestGoldenFit compares fit.csv of all the recorded runs with
// testdata/any-agent.fit.csv.golden. Rewrite it with
//
//	go test ./calibrate -run TestGoldenFit -update
func TestGoldenFit(t *testing.T) {
	tr, err := calibrate.Load([]string{sharedTraces(t)})
	require.NoError(t, err)
	f, err := calibrate.FitAll(tr)
	require.NoError(t, err)
	h, rows := f.Rows()
	got := rundir.CSV(h, rows)
	golden := filepath.Join("testdata", "any-agent.fit.csv.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	// What the data's README says: mistral's tail is heavy (p90 ≈ 18 s
	// against a median ≈ 1 s), and the fit chooses a mixture for it.
	assert.True(t, bytes.Contains(got, []byte("model/mistral/mistral-small-latest/latency_s,lognormal-mixture")))
	for _, m := range f.Models {
		if m.Model == "mistral/mistral-small-latest" {
			assert.Equal(t, calibrate.Mixture, m.Latency.Best().Family)
		}
	}
}
