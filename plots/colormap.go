package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/palette"
)

// viridisStops are nine evenly spaced colours of viridis (van der Walt and
// Smith, matplotlib 2015): perceptually uniform, readable with colour
// blindness, and monotone in lightness, so it survives greyscale.
var viridisStops = []color.NRGBA{
	{R: 0x44, G: 0x01, B: 0x54, A: 0xff},
	{R: 0x47, G: 0x2d, B: 0x7b, A: 0xff},
	{R: 0x3b, G: 0x52, B: 0x8b, A: 0xff},
	{R: 0x2c, G: 0x72, B: 0x8e, A: 0xff},
	{R: 0x21, G: 0x90, B: 0x8c, A: 0xff},
	{R: 0x27, G: 0xad, B: 0x81, A: 0xff},
	{R: 0x5d, G: 0xc8, B: 0x63, A: 0xff},
	{R: 0xaa, G: 0xdc, B: 0x32, A: 0xff},
	{R: 0xfd, G: 0xe7, B: 0x25, A: 0xff},
}

// puOrStops are ColorBrewer's diverging PuOr with 11 classes (Brewer,
// colorbrewer2.org), reversed to run from purple to orange: safe for
// the common colour blindnesses, light at the centre and darker towards
// both ends, so that zero has a colour of its own (near white) and the
// two signs differ in hue.
var puOrStops = []color.NRGBA{
	{R: 0x2d, G: 0x00, B: 0x4b, A: 0xff},
	{R: 0x54, G: 0x27, B: 0x88, A: 0xff},
	{R: 0x80, G: 0x73, B: 0xac, A: 0xff},
	{R: 0xb2, G: 0xab, B: 0xd2, A: 0xff},
	{R: 0xd8, G: 0xda, B: 0xeb, A: 0xff},
	{R: 0xf7, G: 0xf7, B: 0xf7, A: 0xff},
	{R: 0xfe, G: 0xe0, B: 0xb6, A: 0xff},
	{R: 0xfd, G: 0xb8, B: 0x63, A: 0xff},
	{R: 0xe0, G: 0x82, B: 0x14, A: 0xff},
	{R: 0xb3, G: 0x58, B: 0x06, A: 0xff},
	{R: 0x7f, G: 0x3b, B: 0x08, A: 0xff},
}

// Viridis returns the viridis colour map over [min, max], interpolated
// linearly in sRGB between nine stops. It returns an error unless min < max
// and both are finite.
func Viridis(min, max float64) (palette.ColorMap, error) {
	return newStopMap("viridis", viridisStops, min, max)
}

// Diverging returns a diverging colour map for signed differences over
// [-limit, limit]: ColorBrewer's PuOr, purple below zero, near white at
// zero, orange above. Symmetric limits keep zero at the centre, so that
// equal differences of either sign look equally strong. It returns an
// error unless limit is positive and finite.
func Diverging(limit float64) (palette.ColorMap, error) {
	return newStopMap("diverging", puOrStops, -limit, limit)
}

func newStopMap(name string, stops []color.NRGBA, min, max float64) (palette.ColorMap, error) {
	if err := checkFinite(name+" range", min, max); err != nil {
		return nil, err
	}
	if !(min < max) {
		return nil, fmt.Errorf("plots: %s range [%v, %v] is empty", name, min, max)
	}
	return &stopMap{stops: stops, min: min, max: max, alpha: 1}, nil
}

// stopMap is a colour map interpolated linearly in sRGB between evenly
// spaced stops.
type stopMap struct {
	stops           []color.NRGBA
	min, max, alpha float64
}

var _ palette.ColorMap = (*stopMap)(nil)

// at returns the colour at fraction f in [0, 1] of the map.
func (v *stopMap) at(f float64) color.Color {
	f = math.Min(1, math.Max(0, f)) * float64(len(v.stops)-1)
	i := min(int(f), len(v.stops)-2)
	t := f - float64(i)
	a, b := v.stops[i], v.stops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round((1-t)*float64(x) + t*float64(y))) }
	return color.NRGBA{
		R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B),
		A: uint8(math.Round(v.alpha * 255)),
	}
}

func (v *stopMap) At(x float64) (color.Color, error) {
	switch {
	case math.IsNaN(x):
		return nil, palette.ErrNaN
	case x < v.min:
		return nil, palette.ErrUnderflow
	case x > v.max:
		return nil, palette.ErrOverflow
	}
	return v.at((x - v.min) / (v.max - v.min)), nil
}

func (v *stopMap) Max() float64     { return v.max }
func (v *stopMap) Min() float64     { return v.min }
func (v *stopMap) SetMax(x float64) { v.max = x }
func (v *stopMap) SetMin(x float64) { v.min = x }
func (v *stopMap) Alpha() float64   { return v.alpha }
func (v *stopMap) SetAlpha(a float64) {
	if !(a >= 0 && a <= 1) {
		panic(fmt.Sprintf("plots: alpha %v is not in [0, 1]", a))
	}
	v.alpha = a
}

// Palette returns n colours evenly spaced from the low end to the high end.
func (v *stopMap) Palette(n int) palette.Palette {
	cs := make(colors, n)
	for i := range cs {
		f := 0.5
		if n > 1 {
			f = float64(i) / float64(n-1)
		}
		cs[i] = v.at(f)
	}
	return cs
}

type colors []color.Color

func (cs colors) Colors() []color.Color { return cs }
