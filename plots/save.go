package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"regexp"
	"slices"

	"git.sr.ht/~sbinet/gg"
	"github.com/swarmsim/swarmsim/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PNGDPI is the resolution of the PNG files Save writes.
const PNGDPI = 300

// Save writes p at size to base+".svg", base+".pdf" and base+".png", and
// data to base+".csv", each atomically: it renders everything in memory,
// writes each file to a temporary file in the same directory, then renames
// it into place. A failed or interrupted Save leaves no partial file under
// a final name (a file renamed before a later one failed is complete);
// temporary files are hidden (".name.*.tmp") and removed on error.
//
// It first checks that no text would be clipped or overlap at size and
// that all text is in Windows-1252, the encoding of PDF fonts here.
//
// The SVG and CSV of the same input are identical byte for byte; so is the
// PDF, whose creation and modification dates are fixed to 1970-01-01.
// The PNG of the same input is identical on one machine (no metadata, one
// compression level); its pixels may differ across CPU architectures. Fonts are Liberation
// Sans, embedded in the PDF; the SVG names them with Arial (metrically
// identical) and sans-serif as fallbacks.
func Save(p *plot.Plot, size Size, base string, data Table) error {
	return SaveFormats(p, size, base, data, Formats)
}

// Formats are the image formats Save writes, by file extension.
var Formats = []string{"svg", "pdf", "png"}

// SaveFormats is Save for some of Formats only (the CSV is always
// written); an unknown format is an error naming the known ones.
func SaveFormats(p *plot.Plot, size Size, base string, data Table, formats []string) error {
	renders := map[string]func(*plot.Plot, Size) ([]byte, error){"svg": renderSVG, "pdf": renderPDF, "png": renderPNG}
	for _, f := range formats {
		if renders[f] == nil {
			return fmt.Errorf("plots: format %q: want one of %v", f, Formats)
		}
	}
	if p == nil {
		return errors.New("plots: nil plot")
	}
	if err := size.check(); err != nil {
		return err
	}
	if err := data.check(); err != nil {
		return err
	}
	if err := checkFit(p, size); err != nil {
		return err
	}
	b, err := data.csvBytes()
	if err != nil {
		return fmt.Errorf("plots: %s.csv: %w", base, err)
	}
	files := []file{{path: base + ".csv", data: b}}
	for _, f := range Formats { // in a fixed order, whatever the caller's
		if !slices.Contains(formats, f) {
			continue
		}
		b, err := renders[f](p, size)
		if err != nil {
			return fmt.Errorf("plots: %s.%s: %w", base, f, err)
		}
		files = append(files, file{path: base + "." + f, data: b})
	}
	return writeAtomic(files)
}

var svgFont = regexp.MustCompile(`font-family:Liberation (Sans|Serif|Mono);`)

func renderSVG(p *plot.Plot, size Size) ([]byte, error) {
	c := vgsvg.New(size.Width, size.Height)
	drawPlot(c, p, size)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	fallback := map[string]string{"Sans": "Arial,Helvetica,sans-serif", "Serif": "'Times New Roman',serif", "Mono": "'Courier New',monospace"}
	return svgFont.ReplaceAllFunc(b.Bytes(), func(m []byte) []byte {
		v := svgFont.FindSubmatch(m)[1]
		return fmt.Appendf(nil, "font-family:'Liberation %s',%s;", v, fallback[string(v)])
	}), nil
}

// pdfDates matches the dates fpdf writes from the clock. Replacing them
// with a fixed date of the same length keeps the cross-reference offsets
// of the PDF valid.
var pdfDates = regexp.MustCompile(`/(CreationDate|ModDate) \(D:[0-9]{14}\)`)

func renderPDF(p *plot.Plot, size Size) ([]byte, error) {
	c := pdfCanvas{vgpdf.New(size.Width, size.Height)}
	drawPlot(c, p, size)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return pdfDates.ReplaceAll(b.Bytes(), []byte("/$1 (D:19700101000000)")), nil
}

// pdfCanvas corrects colours for vgpdf, which passes alpha-premultiplied
// components as the colour of translucent fills, darkening them.
type pdfCanvas struct{ *vgpdf.Canvas }

func (c pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.Canvas.SetColor(straightAlpha(color.NRGBA64Model.Convert(clr).(color.NRGBA64)))
}

// FillString passes s to vgpdf in Windows-1252, the encoding of the
// fonts vgpdf embeds; vgpdf itself passes UTF-8 bytes, which garbles
// anything outside ASCII. checkFit has already rejected other runes.
func (c pdfCanvas) FillString(f font.Face, pt vg.Point, s string) {
	b, _ := toCP1252(s)
	c.Canvas.FillString(f, pt, b)
}

// cp1252High maps the runes that Windows-1252 puts at 0x80-0x9F.
var cp1252High = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87,
	'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e,
	'‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97,
	'˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
}

// toCP1252 returns s encoded in Windows-1252, and false when a rune of s
// has no code there (it becomes '?').
func toCP1252(s string) (string, bool) {
	ok := true
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < 0x80 || (r >= 0xa0 && r <= 0xff):
			b = append(b, byte(r))
		case cp1252High[r] != 0:
			b = append(b, cp1252High[r])
		default:
			b = append(b, '?')
			ok = false
		}
	}
	return string(b), ok
}

// straightAlpha is a colour whose RGBA method returns components that are
// not premultiplied by alpha: only for vgpdf, which expects that.
type straightAlpha color.NRGBA64

func (s straightAlpha) RGBA() (r, g, b, a uint32) {
	return uint32(s.R), uint32(s.G), uint32(s.B), uint32(s.A)
}

func renderPNG(p *plot.Plot, size Size) ([]byte, error) {
	// vgimg.UseWH would make an image and then gg a copy of it to draw on;
	// giving both the one image halves the memory a PNG takes (8.8 MB at
	// 300 DPI on a page). The size in pixels is rounded as vgimg rounds it,
	// and the context set up as vgimg sets up the one it makes. vgimg then
	// takes the canvas's size from the image: the same as size where that
	// is whole pixels (column, page and tall are), else within half a
	// pixel of it.
	px := func(l vg.Length) int { return int(l/vg.Inch*PNGDPI + 0.5) }
	img := image.NewRGBA(image.Rect(0, 0, px(size.Width), px(size.Height)))
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	c := vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(PNGDPI))
	drawPlot(c, p, size)
	return encodePNG(img)
}

// encodePNG is the one PNG encoding of Save, so that the same pixels give
// the same bytes. A PNG committed under docs/figures must be encoded so:
// otherwise the command that draws it rewrites it with unchanged pixels
// and leaves the checkout dirty (TestFiguresEncodedAsSaveWrites).
func encodePNG(img image.Image) ([]byte, error) {
	// At the fastest compression the files are about 5% larger, and
	// drawing charts takes about a sixth less time: at 300 DPI the default
	// level spent most of a PNG's time compressing.
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type file struct {
	path string
	data []byte
}

// writeAtomic writes every file to a temporary file beside it, then
// renames them into place in order. On error it removes the temporary
// files that remain.
func writeAtomic(files []file) (err error) {
	tmps := make([]string, 0, len(files))
	defer func() {
		if err != nil {
			for _, t := range tmps {
				os.Remove(t) // Best effort: the first error is the one to report.
			}
		}
	}()
	for _, f := range files {
		t, err := atomicfile.WriteTemp(f.path, f.data)
		if t != "" {
			tmps = append(tmps, t)
		}
		if err != nil {
			return fmt.Errorf("plots: %w", err)
		}
	}
	for len(tmps) > 0 {
		if err := os.Rename(tmps[0], files[len(files)-len(tmps)].path); err != nil {
			return fmt.Errorf("plots: %w", err)
		}
		tmps = tmps[1:]
	}
	return nil
}

var _ vg.CanvasWriterTo = pdfCanvas{}
