package plots_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/plots"
)

var update = flag.Bool("update", false, "rewrite golden files")

var sizes = []struct {
	name string
	size plots.Size
}{{"column", plots.Column}, {"page", plots.Page}, {"tall", plots.Tall}}

// TestGolden compares the SVG of each chart kind at each size with
// testdata/KIND_SIZE.golden.svg: the same elements, attributes and texts
// in the same order, numbers equal within goldenTol points (coordinates
// can differ in the last digit across CPUs). Rewrite the files with
//
//	go test ./plots -run TestGolden -update
func TestGolden(t *testing.T) {
	for _, sz := range sizes {
		charts, err := buildAll(sz.size)
		require.NoError(t, err)
		for _, c := range charts {
			name := c.name + "_" + sz.name
			t.Run(name, func(t *testing.T) {
				base := filepath.Join(t.TempDir(), name)
				// The SVG only: the golden files are SVG, and the 300 DPI PNG
				// took most of the test's time (the race detector's above all).
				require.NoError(t, plots.SaveFormats(c.plot, sz.size, base, c.table, []string{"svg"}))
				got, err := os.ReadFile(base + ".svg")
				require.NoError(t, err)
				golden := filepath.Join("testdata", name+".golden.svg")
				if *update {
					require.NoError(t, os.WriteFile(golden, got, 0o644))
					return
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "missing golden file: run go test ./plots -run TestGolden -update")
				assertSameSVG(t, want, got)
			})
		}
	}
}

const goldenTol = 0.02 // points

// svgToken is one element (its name and attributes) or one text.
type svgToken struct {
	element string
	attrs   []string // "name=value", in document order
	text    string
}

func (t svgToken) String() string {
	if t.element == "" {
		return fmt.Sprintf("text %q", t.text)
	}
	return fmt.Sprintf("<%s %s>", t.element, strings.Join(t.attrs, " "))
}

func svgTokens(t *testing.T, b []byte) []svgToken {
	t.Helper()
	var out []svgToken
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			st := svgToken{element: tok.Name.Local}
			for _, a := range tok.Attr {
				st.attrs = append(st.attrs, a.Name.Local+"="+a.Value)
			}
			out = append(out, st)
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				out = append(out, svgToken{text: s})
			}
		}
	}
}

var number = regexp.MustCompile(`-?[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?`)

// sameWithin reports whether a and b are equal once every number in them
// is allowed to differ by goldenTol.
func sameWithin(a, b string) bool {
	if number.ReplaceAllString(a, "#") != number.ReplaceAllString(b, "#") {
		return false
	}
	na, nb := number.FindAllString(a, -1), number.FindAllString(b, -1)
	for i := range na {
		x, errx := strconv.ParseFloat(na[i], 64)
		y, erry := strconv.ParseFloat(nb[i], 64)
		if errx != nil || erry != nil || math.Abs(x-y) > goldenTol {
			return false
		}
	}
	return true
}

func assertSameSVG(t *testing.T, want, got []byte) {
	t.Helper()
	w, g := svgTokens(t, want), svgTokens(t, got)
	count := func(ts []svgToken) map[string]int {
		m := map[string]int{}
		for _, tok := range ts {
			if tok.element != "" {
				m[tok.element]++
			}
		}
		return m
	}
	texts := func(ts []svgToken) []string {
		var s []string
		for _, tok := range ts {
			if tok.element == "" {
				s = append(s, tok.text)
			}
		}
		return s
	}
	require.Equal(t, count(w), count(g), "elements by name")
	require.Equal(t, texts(w), texts(g), "texts in order")
	require.Len(t, g, len(w))
	for i := range w {
		same := w[i].element == g[i].element && w[i].text == g[i].text && len(w[i].attrs) == len(g[i].attrs)
		for j := 0; same && j < len(w[i].attrs); j++ {
			same = sameWithin(w[i].attrs[j], g[i].attrs[j])
		}
		if !same {
			assert.Failf(t, "SVG differs from golden", "token %d:\nwant %v\ngot  %v", i, w[i], g[i])
			return
		}
	}
}

func TestSameWithin(t *testing.T) {
	assert.True(t, sameWithin("M1.5,2L3,4", "M1.51,2L3,4"))
	assert.False(t, sameWithin("M1.5,2L3,4", "M1.6,2L3,4"))
	assert.False(t, sameWithin("M1.5,2L3,4", "M1.5,2L3,4L5,6"))
	assert.False(t, sameWithin("fill:#27808D", "fill:#27809D"))
	assert.False(t, sameWithin("font-size:7px", "font-size:8px"))
}

// TestGoldenPNG compares the PNG of the line chart at column size with
// testdata/lines_column.golden.png pixel by pixel. The SVG goldens check
// what is drawn; this checks how the raster canvas draws it (the y axis
// upward, butt line caps, the resolution, colours to within a few levels).
// Antialiasing may differ across CPUs by a level or two at edges, so a
// pixel counts as different only when a channel is more than
// pngChannelTol apart, and pngDiffShare of the pixels may differ. Rewrite
// the file with
//
//	go test ./plots -run TestGoldenPNG -update
func TestGoldenPNG(t *testing.T) {
	charts, err := buildAll(plots.Column)
	require.NoError(t, err)
	base := filepath.Join(t.TempDir(), "lines")
	require.NoError(t, plots.SaveFormats(charts[0].plot, plots.Column, base, charts[0].table, []string{"png"}))
	got, err := os.ReadFile(base + ".png")
	require.NoError(t, err)
	golden := filepath.Join("testdata", "lines_column.golden.png")
	if *update {
		require.NoError(t, os.WriteFile(golden, got, 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "missing golden file: run go test ./plots -run TestGoldenPNG -update")
	wantImg, err := png.Decode(bytes.NewReader(want))
	require.NoError(t, err)
	gotImg, err := png.Decode(bytes.NewReader(got))
	require.NoError(t, err)
	require.Equal(t, wantImg.Bounds(), gotImg.Bounds(), "size in pixels")
	b := gotImg.Bounds()
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !closeColors(wantImg.At(x, y), gotImg.At(x, y)) {
				differ++
			}
		}
	}
	assert.LessOrEqual(t, float64(differ), pngDiffShare*float64(b.Dx()*b.Dy()),
		"%d of %d pixels differ from %s", differ, b.Dx()*b.Dy(), golden)
}

const (
	pngChannelTol = 8 << 8 // of 0xffff: 8 levels of 255
	pngDiffShare  = 0.0005
)

func closeColors(a, b color.Color) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	near := func(x, y uint32) bool { return max(x, y)-min(x, y) <= pngChannelTol }
	return near(ar, br) && near(ag, bg) && near(ab, bb) && near(aa, ba)
}
