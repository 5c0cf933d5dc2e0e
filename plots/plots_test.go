package plots_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/plots"
)

var (
	nan = math.NaN()
	inf = math.Inf(1)
)

func TestNewBandRejects(t *testing.T) {
	ok := []float64{0, 1, 2}
	for name, c := range map[string]struct{ x, lo, hi []float64 }{
		"empty":        {nil, nil, nil},
		"short lo":     {ok, []float64{0, 1}, ok},
		"long hi":      {ok, ok, []float64{0, 1, 2, 3}},
		"NaN x":        {[]float64{0, nan, 2}, ok, ok},
		"Inf lo":       {ok, []float64{0, -inf, 2}, ok},
		"NaN hi":       {ok, ok, []float64{0, 1, nan}},
		"x decreasing": {[]float64{0, 2, 1}, ok, ok},
		"lo above hi":  {ok, []float64{0, 1.5, 2}, ok},
	} {
		_, err := plots.NewBand(c.x, c.lo, c.hi)
		assert.Error(t, err, name)
	}
	b, err := plots.NewBand(ok, ok, []float64{1, 2, 3})
	require.NoError(t, err)
	ok[0] = 99
	assert.Equal(t, 0.0, b.X[0], "NewBand copies its input")
}

func TestNewGanttRejects(t *testing.T) {
	span := plots.Span{Row: "a", Start: 0, End: 1, Kind: "work"}
	with := func(f func(*plots.Span)) []plots.Span {
		s := span
		f(&s)
		return []plots.Span{s}
	}
	tooMany := make([]plots.Span, plots.MaxSeries+1)
	for i := range tooMany {
		tooMany[i] = plots.Span{Row: "a", Start: 0, End: 1, Kind: string(rune('a' + i))}
	}
	for name, c := range map[string]struct {
		spans []plots.Span
		flows []plots.Flow
	}{
		"no spans":       {nil, nil},
		"only flows":     {nil, []plots.Flow{{FromRow: "a", ToRow: "b", To: 1}}},
		"empty row":      {with(func(s *plots.Span) { s.Row = "" }), nil},
		"empty kind":     {with(func(s *plots.Span) { s.Kind = "" }), nil},
		"NaN start":      {with(func(s *plots.Span) { s.Start = nan }), nil},
		"Inf end":        {with(func(s *plots.Span) { s.End = inf }), nil},
		"ends early":     {with(func(s *plots.Span) { s.End = -1 }), nil},
		"too many kinds": {tooMany, nil},
		"flow backwards": {[]plots.Span{span}, []plots.Flow{{FromRow: "a", From: 2, ToRow: "b", To: 1}}},
		"flow NaN":       {[]plots.Span{span}, []plots.Flow{{FromRow: "a", From: nan, ToRow: "b", To: 1}}},
		"flow no row":    {[]plots.Span{span}, []plots.Flow{{FromRow: "a", ToRow: "", To: 1}}},
	} {
		_, err := plots.NewGantt(c.spans, c.flows)
		assert.Error(t, err, name)
	}
	// A zero-length span is an instant: allowed, drawn as a hairline.
	_, err := plots.NewGantt(with(func(s *plots.Span) { s.End = s.Start }), nil)
	assert.NoError(t, err)
}

func TestNewCIBarsRejects(t *testing.T) {
	for name, bars := range map[string][]plots.Bar{
		"none":        nil,
		"no label":    {{Mean: 1, Lo: 0, Hi: 2}},
		"NaN mean":    {{Label: "a", Mean: nan, Lo: 0, Hi: 2}},
		"Inf hi":      {{Label: "a", Mean: 1, Lo: 0, Hi: inf}},
		"mean above":  {{Label: "a", Mean: 3, Lo: 0, Hi: 2}},
		"mean below":  {{Label: "a", Mean: -1, Lo: 0, Hi: 2}},
		"lo above hi": {{Label: "a", Mean: 1, Lo: 2, Hi: 0}},
	} {
		_, err := plots.NewCIBars(bars)
		assert.Error(t, err, name)
	}
}

func TestHeatMapRejects(t *testing.T) {
	cm, err := plots.Viridis(0, 1)
	require.NoError(t, err)
	for name, g := range map[string]plots.Grid{
		"empty":       {},
		"no X":        {Y: []string{"1"}, Z: [][]float64{{}}},
		"rows":        {X: []string{"1"}, Y: []string{"1", "2"}, Z: [][]float64{{1}}},
		"ragged":      {X: []string{"1", "2"}, Y: []string{"1", "2"}, Z: [][]float64{{1, 2}, {1}}},
		"NaN Z":       {X: []string{"1"}, Y: []string{"1"}, Z: [][]float64{{nan}}},
		"Inf Hi":      {X: []string{"1"}, Y: []string{"1"}, Z: [][]float64{{1}}, Lo: [][]float64{{0}}, Hi: [][]float64{{inf}}},
		"Lo only":     {X: []string{"1"}, Y: []string{"1"}, Z: [][]float64{{1}}, Lo: [][]float64{{0}}},
		"Z above Hi":  {X: []string{"1"}, Y: []string{"1"}, Z: [][]float64{{3}}, Lo: [][]float64{{0}}, Hi: [][]float64{{2}}},
		"NaN Lo only": {X: []string{"1"}, Y: []string{"1"}, Z: [][]float64{{1}}, Lo: [][]float64{{nan}}, Hi: [][]float64{{2}}},
		"repeated Y":  {X: []string{"1"}, Y: []string{"2", "2"}, Z: [][]float64{{1}, {2}}},
		"repeated X2": {X: []string{"team", "split", "team"}, Y: []string{"1"}, Z: [][]float64{{1, 2, 3}}},
	} {
		_, err := plots.NewHeatMap(g, cm)
		assert.Error(t, err, name)
		_, err = plots.Heatmap(plots.Chart{XLabel: "x", YLabel: "y", ZLabel: "z"}, g)
		assert.Error(t, err, name)
	}
	_, err = plots.Viridis(1, 1)
	assert.Error(t, err)
	_, err = plots.Viridis(0, nan)
	assert.Error(t, err)
	_, err = plots.NewColorScale(nil, "z")
	assert.Error(t, err)
}

// TestDiffMapCellWithoutInterval: a cell whose Lo and Hi are both NaN has
// no interval: the map draws, that cell unmarked, the others as their
// intervals say, and its table writes NaN bounds for it.
func TestDiffMapCellWithoutInterval(t *testing.T) {
	g := plots.Grid{X: []string{"1", "2"}, Y: []string{"a"}, Z: [][]float64{{0.5, 0.5}},
		Lo: [][]float64{{nan, 0.2}}, Hi: [][]float64{{nan, 0.8}}}
	sides := plots.Sides{Low: "a better", High: "b better"}
	p, err := plots.DiffMap(plots.Chart{XLabel: "x", YLabel: "y", ZLabel: "z"}, g, sides)
	require.NoError(t, err)
	require.NotNil(t, p)
	tab := plots.GridTable(g)
	require.Len(t, tab.Rows, 2)
	assert.Equal(t, []string{"1", "a", "0.5", "NaN", "NaN"}, tab.Rows[0])
	assert.Equal(t, []string{"2", "a", "0.5", "0.2", "0.8"}, tab.Rows[1])
}

func TestLinesRejects(t *testing.T) {
	chart := plots.Chart{XLabel: "x (s)", YLabel: "y (m)"}
	s := func(name string) plots.Series {
		return plots.Series{Name: name, X: []float64{0, 1}, Y: []float64{1, 2}}
	}
	tooMany := make([]plots.Series, plots.MaxSeries+1)
	for i := range tooMany {
		tooMany[i] = s(string(rune('a' + i)))
	}
	for name, c := range map[string]struct {
		chart  plots.Chart
		series []plots.Series
	}{
		"none":          {chart, nil},
		"too many":      {chart, tooMany},
		"no X label":    {plots.Chart{YLabel: "y"}, []plots.Series{s("a")}},
		"no Y label":    {plots.Chart{XLabel: "x"}, []plots.Series{s("a")}},
		"unnamed":       {chart, []plots.Series{s("a"), s("")}},
		"repeated name": {chart, []plots.Series{s("a"), s("a")}},
		"empty":         {chart, []plots.Series{{Name: "a"}}},
		"short Y":       {chart, []plots.Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1}}}},
		"NaN Y":         {chart, []plots.Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, nan}}}},
		"Inf X":         {chart, []plots.Series{{Name: "a", X: []float64{0, inf}, Y: []float64{1, 2}}}},
		"X decreasing":  {chart, []plots.Series{{Name: "a", X: []float64{1, 0}, Y: []float64{1, 2}}}},
		"only Lo":       {chart, []plots.Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}, Lo: []float64{0, 1}}}},
		"Y outside band": {chart, []plots.Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2},
			Lo: []float64{0, 2.5}, Hi: []float64{2, 3}}}},
		"zero size": {plots.Chart{XLabel: "x", YLabel: "y", Size: plots.Size{Width: 100}}, []plots.Series{s("a")}},
	} {
		_, err := plots.Lines(c.chart, c.series)
		assert.Error(t, err, name)
	}
	_, err := plots.Lines(chart, []plots.Series{s("")})
	assert.NoError(t, err, "a lone series may be unnamed")
}

func TestBuildersNeedLabels(t *testing.T) {
	_, err := plots.Bars(plots.Chart{XLabel: "x"}, finishTimes())
	assert.Error(t, err)
	spans, flows := trace()
	_, err = plots.Timeline(plots.Chart{YLabel: "agent"}, spans, flows)
	assert.Error(t, err)
	_, err = plots.Heatmap(plots.Chart{XLabel: "x", YLabel: "y"}, sweepGrid())
	assert.Error(t, err)
}

func TestEveryChartFitsEverySize(t *testing.T) {
	for _, sz := range sizes {
		charts, err := buildAll(sz.size)
		require.NoError(t, err, sz.name)
		names := make([]string, len(charts))
		for i, c := range charts {
			names[i] = c.name
		}
		assert.Len(t, names, 11, "one chart per fixture")
	}
}

func TestTitleAndLoneBand(t *testing.T) {
	s := learningCurves()[0]
	s.Name = ""
	p, err := plots.Lines(plots.Chart{Title: "Learning curve", XLabel: "iteration", YLabel: "reward (points)"}, []plots.Series{s})
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, plots.Save(p, plots.Column, filepath.Join(dir, "a"), plots.LinesTable([]plots.Series{s})))
	svg, err := os.ReadFile(filepath.Join(dir, "a.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), ">Learning curve<")
	assert.Contains(t, string(svg), ">mean, 95% CI<", "the band is stated even without a name")

	s.Name = "team"
	p, err = plots.Lines(plots.Chart{XLabel: "iteration", YLabel: "reward (points)", Interval: "90% bootstrap CI"}, []plots.Series{s})
	require.NoError(t, err)
	require.NoError(t, plots.Save(p, plots.Column, filepath.Join(dir, "b"), plots.LinesTable([]plots.Series{s})))
	svg, err = os.ReadFile(filepath.Join(dir, "b.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), ">mean; band 90% bootstrap CI<")
}

func TestLongLabelDoesNotFit(t *testing.T) {
	series := []plots.Series{{X: []float64{0, 1}, Y: []float64{0, 1}}}
	long := plots.Chart{XLabel: "iteration", YLabel: strings.Repeat("reward ", 8) + "(points)", Size: plots.Column}
	_, err := plots.Lines(long, series)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not fit")

	// Built for a page, saved at column size: Save checks again and
	// writes nothing.
	long.Size = plots.Page
	p, err := plots.Lines(long, series)
	require.NoError(t, err)
	dir := t.TempDir()
	err = plots.Save(p, plots.Column, filepath.Join(dir, "long"), plots.LinesTable(series))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "clipped")
	assertNoFiles(t, dir)
}

func TestTextOutsideWindows1252(t *testing.T) {
	series := []plots.Series{{X: []float64{0, 1}, Y: []float64{0, 1}}}
	_, err := plots.Lines(plots.Chart{XLabel: "β", YLabel: "y"}, series)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Windows-1252")
	_, err = plots.Lines(plots.Chart{XLabel: "durée (µs)", YLabel: "gain ± 5 %"}, series)
	assert.NoError(t, err)
}

// TestDifferenceBars: a chart of differences reaches past its outermost
// whiskers, which would otherwise end on the axis, and labels 0, which
// gonum's ticks can miss (-0.25, -0.10, 0.05 over [-0.3, 0.1]), standing
// or lying (issue 26, item 6).
func TestDifferenceBars(t *testing.T) {
	for _, tc := range []struct {
		name string
		bars []plots.Bar
		zero string
	}{
		{"rewards", rewardDiffs(), "0.00"},
		{"zero missed", []plots.Bar{{Label: "a", Mean: -0.2, Lo: -0.3, Hi: -0.1}, {Label: "b", Mean: 0.05, Lo: 0, Hi: 0.1}}, "0.0"},
		{"seconds", []plots.Bar{{Label: "a", Mean: -2969, Lo: -6119, Hi: 181}, {Label: "b", Mean: 107, Lo: -83, Hi: 298}}, "0"},
		{"lying", append(longBars(), plots.Bar{Label: "a much longer label than fits", Mean: -2, Lo: -3, Hi: -1}), "0.0"},
		{"all above 0", finishTimes(), "0"}, // and not "-0"
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := plots.Bars(plots.Chart{YLabel: "difference (s)", Difference: true}, tc.bars)
			require.NoError(t, err)
			value := &p.Y
			if p.X.Label.Text == "difference (s)" {
				value = &p.X
			}
			lo, hi := 0.0, 0.0
			for _, b := range tc.bars {
				lo, hi = min(lo, b.Lo), max(hi, b.Hi)
			}
			margin := 0.04 * (hi - lo)
			assert.Less(t, value.Min, lo-margin, "room below the lowest whisker")
			assert.Greater(t, value.Max, hi+margin, "room above the highest whisker")
			ticks := value.Tick.Marker.Ticks(value.Min, value.Max)
			assert.Contains(t, ticks, plot.Tick{Value: 0, Label: tc.zero})
			for _, tk := range ticks {
				assert.False(t, math.Signbit(tk.Value) && tk.Value == 0, "-0: %v", ticks)
			}
		})
	}
	// A chart of other values has neither.
	p, err := plots.Bars(plots.Chart{YLabel: "finish time (min)"}, finishTimes())
	require.NoError(t, err)
	assert.Equal(t, 46.0, p.Y.Max)
}

func TestBarsTurnForLongLabels(t *testing.T) {
	bars := []plots.Bar{
		{Label: "flat organization", Mean: 3, Lo: 2, Hi: 4},
		{Label: "strict hierarchy", Mean: 2, Lo: 1.5, Hi: 2.5},
		{Label: "self-organizing swarm", Mean: 4, Lo: 3, Hi: 5},
		{Label: "manager with critics", Mean: 1, Lo: 1, Hi: 1},
	}
	chart := plots.Chart{XLabel: "organization", YLabel: "cost (USD)"}
	p, err := plots.Bars(chart, bars)
	require.NoError(t, err)
	assert.Equal(t, "cost (USD)", p.X.Label.Text, "values along X")
	assert.Equal(t, "organization", p.Y.Label.Text)
	assert.Equal(t, "flat organization", p.Y.Tick.Marker.Ticks(0, 1)[0].Label)

	p, err = plots.Bars(chart, finishTimes())
	require.NoError(t, err)
	assert.Equal(t, "cost (USD)", p.Y.Label.Text, "short labels: bars stand")
}

func TestHeatmapAnnotationsMustFit(t *testing.T) {
	g := plots.Grid{Annotate: true}
	for i := range 30 {
		g.X = append(g.X, strconv.FormatFloat(float64(i)*0.125, 'g', -1, 64))
		g.Y = append(g.Y, strconv.Itoa(i))
	}
	for i := range g.Y {
		row := make([]float64, len(g.X))
		for j := range row {
			row[j] = 1000.5 + float64(i*j)
		}
		g.Z = append(g.Z, row)
	}
	chart := plots.Chart{XLabel: "x", YLabel: "y", ZLabel: "z"}
	_, err := plots.Heatmap(chart, g)
	require.Error(t, err, "30x30 annotated cells in a column")
	g.Annotate = false
	_, err = plots.Heatmap(chart, g)
	require.NoError(t, err)

	x, y := plots.AxisTicks(g)
	assert.LessOrEqual(t, len(x.Ticks(0, 29)), 12)
	assert.LessOrEqual(t, len(y.Ticks(0, 29)), 12)
}

func TestHeatmapOfOneValue(t *testing.T) {
	g := plots.Grid{X: []string{"1"}, Y: []string{"1"}, Z: [][]float64{{5}}, Annotate: true}
	_, err := plots.Heatmap(plots.Chart{XLabel: "x", YLabel: "y", ZLabel: "z"}, g)
	require.NoError(t, err)
}

// TestSaveDeterministic builds and saves every chart twice: every file
// (SVG, CSV, PDF and, on one machine, PNG) comes out byte for byte the
// same. It runs on one goroutine, where the race detector finds nothing,
// and rasterises every chart twice: it skips under the detector.
func TestSaveDeterministic(t *testing.T) {
	if race.Enabled {
		t.Skip("one goroutine: nothing for the race detector (go test ./plots runs it)")
	}
	save := func(dir string) []string {
		charts, err := buildAll(plots.Column)
		require.NoError(t, err)
		var names []string
		for _, c := range charts {
			require.NoError(t, plots.Save(c.plot, plots.Column, filepath.Join(dir, c.name), c.table))
			names = append(names, c.name)
		}
		return names
	}
	a, b := t.TempDir(), t.TempDir()
	names := save(a)
	save(b)
	for _, name := range names {
		for _, ext := range []string{".svg", ".csv", ".pdf", ".png"} {
			x, err := os.ReadFile(filepath.Join(a, name+ext))
			require.NoError(t, err)
			y, err := os.ReadFile(filepath.Join(b, name+ext))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(x, y), "%s%s differs between two runs", name, ext)
		}
	}
	pdf, err := os.ReadFile(filepath.Join(a, "lines.pdf"))
	require.NoError(t, err)
	assert.Contains(t, string(pdf), "/CreationDate (D:19700101000000)")
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
}

func TestSaveWritesFourFiles(t *testing.T) {
	series := learningCurves()
	p, err := plots.Lines(plots.Chart{XLabel: "x", YLabel: "y"}, series)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, plots.Save(p, plots.Column, filepath.Join(dir, "a"), plots.LinesTable(series)))
	var names []string
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		names = append(names, e.Name())
		info, err := e.Info()
		require.NoError(t, err)
		assert.NotZero(t, info.Size(), e.Name())
	}
	assert.Equal(t, []string{"a.csv", "a.pdf", "a.png", "a.svg"}, names)

	png, err := os.ReadFile(filepath.Join(dir, "a.png"))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")))
	svg, err := os.ReadFile(filepath.Join(dir, "a.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), `width="252pt" height="187.2pt"`)
	assert.Contains(t, string(svg), "mean; band 95% CI")
}

// TestSaveAtomic makes the rename of the SVG fail (its name is taken by a
// directory): Save reports it and leaves no temporary or partial file.
func TestSaveAtomic(t *testing.T) {
	bars := finishTimes()
	p, err := plots.Bars(plots.Chart{YLabel: "finish time (min)"}, bars)
	require.NoError(t, err)
	dir := t.TempDir()
	base := filepath.Join(dir, "finish")
	require.NoError(t, os.Mkdir(base+".svg", 0o755))

	err = plots.Save(p, plots.Column, base, plots.BarsTable("mean", bars))
	require.Error(t, err)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "."), "temporary file left: %s", e.Name())
		assert.NotContains(t, []string{"finish.pdf", "finish.png"}, e.Name(), "written after the failure")
	}
	info, err := os.Stat(base + ".svg")
	require.NoError(t, err)
	assert.True(t, info.IsDir(), "the directory in the way is untouched")
	// The CSV was renamed before the failure: it is complete.
	if got, err := os.ReadFile(base + ".csv"); err == nil {
		var want bytes.Buffer
		require.NoError(t, plots.BarsTable("mean", bars).WriteCSV(&want))
		assert.Equal(t, want.String(), string(got))
	}
}

func TestSaveRejects(t *testing.T) {
	bars := finishTimes()
	p, err := plots.Bars(plots.Chart{YLabel: "finish time (min)"}, bars)
	require.NoError(t, err)
	dir := t.TempDir()
	base := filepath.Join(dir, "x")
	assert.Error(t, plots.Save(nil, plots.Column, base, plots.BarsTable("mean", bars)))
	assert.Error(t, plots.Save(p, plots.Size{}, base, plots.BarsTable("mean", bars)))
	assert.Error(t, plots.Save(p, plots.Column, base, plots.Table{}))
	assert.Error(t, plots.Save(p, plots.Column, base, plots.Table{Header: []string{"a"}, Rows: [][]string{{"1", "2"}}}))
	assertNoFiles(t, dir)
	assert.Error(t, plots.Save(p, plots.Column, filepath.Join(dir, "missing", "x"), plots.BarsTable("mean", bars)))
	assertNoFiles(t, dir)
}

func assertNoFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestTables(t *testing.T) {
	var b bytes.Buffer
	tbl := plots.Table{Header: []string{"name", "v"}, Rows: [][]string{{`a "quoted", name`, "0.1"}}}
	require.NoError(t, tbl.WriteCSV(&b))
	assert.Equal(t, "name,v\n\"a \"\"quoted\"\", name\",0.1\n", b.String())

	g := plots.GridTable(plots.Grid{X: []string{"0.1", "30000"}, Y: []string{"2m"}, Z: [][]float64{{1.0 / 3, 2}}})
	assert.Equal(t, [][]string{{"0.1", "2m", "0.3333333333333333"}, {"30000", "2m", "2"}}, g.Rows)
}

// TestTablesWriteNoNegativeZero: a chart's data, read by people, write a
// negative zero as 0, which it equals, not as "-0".
func TestTablesWriteNoNegativeZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, tc := range []struct {
		name string
		tbl  plots.Table
		want [][]string
	}{
		{"bars", plots.BarsTable("mean", []plots.Bar{{Label: "a", Mean: negZero, Lo: -1, Hi: negZero}}),
			[][]string{{"a", "0", "-1", "0"}}},
		{"lines", plots.LinesTable([]plots.Series{{Name: "s", X: []float64{negZero}, Y: []float64{negZero}}}),
			[][]string{{"s", "0", "0", "", ""}}},
		{"grid", plots.GridTable(plots.Grid{X: []string{"x"}, Y: []string{"y"}, Z: [][]float64{{negZero}}}),
			[][]string{{"x", "y", "0"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.tbl.Rows)
		})
	}
}

func TestCDFErrors(t *testing.T) {
	_, err := plots.ECDF("x", nil)
	assert.Error(t, err)
	_, err = plots.ECDF("x", []float64{1, math.Inf(1)})
	assert.Error(t, err)
	obs, err := plots.ECDF("observed", []float64{0, 1})
	require.NoError(t, err)
	c := plots.Chart{XLabel: "latency (s)", YLabel: "P(X <= x)"}
	_, err = plots.CDF(c, obs, nil, true)
	assert.ErrorContains(t, err, "x = 0 at 0 on a log axis must be positive")
	_, err = plots.CDF(c, obs, nil, false)
	assert.NoError(t, err)
	bad := plots.Series{Name: "fit", X: []float64{1, 2}, Y: []float64{0.5, 1.5}}
	_, err = plots.CDF(c, obs, []plots.Series{bad}, false)
	assert.ErrorContains(t, err, `series 1 ("fit"): P(X <= x) = 1.5 at 1 is outside [0, 1]`)
	_, err = plots.CDF(plots.Chart{XLabel: "latency (s)"}, obs, nil, false)
	assert.ErrorContains(t, err, "needs a YLabel")
}

// TestCDFLogTicks draws CDFs whose samples span from two to twelve
// decades at each size: each must fit (the labels of six decades at
// 1e-06 to 1 overlapped on a page, and the chart was refused), its
// labels must be powers of ten written as briefly as they can be (1e-05,
// not 9.999999999999999e-06, as ten times ten times ... gave), and at
// least two on the axis must be labelled.
func TestCDFLogTicks(t *testing.T) {
	sizes := map[string]plots.Size{"column": plots.Column, "page": plots.Page, "tall": plots.Tall}
	for _, tc := range []struct {
		name   string
		lo, hi float64
	}{
		{"two decades", 0.05, 2},
		{"six decades of latencies", 8e-7, 2},
		{"six decades above 1", 2, 3e6},
		{"twelve decades", 1e-9, 5e3},
	} {
		for sname, size := range sizes {
			t.Run(tc.name+"/"+sname, func(t *testing.T) {
				var sample []float64
				for i := range 40 {
					sample = append(sample, tc.lo*math.Pow(tc.hi/tc.lo, float64(i)/39))
				}
				obs, err := plots.ECDF("observed", sample)
				require.NoError(t, err)
				p, err := plots.CDF(plots.Chart{XLabel: "latency (s)", YLabel: "P(X <= x)", Size: size}, obs, nil, true)
				require.NoError(t, err)
				var labels []string
				for _, tick := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
					if tick.Label == "" || tick.Value < p.X.Min || tick.Value > p.X.Max {
						continue // gonum draws no tick outside the axis
					}
					labels = append(labels, tick.Label)
					e := math.Round(math.Log10(tick.Value))
					assert.Equal(t, math.Pow10(int(e)), tick.Value, "tick %q is not a power of ten", tick.Label)
					assert.Equal(t, strconv.FormatFloat(math.Pow10(int(e)), 'g', -1, 64), tick.Label)
				}
				assert.GreaterOrEqual(t, len(labels), 2, "labels %v", labels)
				require.NoError(t, plots.SaveFormats(p, size, filepath.Join(t.TempDir(), "cdf"), plots.LinesTable([]plots.Series{obs}), []string{"svg"}))
			})
		}
	}
}
