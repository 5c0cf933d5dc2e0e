package plots

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// A Spec says how to draw a chart from its table: what kind of chart, and
// its labels and size. A chart drawn with Draw from a Spec and a Table can
// be drawn again, identically, from the same two read back from disk;
// that is what 'simulate plot' does.
type Spec struct {
	// Name is the chart's file name without extension.
	Name string `json:"name"`
	// Kind is "lines", "scaling", "bars", "points", "timeline", "heatmap"
	// or "diffmap": which of Lines, Scaling, Bars, Points, Timeline,
	// Heatmap and DiffMap draws it, from the table LinesTable (lines and
	// scaling), BarsTable (bars and points), TimelineTable or GridTable
	// (heatmap and diffmap) writes.
	Kind     string `json:"kind"`
	Title    string `json:"title,omitempty"`
	XLabel   string `json:"xlabel,omitempty"`
	YLabel   string `json:"ylabel,omitempty"`
	ZLabel   string `json:"zlabel,omitempty"`
	Interval string `json:"interval,omitempty"`
	Stat     string `json:"stat,omitempty"`
	Note     string `json:"note,omitempty"`
	// Difference marks a bar chart of differences (Chart.Difference).
	Difference bool `json:"difference,omitempty"`
	// Size is "column", "page" or "tall".
	Size string `json:"size"`
	// Annotate writes a heat map's values in its cells.
	Annotate bool `json:"annotate,omitempty"`
	// Low and High name the sides of a difference map (Sides).
	Low  string `json:"low,omitempty"`
	High string `json:"high,omitempty"`
}

// Sizes are the named sizes of Spec.Size.
var Sizes = map[string]Size{"column": Column, "page": Page, "tall": Tall}

// SizeNames lists the names of Sizes as an error offers them: "column,
// page or tall".
func SizeNames() string {
	names := slices.Sorted(maps.Keys(Sizes))
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Chart returns the Chart of s at its size.
func (s *Spec) Chart() (Chart, error) {
	size, ok := Sizes[s.Size]
	if !ok {
		return Chart{}, fmt.Errorf("plots: chart %s: size %q: want %s", s.Name, s.Size, SizeNames())
	}
	return Chart{Title: s.Title, XLabel: s.XLabel, YLabel: s.YLabel, ZLabel: s.ZLabel,
		Interval: s.Interval, Stat: s.Stat, Note: s.Note, Difference: s.Difference, Size: size}, nil
}

// Draw draws the chart s describes from its table t.
func Draw(s *Spec, t Table) (*plot.Plot, error) {
	c, err := s.Chart()
	if err != nil {
		return nil, err
	}
	p, err := drawKind(s, c, t)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", s.Name, err)
	}
	return p, nil
}

func drawKind(s *Spec, c Chart, t Table) (*plot.Plot, error) {
	switch s.Kind {
	case "lines":
		series, err := ParseLinesTable(t)
		if err != nil {
			return nil, err
		}
		return Lines(c, series)
	case "scaling":
		series, err := ParseLinesTable(t)
		if err != nil {
			return nil, err
		}
		return Scaling(c, series)
	case "bars":
		bars, err := ParseBarsTable(t)
		if err != nil {
			return nil, err
		}
		return Bars(c, bars)
	case "points":
		pts, err := ParseBarsTable(t)
		if err != nil {
			return nil, err
		}
		return Points(c, pts)
	case "timeline":
		spans, flows, err := ParseTimelineTable(t)
		if err != nil {
			return nil, err
		}
		return Timeline(c, spans, flows)
	case "heatmap":
		g, err := ParseGridTable(t)
		if err != nil {
			return nil, err
		}
		g.Annotate = s.Annotate
		return Heatmap(c, g)
	case "diffmap":
		g, err := ParseGridTable(t)
		if err != nil {
			return nil, err
		}
		g.Annotate = s.Annotate
		return DiffMap(c, g, Sides{Low: s.Low, High: s.High})
	}
	return nil, fmt.Errorf("kind %q: want %s", s.Kind, strings.Join(kinds, ", "))
}

// kinds are the values of Spec.Kind, each a case of drawKind.
var kinds = []string{"lines", "scaling", "bars", "points", "timeline", "heatmap", "diffmap"}

// MarshalSpecs renders specs as the JSON index of a charts directory.
func MarshalSpecs(specs []Spec) []byte {
	b, err := json.MarshalIndent(specs, "", "  ")
	if err != nil {
		panic(err) // strings and bools always marshal
	}
	return append(b, '\n')
}

// ParseSpecs reads the JSON index of a charts directory written by
// MarshalSpecs; path names it in errors, with the line of the chart at
// fault. An index is refused, not read in part, when a chart has no name
// or the name of an earlier chart, an unknown field, kind or size, or a
// setting its kind does not draw (annotate or zlabel but on a heat or
// difference map, low and high but on a difference map, difference but
// on bars).
func ParseSpecs(path string, data []byte) ([]Spec, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	fail := func(off int64, err error) ([]Spec, error) {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			off = syntax.Offset
		}
		return nil, fmt.Errorf("%s:%d: %w", path, lineAt(data, off), err)
	}
	switch tok, err := d.Token(); {
	case err != nil:
		return fail(d.InputOffset(), fmt.Errorf("not a JSON list of charts: %w", err))
	case tok == nil: // MarshalSpecs(nil)
		return nil, end(d, path, data)
	case tok != json.Delim('['):
		return fail(0, errors.New("not a JSON list of charts"))
	}
	var specs []Spec
	seen := map[string]bool{}
	for d.More() {
		at := d.InputOffset()
		var s Spec
		if err := d.Decode(&s); err != nil {
			return fail(at, fmt.Errorf("chart %d: %w", len(specs), err))
		}
		if err := s.check(); err != nil {
			return fail(at, fmt.Errorf("chart %d: %w", len(specs), err))
		}
		if seen[s.Name] {
			return fail(at, fmt.Errorf("chart %d: name %q: an earlier chart has it, and would be drawn over", len(specs), s.Name))
		}
		seen[s.Name] = true
		specs = append(specs, s)
	}
	if _, err := d.Token(); err == io.EOF {
		return fail(d.InputOffset(), errors.New("the list of charts does not end: the file is cut short"))
	} else if err != nil {
		return fail(d.InputOffset(), err)
	}
	return specs, end(d, path, data)
}

// end checks that nothing follows the index's JSON value.
func end(d *json.Decoder, path string, data []byte) error {
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("%s:%d: data after the list of charts", path, lineAt(data, d.InputOffset()))
	}
	return nil
}

// check refuses a spec that Draw could not draw or that has a setting its
// kind ignores.
func (s *Spec) check() error {
	if s.Name == "" {
		return errors.New("field \"name\": missing")
	}
	if !slices.Contains(kinds, s.Kind) {
		return fmt.Errorf("field \"kind\": %q: want %s", s.Kind, strings.Join(kinds, ", "))
	}
	if _, ok := Sizes[s.Size]; !ok {
		return fmt.Errorf("field \"size\": %q: want %s", s.Size, SizeNames())
	}
	grid := s.Kind == "heatmap" || s.Kind == "diffmap"
	switch {
	case s.Annotate && !grid:
		return fmt.Errorf("field \"annotate\": a %s chart has no cells to write values in (heatmap and diffmap do)", s.Kind)
	case s.ZLabel != "" && !grid:
		return fmt.Errorf("field \"zlabel\": a %s chart has no colour scale to label (heatmap and diffmap do)", s.Kind)
	case (s.Low != "" || s.High != "") && s.Kind != "diffmap":
		return fmt.Errorf("fields \"low\" and \"high\": a %s chart has no sides to name (diffmap does)", s.Kind)
	case s.Difference && s.Kind != "bars":
		return fmt.Errorf("field \"difference\": a %s chart does not draw differences (bars does)", s.Kind)
	}
	return nil
}

// lineAt returns the line of data that the first JSON value at or after
// offset starts on, skipping the space and separator before it.
func lineAt(data []byte, offset int64) int {
	i := min(int(max(offset, 0)), len(data))
	for i < len(data) && strings.IndexByte(" \t\r\n,", data[i]) >= 0 {
		i++
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

// cols checks that t has exactly the header want.
func cols(t Table, want ...string) error {
	if !slices.Equal(t.Header, want) {
		return fmt.Errorf("table has columns %v, want %v", t.Header, want)
	}
	return t.check()
}

// A RowError is a row of a chart's table that the chart cannot be drawn
// from. Row counts the rows after the header from 0, so that a caller
// that read the table from a file can name the row's line there, which
// the row's index does not tell (a quoted field may span lines); Column
// is empty when no one cell is at fault.
type RowError struct {
	Row    int
	Column string
	Err    error
}

// Error names the row counted from 1, and the column if any.
func (e *RowError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("row %d: %v", e.Row+1, e.Err)
	}
	return fmt.Sprintf("row %d, column %s: %v", e.Row+1, e.Column, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// cell parses the number in row i, column j of t.
func cell(t Table, i, j int) (float64, error) {
	v, err := strconv.ParseFloat(t.Rows[i][j], 64)
	if err != nil {
		return 0, &RowError{Row: i, Column: t.Header[j], Err: fmt.Errorf("%q is not a number", t.Rows[i][j])}
	}
	return v, nil
}

// ParseLinesTable reads the series of a table written by LinesTable.
func ParseLinesTable(t Table) ([]Series, error) {
	if err := cols(t, "series", "x", "y", "lo", "hi"); err != nil {
		return nil, err
	}
	var out []Series
	at := map[string]int{}
	for i, r := range t.Rows {
		k, ok := at[r[0]]
		if !ok {
			k = len(out)
			at[r[0]] = k
			out = append(out, Series{Name: r[0]})
		}
		s := &out[k]
		x, err := cell(t, i, 1)
		if err != nil {
			return nil, err
		}
		y, err := cell(t, i, 2)
		if err != nil {
			return nil, err
		}
		s.X, s.Y = append(s.X, x), append(s.Y, y)
		if r[3] == "" && r[4] == "" {
			if s.Lo != nil {
				return nil, &RowError{Row: i, Err: fmt.Errorf("series %q has a band elsewhere but none here", r[0])}
			}
			continue
		}
		if len(s.X) > 1 && s.Lo == nil {
			return nil, &RowError{Row: i, Err: fmt.Errorf("series %q has a band here but none before", r[0])}
		}
		lo, err := cell(t, i, 3)
		if err != nil {
			return nil, err
		}
		hi, err := cell(t, i, 4)
		if err != nil {
			return nil, err
		}
		s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
	}
	return out, nil
}

// ParseBarsTable reads the bars of a table written by BarsTable, whatever
// its value column's name.
func ParseBarsTable(t Table) ([]Bar, error) {
	value := "the value" // in the error of a table of another shape
	if len(t.Header) == 4 && t.Header[1] != "" {
		value = t.Header[1]
	}
	if err := cols(t, "label", value, "lo", "hi"); err != nil {
		return nil, err
	}
	bars := make([]Bar, len(t.Rows))
	for i, r := range t.Rows {
		bars[i].Label = r[0]
		for j, p := range []*float64{&bars[i].Mean, &bars[i].Lo, &bars[i].Hi} {
			v, err := cell(t, i, j+1)
			if err != nil {
				return nil, err
			}
			*p = v
		}
	}
	return bars, nil
}

// ParseTimelineTable reads the spans and flows of a table written by
// TimelineTable.
func ParseTimelineTable(t Table) ([]Span, []Flow, error) {
	if err := cols(t, "record", "row", "start", "end", "kind", "label", "to_row"); err != nil {
		return nil, nil, err
	}
	var spans []Span
	var flows []Flow
	for i, r := range t.Rows {
		start, err := cell(t, i, 2)
		if err != nil {
			return nil, nil, err
		}
		end, err := cell(t, i, 3)
		if err != nil {
			return nil, nil, err
		}
		switch r[0] {
		case "span":
			spans = append(spans, Span{Row: r[1], Start: start, End: end, Kind: r[4], Label: r[5]})
		case "flow":
			flows = append(flows, Flow{FromRow: r[1], From: start, ToRow: r[6], To: end})
		default:
			return nil, nil, &RowError{Row: i, Column: "record", Err: fmt.Errorf("%q: want span or flow", r[0])}
		}
	}
	return spans, flows, nil
}

// ParseGridTable reads the grid of a table written by GridTable: the X
// and Y names in the order first seen, one row of cells per Y, and the
// intervals when the table has lo and hi columns. A table that gives a
// cell twice (a RowError at the second) or leaves one out is refused.
func ParseGridTable(t Table) (Grid, error) {
	withIntervals := len(t.Header) == 5
	if withIntervals {
		if err := cols(t, "x", "y", "z", "lo", "hi"); err != nil {
			return Grid{}, err
		}
	} else if err := cols(t, "x", "y", "z"); err != nil {
		return Grid{}, fmt.Errorf("%w (or with lo, hi)", err)
	}
	var g Grid
	xi, yi := map[string]int{}, map[string]int{}
	type c struct {
		i, j int
		v    []float64 // z, and lo, hi
	}
	var cells []c
	// A cell given twice would hide a missing one from a count of the
	// cells, and the missing one would be drawn as 0.
	seen := map[[2]string]bool{}
	for i, r := range t.Rows {
		v := make([]float64, len(t.Header)-2)
		for j := range v {
			f, err := cell(t, i, j+2)
			if err != nil {
				return Grid{}, err
			}
			v[j] = f
		}
		if seen[[2]string{r[0], r[1]}] {
			return Grid{}, &RowError{Row: i, Err: fmt.Errorf("x %q, y %q: an earlier row has this cell (want one row per x and y)", r[0], r[1])}
		}
		seen[[2]string{r[0], r[1]}] = true
		if _, ok := xi[r[0]]; !ok {
			xi[r[0]] = len(g.X)
			g.X = append(g.X, r[0])
		}
		if _, ok := yi[r[1]]; !ok {
			yi[r[1]] = len(g.Y)
			g.Y = append(g.Y, r[1])
		}
		cells = append(cells, c{yi[r[1]], xi[r[0]], v})
	}
	for _, y := range g.Y {
		for _, x := range g.X {
			if !seen[[2]string{x, y}] {
				return Grid{}, fmt.Errorf("no row for x %q, y %q: want one row per x and y (%d x and %d y values, %d rows)", x, y, len(g.X), len(g.Y), len(cells))
			}
		}
	}
	grid := func() [][]float64 {
		z := make([][]float64, len(g.Y))
		for i := range z {
			z[i] = make([]float64, len(g.X))
		}
		return z
	}
	g.Z = grid()
	if withIntervals {
		g.Lo, g.Hi = grid(), grid()
	}
	for _, c := range cells {
		g.Z[c.i][c.j] = c.v[0]
		if withIntervals {
			g.Lo[c.i][c.j], g.Hi[c.i][c.j] = c.v[1], c.v[2]
		}
	}
	return g, nil
}
