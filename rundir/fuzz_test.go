package rundir_test

import (
	"testing"

	"github.com/swarmsim/swarmsim/rundir"
)

// FuzzParseTable: any bytes give a table or an error naming the file,
// never a panic, and every parsed row has the header's width.
func FuzzParseTable(f *testing.F) {
	f.Add([]byte("variant,x\nv,1\n"))
	f.Add([]byte("a,b\n1\n"))
	f.Add([]byte(`"unterminated`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := rundir.ParseTable("t.csv", data)
		if err != nil {
			return
		}
		for i, r := range tab.Rows {
			if len(r) != len(tab.Header) {
				t.Fatalf("row %d has %d cells for %d columns", i, len(r), len(tab.Header))
			}
			for c := range r {
				tab.Float(i, c) // an error or a number, never a panic
			}
		}
	})
}
