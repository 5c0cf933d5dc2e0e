package plots

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"

	"github.com/swarmsim/swarmsim/internal/numtext"
)

// Table is the data behind a chart, written beside it as CSV so that a
// reader can redraw the chart in a tool of their own. Column names are
// stable; each row has one cell per column.
type Table struct {
	Header []string
	Rows   [][]string
}

func (t Table) check() error {
	if len(t.Header) == 0 {
		return errors.New("plots: table has no header")
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Header) {
			return fmt.Errorf("plots: table row %d has %d cells for %d columns", i, len(r), len(t.Header))
		}
	}
	return nil
}

// WriteCSV writes t as CSV (RFC 4180, "\n" line ends). It returns an
// error when a row's length differs from the header's.
func (t Table) WriteCSV(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil { // WriteAll flushes.
		return err
	}
	return cw.Error()
}

func (t Table) csvBytes() ([]byte, error) {
	var b bytes.Buffer
	err := t.WriteCSV(&b)
	return b.Bytes(), err
}

// LinesTable returns the data of a line chart, one row per point:
// series, x, y, lo, hi (lo and hi empty for a series without a band).
func LinesTable(series []Series) Table {
	t := Table{Header: []string{"series", "x", "y", "lo", "hi"}}
	for _, s := range series {
		for i := range s.X {
			lo, hi := "", ""
			if s.hasBand() && i < len(s.Lo) && i < len(s.Hi) {
				lo, hi = numtext.Shortest(s.Lo[i]), numtext.Shortest(s.Hi[i])
			}
			y := ""
			if i < len(s.Y) {
				y = numtext.Shortest(s.Y[i])
			}
			t.Rows = append(t.Rows, []string{s.Name, numtext.Shortest(s.X[i]), y, lo, hi})
		}
	}
	return t
}

// BarsTable returns the data of a bar chart, one row per bar: label,
// value, lo, hi, with value's column named by what the bars are (mean,
// iqm, diff), so that a reader of the CSV does not take an IQM for a
// mean.
func BarsTable(value string, bars []Bar) Table {
	t := Table{Header: []string{"label", value, "lo", "hi"}}
	for _, b := range bars {
		t.Rows = append(t.Rows, []string{b.Label, numtext.Shortest(b.Mean), numtext.Shortest(b.Lo), numtext.Shortest(b.Hi)})
	}
	return t
}

// TimelineTable returns the data of a timeline, one row per span, then
// one per flow: record ("span" or "flow"), row, start, end, kind, label,
// to_row. A flow goes from row at start to to_row at end.
func TimelineTable(spans []Span, flows []Flow) Table {
	t := Table{Header: []string{"record", "row", "start", "end", "kind", "label", "to_row"}}
	for _, s := range spans {
		t.Rows = append(t.Rows, []string{"span", s.Row, numtext.Shortest(s.Start), numtext.Shortest(s.End), s.Kind, s.Label, ""})
	}
	for _, f := range flows {
		t.Rows = append(t.Rows, []string{"flow", f.FromRow, numtext.Shortest(f.From), numtext.Shortest(f.To), "", "", f.ToRow})
	}
	return t
}

// GridTable returns the data of a heat map, one row per cell, row by row
// of Z: x, y, z, and lo, hi beside z when g has intervals.
func GridTable(g Grid) Table {
	t := Table{Header: []string{"x", "y", "z"}}
	if g.hasIntervals() {
		t.Header = append(t.Header, "lo", "hi")
	}
	for i, row := range g.Z {
		for j, z := range row {
			if i < len(g.Y) && j < len(g.X) {
				r := []string{g.X[j], g.Y[i], numtext.Shortest(z)}
				if g.hasIntervals() {
					r = append(r, numtext.Shortest(g.Lo[i][j]), numtext.Shortest(g.Hi[i][j]))
				}
				t.Rows = append(t.Rows, r)
			}
		}
	}
	return t
}
