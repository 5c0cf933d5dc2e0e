package plots

import (
	"fmt"
	"image/color"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func TestSeriesStylesDiffer(t *testing.T) {
	seen := map[string]bool{}
	for i := range MaxSeries {
		for _, key := range []string{
			fmt.Sprint("colour", seriesColors[i]),
			fmt.Sprint("dash", seriesDashes[i]),
			fmt.Sprintf("glyph%T", seriesGlyphs[i]),
		} {
			assert.False(t, seen[key], "repeated %s", key)
			seen[key] = true
		}
	}
}

func TestHatchLinesStayInside(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 10, Y: 5}, Max: vg.Point{X: 30, Y: 12}}
	for _, deg := range []float64{0, 45, 90, 135} {
		lines := hatchLines(r, deg*math.Pi/180, hatchSpacing)
		require.NotEmpty(t, lines, "%v°", deg)
		for _, l := range lines {
			for _, p := range l {
				assert.InDelta(t, math.Max(10, math.Min(30, float64(p.X))), float64(p.X), 1e-9)
				assert.InDelta(t, math.Max(5, math.Min(12, float64(p.Y))), float64(p.Y), 1e-9)
			}
		}
	}
	// Horizontal lines every hatchSpacing points through [5, 12].
	assert.Len(t, hatchLines(r, 0, 2), 4) // y = 6, 8, 10, 12
	assert.Empty(t, hatchLines(vg.Rectangle{Min: vg.Point{X: 1, Y: 1}, Max: vg.Point{X: 2, Y: 1.5}}, 0, 2))
}

func TestToCP1252(t *testing.T) {
	s, ok := toCP1252("a±é€–")
	assert.True(t, ok)
	assert.Equal(t, "a\xb1\xe9\x80\x96", s)
	s, ok = toCP1252("β→")
	assert.False(t, ok)
	assert.Equal(t, "??", s)
}

// vgpdf reads colour components as they come from RGBA; straightAlpha
// must hand it the colour, not the colour premultiplied by alpha.
func TestStraightAlpha(t *testing.T) {
	c := translucent(Blue, 0.25)
	s := straightAlpha(color.NRGBA64Model.Convert(c).(color.NRGBA64))
	r, g, b, a := s.RGBA()
	assert.Equal(t, []uint32{0, 0x72, 0xb2, 0x40}, []uint32{r >> 8, g >> 8, b >> 8, a >> 8})
}

func TestMeasurer(t *testing.T) {
	sty := textStyle(10)
	m := &measurer{w: 100, h: 50, stack: []affine{identity}}
	drawLabel(m, sty, vg.Point{X: 5, Y: 25}, "inside")
	require.Empty(t, m.outside)
	drawLabel(m, sty, vg.Point{X: 90, Y: 25}, "too far right")
	require.Len(t, m.outside, 1)

	// Rotated a quarter turn about (50, 25), the text runs upwards.
	sty.Rotation = math.Pi / 2
	sty.XAlign = -0.5
	m = &measurer{w: 100, h: 50, stack: []affine{identity}}
	drawLabel(m, sty, vg.Point{X: 50, Y: 25}, "vertical")
	require.Len(t, m.texts, 1)
	b := m.texts[0]
	w, h := labelBox(sty, "vertical")
	assert.InDelta(t, float64(w), b.y1-b.y0, 1e-6, "height of the box is the text's width")
	assert.InDelta(t, float64(h), b.x1-b.x0, 1e-6)
	assert.InDelta(t, 25, (b.y0+b.y1)/2, 1e-6, "centred on the anchor")
}

func TestLegendLayout(t *testing.T) {
	l := newLegendStrip()
	for _, s := range []string{"a", "bb", "ccc", "dddd", "eeeee"} {
		l.add(s)
	}
	l.layout(1000)
	assert.Equal(t, 5, l.cols)
	assert.Equal(t, 1, l.rows())
	l.layout(10)
	assert.Equal(t, 1, l.cols)
	assert.Equal(t, 5, l.rows())
	// Room for four columns: balanced to three, in two rows.
	w := l.widths(4)
	l.layout(w[0] + w[1] + w[2] + w[3] + 3*l.colGap)
	assert.Equal(t, 3, l.cols)
	assert.Equal(t, 2, l.rows())
}

func TestViridis(t *testing.T) {
	cm, err := Viridis(10, 20)
	require.NoError(t, err)
	lo, err := cm.At(10)
	require.NoError(t, err)
	assert.Equal(t, color.Color(viridisStops[0]), lo)
	hi, err := cm.At(20)
	require.NoError(t, err)
	assert.Equal(t, color.Color(viridisStops[len(viridisStops)-1]), hi)
	for _, v := range []float64{9, 21, math.NaN()} {
		_, err := cm.At(v)
		assert.Error(t, err, v)
	}
	// Lightness rises monotonically: the map reads in greyscale.
	prev := -1.0
	for i, c := range cm.Palette(64).Colors() {
		l := luminance(c)
		assert.Greater(t, l, prev, "colour %d", i)
		prev = l
	}
}

func TestTextOn(t *testing.T) {
	assert.Equal(t, color.Color(color.White), textOn(viridisStops[0]))
	assert.Equal(t, color.Color(color.Black), textOn(viridisStops[len(viridisStops)-1]))
}

func TestTidyTicks(t *testing.T) {
	labels := func(min, max float64) []string {
		var out []string
		for _, tk := range (tidyTicks{}).Ticks(min, max) {
			if !tk.IsMinor() {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"0.0", "2.5", "5.0"}, labels(0, 5.1))
	assert.Equal(t, []string{"0", "20", "40"}, labels(0, 46))
	small := labels(0, 3e-9)
	want := []string{}
	for _, tk := range (plot.DefaultTicks{}).Ticks(0, 3e-9) {
		if !tk.IsMinor() {
			want = append(want, tk.Label)
		}
	}
	assert.Equal(t, want, small, "exponent form kept: %v", small)
	var _ plot.Ticker = tidyTicks{}
}

// TestEndTicks: an axis of whole numbers is labelled at its end; the
// last tidy label gives way when it would crowd the end; an axis that
// ends on a tidy tick is left as it is.
func TestEndTicks(t *testing.T) {
	labels := func(min, max float64) []string {
		var out []string
		for _, tk := range (endTicks{}).Ticks(min, max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tc := range []struct {
		min, max float64
		want     []string
	}{
		{0, 149, []string{"0", "60", "120", "149"}},
		{0, 59, []string{"0", "25", "50", "59"}},
		{0, 51, []string{"0", "25", "51"}},
		{0, 29, []string{"0", "25", "29"}},
		{0, 150, []string{"0", "50", "100", "150"}},
		{0, 2, []string{"0", "1", "2"}},
	} {
		assert.Equal(t, tc.want, labels(tc.min, tc.max), "%v to %v", tc.min, tc.max)
	}
	assert.True(t, wholeX([]Series{{X: []float64{0, 1, 2}}}))
	assert.False(t, wholeX([]Series{{X: []float64{0, 1}}, {X: []float64{0.5}}}))
}

// TestLogTicksDecades: a log axis has a tick at each power of ten from
// that of min (its exponent truncated, as plot.LogTicks does) to the one
// at or above max, minor ticks at 2 to 9 times each but the last, and
// labels, exact, on the powers whose exponent is a multiple of every.
func TestLogTicksDecades(t *testing.T) {
	for _, tc := range []struct {
		every  int
		labels []string
	}{
		{1, []string{"0.01", "0.1", "1", "10", "100"}},
		{2, []string{"0.01", "1", "100"}},
	} {
		ticks := logTicks{every: tc.every}.Ticks(0.003, 50)
		var labels []string
		minor := 0
		for _, tk := range ticks {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
			if tk.Value > 100 {
				t.Errorf("every %d: a tick at %g, beyond the last power 100", tc.every, tk.Value)
			}
			if tk.Label == "" && tk.Value != 0.1 && tk.Value != 10 {
				minor++
			}
		}
		assert.Equal(t, tc.labels, labels, "every %d", tc.every)
		assert.Equal(t, 100.0, ticks[len(ticks)-1].Value, "every %d: the last tick is the power at or above max", tc.every)
		assert.Equal(t, 4*8, minor, "every %d: 8 minor ticks in each of 4 decades", tc.every)
	}
}
