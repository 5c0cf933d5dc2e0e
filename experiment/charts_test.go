package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/results"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// TestTimelineRowsFit draws timelines of every team size a run may chart,
// with the widest row labels, at the size timelineSpec picks: each must
// fit, and a page must be too short for the first team drawn tall, or the
// tall size is not needed there.
func TestTimelineRowsFit(t *testing.T) {
	draw := func(rows int, size string) error {
		var spans []plots.Span
		for a := range rows {
			spans = append(spans, plots.Span{Row: agentRow(a), Start: float64(a), End: float64(a + 100), Kind: "work"})
		}
		spec := timelineSpec("timeline_agents", "agents-32", rows)
		if size != "" {
			spec.Size = size
		}
		_, err := plots.Draw(&spec, plots.TimelineTable(spans, nil))
		return err
	}
	for _, rows := range []int{1, pageTimelineRows, pageTimelineRows + 1, 32, maxTimelineRows} {
		assert.NoError(t, draw(rows, ""), "%d rows", rows)
	}
	assert.Equal(t, "page", timelineSpec("x", "v", pageTimelineRows).Size)
	assert.Equal(t, "tall", timelineSpec("x", "v", pageTimelineRows+1).Size)
	err := draw(maxTimelineRows, "page")
	require.Error(t, err, "%d rows fit a page: no timeline of a run needs the tall size", maxTimelineRows)
	assert.Contains(t, err.Error(), "overlaps")
}

// TestDrawAllWriteErrors: a chart whose data cannot be drawn is left
// out with a warning, but one whose files cannot be written (a full or
// read-only disk) fails DrawAll, so that no command commits a directory
// without its charts as complete.
func TestDrawAllWriteErrors(t *testing.T) {
	rows := []results.Comparison{{Variant: "a", Metric: "reward_mean", Diff: stats.Interval{Value: 1, Lo: 0.5, Hi: 1.5}}}
	good := CompareCharts(rows, "none", "high", true)
	require.Len(t, good, 1)
	for _, tc := range []struct {
		name     string
		draw     func(*ChartWriter) error
		noDir    bool // the charts directory is a file by the time of drawing
		warnings []string
		err      string
	}{
		{name: "data", draw: func(*ChartWriter) error { return errors.New("no data") }, warnings: []string{"chart x left out: no data"}},
		{name: "disk full", draw: func(*ChartWriter) error {
			return fmt.Errorf("plots: writing x.pdf: %w", &fs.PathError{Op: "write", Path: "x.pdf", Err: syscall.ENOSPC})
		}, err: "no space left on device"},
		{name: "not a directory", draw: good[0].Draw, noDir: true, err: "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := rundir.Create(filepath.Join(t.TempDir(), "out"), false)
			require.NoError(t, err)
			cw, err := NewChartWriter(dir, nil)
			require.NoError(t, err)
			if tc.noDir {
				require.NoError(t, os.Remove(dir.Join(ChartsDir)))
				require.NoError(t, os.WriteFile(dir.Join(ChartsDir), nil, 0o644))
			}
			warnings, err := cw.DrawAll(context.Background(), []Chart{{Name: "x", Draw: tc.draw}}, 1, nil)
			assert.Equal(t, tc.warnings, warnings)
			if tc.err == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tc.err)
			}
		})
	}
}

// TestChartWriterLeftOut: the charts left out, those noted before
// drawing (a sweep's heat map with an empty cell) and those DrawAll could
// not draw, are written a line each to charts/left_out.txt for the
// report; no file where none was left out.
func TestChartWriterLeftOut(t *testing.T) {
	rows := []results.Comparison{{Variant: "a", Metric: "reward_mean", Diff: stats.Interval{Value: 1, Lo: 0.5, Hi: 1.5}}}
	good := CompareCharts(rows, "none", "high", true)
	broken := Chart{Name: "x", Draw: func(*ChartWriter) error { return errors.New("no data") }}
	for _, tc := range []struct {
		name   string
		noted  []string
		charts []Chart
		want   string // "": no file
	}{
		{"none", nil, good, ""},
		{"noted and failed", []string{"chart y left out: a cell has no finite value"}, append([]Chart{broken}, good...),
			"chart y left out: a cell has no finite value\nchart x left out: no data\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := rundir.Create(filepath.Join(t.TempDir(), "out"), false)
			require.NoError(t, err)
			cw, err := NewChartWriter(dir, nil)
			require.NoError(t, err)
			cw.LeftOut(tc.noted...)
			_, err = cw.DrawAll(context.Background(), tc.charts, 1, nil)
			require.NoError(t, err)
			require.NoError(t, cw.Close())
			got, err := os.ReadFile(dir.Join(ChartsDir + "/" + LeftOutFile))
			if tc.want == "" {
				assert.ErrorIs(t, err, fs.ErrNotExist)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

// DrawAll gives the same files, index and warnings on any number of
// workers: each chart is drawn on its own and recorded in the order
// given, a chart that fails is left out with a warning in its place, and a
// Chart may draw more than one chart.
func TestDrawAllDoesNotDependOnWorkers(t *testing.T) {
	var rows []results.Comparison
	for i, m := range []string{"reward_mean", "latency_mean", "success_rate"} {
		for _, v := range []string{"a", "b", "c"} {
			d := float64(i + 1)
			rows = append(rows, results.Comparison{Variant: v, Metric: m, Diff: stats.Interval{Value: d, Lo: d - 0.5, Hi: d + 0.5}})
		}
	}
	charts := CompareCharts(rows, "none", "high", true)
	require.Len(t, charts, 3)
	charts = slices.Insert(charts, 2, Chart{Name: "broken", Draw: func(*ChartWriter) error { return errors.New("no data") }})
	other := map[string]string{"success_rate": "acceptable", "reward_mean": "reward", "latency_mean": "latency_p90"}
	for i := range rows {
		rows[i].Metric = other[rows[i].Metric]
	}
	others := CompareCharts(rows, "none", "high", true)
	first, second := others[0].Draw, others[1].Draw
	charts = append(charts, Chart{Name: "two", Draw: func(cw *ChartWriter) error {
		if err := first(cw); err != nil {
			return err
		}
		return second(cw)
	}})
	draw := func(workers int) (map[string]string, []string, []string) {
		dir, err := rundir.Create(filepath.Join(t.TempDir(), "charts"), false)
		require.NoError(t, err)
		cw, err := NewChartWriter(dir, nil)
		require.NoError(t, err)
		warnings, err := cw.DrawAll(context.Background(), charts, workers, nil)
		require.NoError(t, err)
		require.NoError(t, cw.Close())
		files := map[string]string{}
		require.NoError(t, filepath.WalkDir(dir.Path(), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				b, err := os.ReadFile(p)
				files[strings.TrimPrefix(p, dir.Path())] = string(b)
				return err
			}
			return err
		}))
		return files, warnings, dir.Files()
	}
	files, warnings, recorded := draw(1)
	specs, err := plots.ParseSpecs(ChartIndex, []byte(files["/charts/"+ChartIndex]))
	require.NoError(t, err)
	var indexed []string
	for _, s := range specs {
		indexed = append(indexed, s.Name)
	}
	assert.Equal(t, []string{charts[0].Name, charts[1].Name, charts[3].Name, others[0].Name, others[1].Name}, indexed,
		"the index lists the charts in their order, a Chart's two in theirs")
	assert.Equal(t, []string{"chart broken left out: no data"}, warnings)
	assert.Contains(t, files, "/charts/diff_reward_mean.png")
	assert.Contains(t, files, "/charts/diff_reward.png", "the second of a Chart's two")
	assert.Len(t, recorded, 5*4+2, "each chart's CSV, SVG, PDF and PNG, the index, and the note of the chart left out")
	f, w, r := draw(3)
	assert.Equal(t, files, f)
	assert.Equal(t, warnings, w)
	assert.Equal(t, recorded, r)
}

// A chart drawn twice under one name is one file drawn over the other:
// the writer refuses to index it, as 'simulate plot' would refuse to read
// the index back, and writes no index.
func TestChartWriterRefusesOneNameTwice(t *testing.T) {
	dir, err := rundir.Create(filepath.Join(t.TempDir(), "charts"), false)
	require.NoError(t, err)
	cw, err := NewChartWriter(dir, nil)
	require.NoError(t, err)
	spec := plots.Spec{Name: "finish_time", Kind: "bars", YLabel: "finish time (s)", Size: "page"}
	table := plots.BarsTable("mean", []plots.Bar{{Label: "team", Mean: 2, Lo: 1, Hi: 3}})
	require.NoError(t, cw.Draw(spec, table))
	require.NoError(t, cw.Draw(spec, table))
	assert.ErrorContains(t, cw.Close(), `charts/charts.json:8: chart 1: name "finish_time": an earlier chart has it`)
	assert.NoFileExists(t, dir.Join("charts/"+ChartIndex))
}
