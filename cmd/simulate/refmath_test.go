package main

import (
	"bytes"
	"encoding/csv"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// mathSum fingerprints this machine's math.Exp, math.Log and math.Log1p:
// the FNV-1a hash of their bits over a fixed spread of arguments.
//
// Go's implementations of these functions differ in the last bit between
// architectures (assembly on amd64, other code on arm64, multiply-adds
// fused where the compiler may fuse them), and on amd64 math.Exp takes
// another path on a processor without FMA (older CPUs, Rosetta 2, some
// emulators). A training's policy statistics (entropy, action
// probabilities, gradient norms) go through them, so their last digits
// differ between such machines, while the episodes, which only compare
// draws against those numbers, nearly always agree (docs/cluster.md,
// "Determinism").
func mathSum() uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range 512 {
		x := float64(float64(i)*0.0731) - 18.7 // the same arguments where Go fuses multiply-adds
		for _, y := range [...]float64{math.Exp(x), math.Log(x + 19), math.Log1p(x + 19)} {
			u := math.Float64bits(y)
			for k := range b {
				b[k] = byte(u >> (8 * k))
			}
			h.Write(b[:])
		}
	}
	return h.Sum64()
}

// referenceMathSum is mathSum on the machines that write the golden files
// and run CI: amd64 with FMA, Go 1.26. A Go release that changes these
// functions changes it (and the golden tables): goldenTable's -update
// then says the new value.
const referenceMathSum = 0x53831890ae09f59e

// referenceMath reports whether this machine computes as the one that
// wrote the golden files did.
var referenceMath = sync.OnceValue(func() bool { return mathSum() == referenceMathSum })

// goldenTable compares the CSV table got with testdata/name. On the
// reference machine the bytes must be equal, as golden's are; elsewhere
// each cell must be equal or, for numbers, within a relative 1e-12 (about
// 4,500 units in the last place: room for last-bit differences carried
// through a training, none for a decision that went another way, which
// changes whole rows). The golden files are rewritten only on the
// reference machine.
func goldenTable(t *testing.T, name string, got []byte) {
	t.Helper()
	if referenceMath() {
		golden(t, name, got)
		return
	}
	if *update {
		t.Fatalf("testdata/%s: golden tables are written on amd64 with FMA, whose math gives mathSum %#x; this machine's gives %#x (if this is such a machine and Go's math changed, set referenceMathSum to it)", name, uint64(referenceMathSum), mathSum())
	}
	want, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	if bytes.Equal(want, got) {
		return
	}
	t.Logf("testdata/%s: this machine's math differs from the reference machine's in the last bits; comparing numbers to a relative 1e-12", name)
	if msg := tableDiff(want, got, 1e-12); msg != "" {
		t.Errorf("testdata/%s differs from the output beyond the last bits: %s", name, msg)
	}
}

// tableDiff describes the first cell where the CSV tables a and b differ:
// as text, or as numbers by more than rel relative to the larger; "" if
// none does.
func tableDiff(a, b []byte, rel float64) string {
	ra, err := csv.NewReader(bytes.NewReader(a)).ReadAll()
	if err != nil {
		return "want: " + err.Error()
	}
	rb, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return "got: " + err.Error()
	}
	if len(ra) != len(rb) {
		return "want " + itoa(len(ra)) + " rows, got " + itoa(len(rb))
	}
	for i := range ra {
		if len(ra[i]) != len(rb[i]) {
			return "row " + itoa(i+1) + ": want " + itoa(len(ra[i])) + " cells, got " + itoa(len(rb[i]))
		}
		for j, x := range ra[i] {
			if y := rb[i][j]; x != y && !near(x, y, rel) {
				return "row " + itoa(i+1) + ", column " + ra[0][j] + ": want " + x + ", got " + y
			}
		}
	}
	return ""
}

// near reports whether x and y are numbers within rel of each other,
// relative to the larger magnitude.
func near(x, y string, rel float64) bool {
	a, err1 := strconv.ParseFloat(x, 64)
	b, err2 := strconv.ParseFloat(y, 64)
	if err1 != nil || err2 != nil || math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false // unequal text: an infinity is near nothing but itself
	}
	return math.Abs(a-b) <= rel*max(math.Abs(a), math.Abs(b))
}

func TestTableDiff(t *testing.T) {
	head := "name,n,p\n"
	for _, tt := range []struct {
		name, a, b, want string
	}{
		{"same", head + "x,3,0.5\n", head + "x,3,0.5\n", ""},
		{"last bits", head + "x,3,0.031583052488910565\n", head + "x,3,0.031583052488910544\n", ""},
		{"beyond", head + "x,3,0.5\n", head + "x,3,0.5000001\n", "row 2, column p: want 0.5, got 0.5000001"},
		{"count", head + "x,3,0.5\n", head + "x,4,0.5\n", "row 2, column n: want 3, got 4"},
		{"text", head + "x,3,0.5\n", head + "y,3,0.5\n", "row 2, column name: want x, got y"},
		{"nan", head + "x,3,NaN\n", head + "x,3,0.5\n", "row 2, column p: want NaN, got 0.5"},
		{"infinite", head + "x,3,+Inf\n", head + "x,3,1e308\n", "row 2, column p: want +Inf, got 1e308"},
		{"infinities", head + "x,3,+Inf\n", head + "x,3,-Inf\n", "row 2, column p: want +Inf, got -Inf"},
		{"same infinity", head + "x,3,-Inf\n", head + "x,3,-Inf\n", ""},
		{"rows", head + "x,3,0.5\n", head, "want 2 rows, got 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tableDiff([]byte(tt.a), []byte(tt.b), 1e-12))
		})
	}
}
