package plots_test

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/swarmsim/swarmsim/plots"
)

// FuzzParseSpecs: any bytes give specs or an error naming the index and
// a line of it, never a panic; every spec read has a name, and the specs read are
// written by MarshalSpecs in a form that reads back to the same specs,
// as simulate plot reads what a run wrote.
func FuzzParseSpecs(f *testing.F) {
	f.Add([]byte(`[{"name": "a", "kind": "lines", "size": "column"}]`))
	f.Add([]byte(`[{"kind": "bars"}]`))
	f.Add([]byte("[\n{\"name\": \"a\", \"kind\": \"lines\", \"size\": \"page\"},\n{\"name\": \"a\"}]"))
	f.Add([]byte(`[{"name": "d", "kind": "diffmap", "size": "page", "annotate": true, "low": "team", "high": "split", "title": "\u00e9\ufffd"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, err := plots.ParseSpecs("charts.json", data)
		if err != nil {
			line, _, ok := strings.Cut(strings.TrimPrefix(err.Error(), "charts.json:"), ": ")
			if n, lerr := strconv.Atoi(line); !ok || lerr != nil || n < 1 || n > 1+bytes.Count(data, []byte("\n")) {
				t.Fatalf("the error does not name the index and a line of it: %v", err)
			}
			return
		}
		for _, s := range specs {
			if s.Name == "" {
				t.Fatal("a spec without a name was accepted")
			}
		}
		b := plots.MarshalSpecs(specs)
		back, err := plots.ParseSpecs("charts.json", b)
		if err != nil {
			t.Fatalf("%s does not read back: %v", b, err)
		}
		if !reflect.DeepEqual(specs, back) && !(len(specs) == 0 && len(back) == 0) {
			t.Fatalf("%+v read back from %s as %+v", specs, b, back)
		}
	})
}

// FuzzParseChartTables: any CSV read as a chart's table gives data or an
// error for every kind, never a panic.
func FuzzParseChartTables(f *testing.F) {
	f.Add([]byte("series,x,y,lo,hi\na,0,1,0,2\na,1,1,,\n"))
	f.Add([]byte("label,mean,lo,hi\nx,1,0,2\n"))
	f.Add([]byte("record,row,start,end,kind,label,to_row\nspan,main,0,1,work,t,\nflow,main,0,1,,,agent 1\n"))
	f.Add([]byte("x,y,z\n0,0,1\n1,0,2\n"))
	f.Add([]byte("x,y,z,lo,hi\nteam,2m,1,0,2\nsplit,2m,-1,-2,0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := csv.NewReader(bytes.NewReader(data))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil || len(recs) == 0 {
			return
		}
		tab := plots.Table{Header: recs[0], Rows: recs[1:]}
		plots.ParseLinesTable(tab)
		plots.ParseBarsTable(tab)
		plots.ParseTimelineTable(tab)
		if g, err := plots.ParseGridTable(tab); err == nil && (len(g.Z) != len(g.Y) || (g.Lo != nil && len(g.Lo) != len(g.Y))) {
			t.Fatalf("grid has %d rows (%d of Lo) for %d y values", len(g.Z), len(g.Lo), len(g.Y))
		}
	})
}
