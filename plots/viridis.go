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
var viridisStops = [...]color.NRGBA{
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

// Viridis returns the viridis colour map over [min, max], interpolated
// linearly in sRGB between nine stops. It returns an error unless min < max
// and both are finite.
func Viridis(min, max float64) (palette.ColorMap, error) {
	if err := checkFinite("viridis range", min, max); err != nil {
		return nil, err
	}
	if !(min < max) {
		return nil, fmt.Errorf("plots: viridis range [%v, %v] is empty", min, max)
	}
	return &viridis{min: min, max: max, alpha: 1}, nil
}

type viridis struct{ min, max, alpha float64 }

var _ palette.ColorMap = (*viridis)(nil)

// at returns the colour at fraction f in [0, 1] of the map.
func (v *viridis) at(f float64) color.Color {
	f = math.Min(1, math.Max(0, f)) * float64(len(viridisStops)-1)
	i := min(int(f), len(viridisStops)-2)
	t := f - float64(i)
	a, b := viridisStops[i], viridisStops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round((1-t)*float64(x) + t*float64(y))) }
	return color.NRGBA{
		R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B),
		A: uint8(math.Round(v.alpha * 255)),
	}
}

func (v *viridis) At(x float64) (color.Color, error) {
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

func (v *viridis) Max() float64     { return v.max }
func (v *viridis) Min() float64     { return v.min }
func (v *viridis) SetMax(x float64) { v.max = x }
func (v *viridis) SetMin(x float64) { v.min = x }
func (v *viridis) Alpha() float64   { return v.alpha }
func (v *viridis) SetAlpha(a float64) {
	if !(a >= 0 && a <= 1) {
		panic(fmt.Sprintf("plots: alpha %v is not in [0, 1]", a))
	}
	v.alpha = a
}

// Palette returns n colours evenly spaced from the low end to the high end.
func (v *viridis) Palette(n int) palette.Palette {
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
