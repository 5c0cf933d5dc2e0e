package plots_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/plots"
)

// Every table reads back as the data it was written from, so a chart can
// be drawn again from its CSV.
func TestParseTablesRoundTrip(t *testing.T) {
	series := []plots.Series{
		{Name: "a", X: []float64{0, 1}, Y: []float64{0.5, 0.25}, Lo: []float64{0.25, 0}, Hi: []float64{1, 0.5}},
		{Name: "b", X: []float64{0, 1}, Y: []float64{2, 3}},
	}
	got, err := plots.ParseLinesTable(plots.LinesTable(series))
	require.NoError(t, err)
	assert.Equal(t, series, got)

	bars := []plots.Bar{{Label: "x", Mean: 1, Lo: 0.5, Hi: 2}, {Label: "y", Mean: 0, Lo: 0, Hi: 0}}
	for _, value := range []string{"mean", "iqm", "diff"} {
		tab := plots.BarsTable(value, bars)
		assert.Equal(t, []string{"label", value, "lo", "hi"}, tab.Header)
		gotBars, err := plots.ParseBarsTable(tab)
		require.NoError(t, err)
		assert.Equal(t, bars, gotBars, value)
	}

	spans := []plots.Span{{Row: "main", Start: 0, End: 1.5, Kind: "work", Label: "t1"}}
	flows := []plots.Flow{{FromRow: "main", From: 1, ToRow: "agent 1", To: 2}}
	gotSpans, gotFlows, err := plots.ParseTimelineTable(plots.TimelineTable(spans, flows))
	require.NoError(t, err)
	assert.Equal(t, spans, gotSpans)
	assert.Equal(t, flows, gotFlows)

	g := plots.Grid{X: []string{"0", "0.5"}, Y: []string{"team", "split", "1m"}, Z: [][]float64{{1, 2}, {3, 4}, {5, 6}}}
	gotGrid, err := plots.ParseGridTable(plots.GridTable(g))
	require.NoError(t, err)
	assert.Equal(t, g, gotGrid)
	g.Lo = [][]float64{{0, 1}, {2, 3}, {4, 5}}
	g.Hi = [][]float64{{2, 3}, {4, 5}, {6, 7}}
	gotGrid, err = plots.ParseGridTable(plots.GridTable(g))
	require.NoError(t, err)
	assert.Equal(t, g, gotGrid, "with intervals")
}

func TestParseTablesErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parse func(plots.Table) error
		table plots.Table
		want  string
	}{
		{"lines header", func(t plots.Table) error { _, err := plots.ParseLinesTable(t); return err },
			plots.Table{Header: []string{"x"}}, "want [series x y lo hi]"},
		{"bars header", func(t plots.Table) error { _, err := plots.ParseBarsTable(t); return err },
			plots.Table{Header: []string{"label", "iqm", "lo"}}, "want [label the value lo hi]"},
		{"lines number", func(t plots.Table) error { _, err := plots.ParseLinesTable(t); return err },
			plots.Table{Header: []string{"series", "x", "y", "lo", "hi"}, Rows: [][]string{{"a", "one", "1", "", ""}}}, `row 1, column x: "one" is not a number`},
		{"lines ragged band", func(t plots.Table) error { _, err := plots.ParseLinesTable(t); return err },
			plots.Table{Header: []string{"series", "x", "y", "lo", "hi"}, Rows: [][]string{{"a", "0", "1", "0", "2"}, {"a", "1", "1", "", ""}}}, `row 2: series "a" has a band elsewhere but none here`},
		{"timeline record", func(t plots.Table) error { _, _, err := plots.ParseTimelineTable(t); return err },
			plots.Table{Header: []string{"record", "row", "start", "end", "kind", "label", "to_row"}, Rows: [][]string{{"span", "a", "0", "1", "work", "", ""}, {"arrow", "a", "0", "1", "", "", ""}}}, `row 2, column record: "arrow": want span or flow`},
		{"grid holes", func(t plots.Table) error { _, err := plots.ParseGridTable(t); return err },
			plots.Table{Header: []string{"x", "y", "z"}, Rows: [][]string{{"0", "0", "1"}, {"1", "1", "1"}}}, `no row for x "1", y "0": want one row per x and y (2 x and 2 y values, 2 rows)`},
		{"grid repeat hides a hole", func(t plots.Table) error { _, err := plots.ParseGridTable(t); return err },
			plots.Table{Header: []string{"x", "y", "z"}, Rows: [][]string{{"0", "0", "1"}, {"1", "0", "2"}, {"0", "1", "3"}, {"0", "1", "4"}}}, `row 4: x "0", y "1": an earlier row has this cell (want one row per x and y)`},
		{"grid header", func(t plots.Table) error { _, err := plots.ParseGridTable(t); return err },
			plots.Table{Header: []string{"x", "y", "v"}}, "want [x y z] (or with lo, hi)"},
		{"grid interval", func(t plots.Table) error { _, err := plots.ParseGridTable(t); return err },
			plots.Table{Header: []string{"x", "y", "z", "lo", "hi"}, Rows: [][]string{{"0", "0", "1", "0", "wide"}}}, `row 1, column hi: "wide" is not a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorContains(t, tc.parse(tc.table), tc.want)
		})
	}
}

// TestParseTablesRowError: a row at fault is a RowError with its index
// from 0 and its column, if one, so that 'simulate plot' can name the
// line of the file it read.
func TestParseTablesRowError(t *testing.T) {
	lines := []string{"series", "x", "y", "lo", "hi"}
	for _, tc := range []struct {
		name   string
		err    error
		row    int
		column string
	}{
		{"number", func() error {
			_, err := plots.ParseLinesTable(plots.Table{Header: lines, Rows: [][]string{{"a", "0", "1", "", ""}, {"a", "1", "one", "", ""}}})
			return err
		}(), 1, "y"},
		{"band", func() error {
			_, err := plots.ParseLinesTable(plots.Table{Header: lines, Rows: [][]string{{"a", "0", "1", "", ""}, {"a", "1", "1", "0", "2"}}})
			return err
		}(), 1, ""},
		{"record", func() error {
			_, _, err := plots.ParseTimelineTable(plots.Table{Header: []string{"record", "row", "start", "end", "kind", "label", "to_row"}, Rows: [][]string{{"arrow", "a", "0", "1", "", "", ""}}})
			return err
		}(), 0, "record"},
		{"grid cell", func() error {
			_, err := plots.ParseGridTable(plots.Table{Header: []string{"x", "y", "z", "lo", "hi"}, Rows: [][]string{{"a", "b", "1", "0", "2"}, {"a", "b", "1", "0", "2"}}})
			return err
		}(), 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var row *plots.RowError
			require.ErrorAs(t, tc.err, &row)
			assert.Equal(t, tc.row, row.Row)
			assert.Equal(t, tc.column, row.Column)
		})
	}
}

func TestDrawSpec(t *testing.T) {
	spec := plots.Spec{Name: "c", Kind: "bars", YLabel: "y (s)", Size: "column"}
	p, err := plots.Draw(&spec, plots.BarsTable("mean", []plots.Bar{{Label: "x", Mean: 1, Lo: 0.5, Hi: 2}}))
	require.NoError(t, err)
	require.NotNil(t, p)
	spec.Size = "poster"
	_, err = plots.Draw(&spec, plots.BarsTable("mean", nil))
	assert.ErrorContains(t, err, `size "poster": want column, page or tall`)
	spec.Size, spec.Kind = "page", "pie"
	_, err = plots.Draw(&spec, plots.BarsTable("mean", nil))
	assert.ErrorContains(t, err, `kind "pie"`)

	spec.Kind, spec.Difference = "bars", true
	specs := []plots.Spec{spec, {Name: "d", Kind: "lines", Size: "column", Note: "left out: x"},
		{Name: "m", Kind: "diffmap", Size: "page", Annotate: true, Low: "team", High: "split"}}
	back, err := plots.ParseSpecs("charts.json", plots.MarshalSpecs(specs))
	require.NoError(t, err)
	assert.Equal(t, specs, back)
	back, err = plots.ParseSpecs("charts.json", plots.MarshalSpecs(nil))
	require.NoError(t, err)
	assert.Empty(t, back)
}

// An index that names a chart Draw cannot draw, or a setting its kind
// would not draw, is refused whole, naming the file, the chart's line and
// the field.
func TestParseSpecsRefuses(t *testing.T) {
	const ok = `{"name": "a", "kind": "lines", "size": "page"}`
	for _, tc := range []struct {
		name, index, want string
	}{
		{"no name", `[` + ok + `,
 {"kind": "lines", "size": "page"}]`, `charts.json:2: chart 1: field "name": missing`},
		{"same name", "[\n" + ok + ",\n\n  " + ok + "]", `charts.json:4: chart 1: name "a": an earlier chart has it`},
		{"space before the line's end", "[" + ok + ", \n" + ok + "]", `charts.json:2: chart 1: name "a"`},
		{"kind", `[{"name": "a", "kind": "pie", "size": "page"}]`, `charts.json:1: chart 0: field "kind": "pie": want lines, scaling, bars, points, timeline, heatmap, diffmap`},
		{"size", `[{"name": "a", "kind": "bars", "size": "poster"}]`, `field "size": "poster": want column, page or tall`},
		{"unknown field", `[{"name": "a", "kind": "heatmap", "size": "page", "anotate": true}]`, `chart 0: json: unknown field "anotate"`},
		{"annotate", `[{"name": "a", "kind": "lines", "size": "page", "annotate": true}]`, `field "annotate": a lines chart has no cells`},
		{"zlabel", `[{"name": "a", "kind": "bars", "size": "page", "zlabel": "z"}]`, `field "zlabel": a bars chart has no colour scale`},
		{"annotate on a heat map", `[{"name": "a", "kind": "heatmap", "size": "page", "annotate": true, "low": "x"}]`, `fields "low" and "high": a heatmap chart has no sides`},
		{"high", `[{"name": "a", "kind": "bars", "size": "page", "high": "x"}]`, `fields "low" and "high"`},
		{"difference", `[{"name": "a", "kind": "points", "size": "page", "difference": true}]`, `field "difference": a points chart does not draw differences`},
		{"type", "[\n" + `{"name": 3}]`, `charts.json:2: chart 0: json: cannot unmarshal number`},
		{"syntax", "[\n" + ok + ",\n{\"name\" \"a\"}]", `charts.json:3: `},
		{"not a list", `{"name": "a"}`, `charts.json:1: not a JSON list of charts`},
		{"empty", ``, `charts.json:1: not a JSON list of charts: EOF`},
		{"trailing", `[]` + "\n[]", `charts.json:2: data after the list of charts`},
		{"truncated", `[` + ok, `charts.json:1: the list of charts does not end`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := plots.ParseSpecs("charts.json", []byte(tc.index))
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
