package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/rundir"
)

// A Chart is one chart of the page: its SVG, inline, and its caption.
type Chart struct {
	Name    string
	Caption string
	SVG     template.HTML
	// Wide is set for a chart drawn a page wide (timelines, heat maps),
	// which takes a row of the page to itself.
	Wide bool
	// Links are the chart's other files: its table and its PNG and PDF.
	Links []Link
}

// chartsDir is where every command puts its charts, chartIndex the
// index of how each was drawn, and chartsLeftOut the notes of the charts
// left out (experiment.ChartsDir, ChartIndex and LeftOutFile, which this
// package may not import).
const (
	chartsDir     = "charts"
	chartIndex    = "charts/charts.json"
	chartsLeftOut = "charts/left_out.txt"
)

// leftOut reads the notes of the charts r left out, a line each ("chart
// X left out: a cell has no finite value"): the page says which charts
// it lacks and why, as the terminal did.
func leftOut(r *rundir.Run) ([]string, error) {
	if !r.Manifest.Has(chartsLeftOut) {
		return nil, nil
	}
	data, err := os.ReadFile(r.Join(chartsLeftOut))
	if err != nil {
		return nil, err
	}
	var notes []string
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); line != "" {
			notes = append(notes, line)
		}
	}
	return notes, nil
}

// unindexed says what the charts of a kind of directory that writes no
// index show, by chart name ("" for any chart of the kind).
var unindexed = map[rundir.Kind]map[string]string{
	rundir.KindFit: {"": "the observed distribution (steps) against each distribution fitted to it; fit.csv has their parameters and says which was chosen"},
	rundir.KindReplay: {
		"replayed_vs_recorded": "each replayed run's duration against its recorded one, a point per run (the line y = x is the recording reproduced); replay.csv has every run",
		"latency_vs_load":      "the mean time per model call and serving delay per run against the load, with their intervals; summary.csv has them",
	},
}

// unindexedNote returns what the chart name of a directory of kind k
// that writes no index shows: its own note, else its kind's.
func unindexedNote(k rundir.Kind, name string) string {
	if n, ok := unindexed[k][name]; ok {
		return n
	}
	return unindexed[k][""]
}

// charts reads the charts of r: those of its index first, in its order,
// with captions from it, then any other SVG in charts/ (a fit
// directory's CDFs, drawn without an index).
func charts(r *rundir.Run) ([]Chart, error) {
	var specs []plots.Spec
	if r.Manifest.Has(chartIndex) {
		data, err := os.ReadFile(r.Join(chartIndex))
		if err != nil {
			return nil, err
		}
		if specs, err = plots.ParseSpecs(r.Join(chartIndex), data); err != nil {
			return nil, err
		}
	}
	indexed := map[string]bool{}
	for _, s := range specs {
		indexed[s.Name] = true
	}
	for _, f := range r.Manifest.Files {
		name, ok := strings.CutSuffix(f, ".svg")
		if dir, base := path.Split(name); ok && dir == chartsDir+"/" && !indexed[base] {
			specs = append(specs, plots.Spec{Name: base, Size: "page", Note: unindexedNote(r.Manifest.Kind, base)})
		}
	}
	var out []Chart
	for _, s := range specs {
		base := chartsDir + "/" + s.Name
		if !r.Manifest.Has(base + ".svg") {
			return nil, fmt.Errorf("%s lists chart %s, but the directory has no %s.svg: 'simulate plot %s' draws it again", r.Join(chartIndex), s.Name, base, r.Path)
		}
		data, err := os.ReadFile(r.Join(base + ".svg"))
		if err != nil {
			return nil, err
		}
		svg, err := inlineSVG(r.Join(base+".svg"), data)
		if err != nil {
			return nil, err
		}
		banded, err := drawsBands(r, &s)
		if err != nil {
			return nil, err
		}
		c := Chart{Name: s.Name, Caption: caption(&s, banded), SVG: svg, Wide: s.Size != "column"}
		for _, ext := range []string{".csv", ".png", ".pdf"} {
			// A format the run did not draw (--format) may have been drawn
			// since by 'simulate plot' in place, which keeps the manifest.
			if r.Manifest.Has(base+ext) || ext != ".csv" && isFile(r.Join(base+ext)) {
				c.Links = append(c.Links, Link{strings.TrimPrefix(ext, "."), href(base + ext)})
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// drawsBands reports whether the line chart s of r draws a band around
// any of its lines, as its table says: a training of one seed has no
// seeds to resample, and its caption must not name a band. Other kinds,
// and a chart whose table the directory lacks, are taken at their
// index's word.
func drawsBands(r *rundir.Run, s *plots.Spec) (bool, error) {
	name := chartsDir + "/" + s.Name + ".csv"
	if (s.Kind != "lines" && s.Kind != "scaling") || !r.Manifest.Has(name) {
		return true, nil
	}
	t, err := r.Table(name)
	if err != nil {
		return false, err
	}
	lo, hi := slices.Index(t.Header, "lo"), slices.Index(t.Header, "hi")
	if lo < 0 || hi < 0 {
		return false, fmt.Errorf("%s: no lo and hi columns, as a line chart's table has (%s)", t.Path, strings.Join(t.Header, ", "))
	}
	for _, row := range t.Rows {
		if row[lo] != "" || row[hi] != "" {
			return true, nil
		}
	}
	return false, nil
}

// caption says what a chart shows, from its entry in the index: what is
// drawn against what, what its lines or bars are and what their
// intervals are (for a line chart, only where banded), and its note.
func caption(s *plots.Spec, banded bool) string {
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	var c string
	switch s.Kind {
	case "bars":
		c = fmt.Sprintf("%s by variant: bars the %s, whiskers the %s.", or(s.YLabel, s.Name), or(s.Stat, "mean"), or(s.Interval, "95% CI"))
	case "lines", "scaling":
		c = fmt.Sprintf("%s against %s: lines the %s", or(s.YLabel, s.Name), or(s.XLabel, "x"), or(s.Stat, "mean"))
		if banded {
			c += ", bands the " + or(s.Interval, "95% CI")
		}
		c += "."
	case "timeline":
		c = fmt.Sprintf("Timeline of %s: each agent's work and messages over %s.", or(s.Title, s.Name), or(s.XLabel, "time"))
	case "points":
		c = fmt.Sprintf("%s by %s: points the %s, whiskers the %s.", or(s.YLabel, s.Name), or(s.XLabel, "category"), or(s.Stat, "mean"), or(s.Interval, "95% CI"))
	case "heatmap":
		c = fmt.Sprintf("%s over %s and %s.", or(s.ZLabel, s.Name), or(s.XLabel, "x"), or(s.YLabel, "y"))
		if s.Stat != "" {
			c = strings.TrimSuffix(c, ".") + ": cells the " + s.Stat + "."
		}
	case "diffmap":
		// The colour scale's ends name the sides; the outline marks the
		// cells whose interval excludes zero (plots.DiffMap).
		c = fmt.Sprintf("%s over %s and %s: cells the %s (above zero %s, below %s), outlined where the %s excludes zero.",
			or(s.ZLabel, s.Name), or(s.XLabel, "x"), or(s.YLabel, "y"), or(s.Stat, "difference"), s.High, s.Low, or(s.Interval, "95% CI"))
	default:
		c = s.Name + ":"
	}
	if s.Kind != "timeline" && s.Title != "" {
		c = s.Title + ": " + c
	}
	if s.Note != "" {
		c += " " + capitalize(s.Note) + "."
	}
	return capitalize(c)
}

// capitalize starts a sentence with a capital unless its first word is a
// name (finish_time), which keeps its spelling.
func capitalize(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if s == "" || strings.ContainsAny(first, "_-.0123456789") || first != strings.ToLower(first) {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// svgElements and svgAttrs are what a chart's SVG may hold: drawing and
// text, with the attributes that place and style them.
var (
	svgElements = set("svg", "g", "path", "text", "tspan", "rect", "circle", "ellipse", "line", "polyline", "polygon",
		"defs", "clipPath", "title", "desc", "image")
	svgAttrs = set("width", "height", "viewBox", "version", "d", "style", "transform", "x", "y", "x1", "y1", "x2", "y2",
		"cx", "cy", "r", "rx", "ry", "points", "fill", "stroke", "stroke-width", "opacity", "font-family", "font-size",
		"text-anchor", "id", "clip-path", "preserveAspectRatio", "href")
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// errNotDrawing is wrapped by inlineSVG's error for an SVG that holds
// more than drawing.
var errNotDrawing = errors.New("not a chart swarmsim draws")

// inlineSVG returns the svg element of data, the SVG file at path, to
// place in the page. It refuses an SVG that holds anything but drawing
// (a script, an event handler, a link or style that fetches from
// elsewhere), naming the file and what it found, so that a page opened
// from a directory runs nothing that directory's files say.
func inlineSVG(path string, data []byte) (template.HTML, error) {
	const ns = "http://www.w3.org/2000/svg"
	d := xml.NewDecoder(bytes.NewReader(data))
	start, end, depth := -1, -1, 0
	bad := func(what string) (template.HTML, error) {
		return "", fmt.Errorf("%s:%d: %s: %w", path, line(data, d.InputOffset()), what, errNotDrawing)
	}
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if start < 0 {
				if t.Name.Local != "svg" || t.Name.Space != ns {
					return bad(fmt.Sprintf("root element <%s>, want <svg> of namespace %s", t.Name.Local, ns))
				}
				start = int(off)
			} else if depth == 0 {
				return bad("a second root element")
			}
			if !svgElements[t.Name.Local] || t.Name.Space != ns {
				return bad(fmt.Sprintf("element <%s>", t.Name.Local))
			}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				if !svgAttrs[a.Name.Local] {
					return bad(fmt.Sprintf("attribute %s of <%s>", a.Name.Local, t.Name.Local))
				}
				v := strings.ToLower(a.Value)
				if a.Name.Local == "href" && !(t.Name.Local == "image" && strings.HasPrefix(v, "data:image/png;base64,")) {
					return bad(fmt.Sprintf("link %.40q of <%s>: only an <image> with a PNG inside may link", a.Value, t.Name.Local))
				}
				if strings.Contains(strings.ReplaceAll(v, "url(#", ""), "url(") || strings.Contains(v, "expression(") {
					return bad(fmt.Sprintf("attribute %s of <%s> fetches %.40q", a.Name.Local, t.Name.Local, a.Value))
				}
			}
			depth++
		case xml.EndElement:
			if depth--; depth == 0 {
				end = int(d.InputOffset())
			}
		case xml.Directive:
			return bad("a directive <!" + string(t[:min(len(t), 20)]) + ">")
		case xml.ProcInst:
			if start >= 0 {
				return bad("a processing instruction <?" + t.Target + "?>")
			}
		}
	}
	if start < 0 || end < 0 {
		return "", fmt.Errorf("%s: no <svg> element: %w", path, errNotDrawing)
	}
	// Only the element itself: no XML declaration, no comment around it.
	return template.HTML(data[start:end]), nil
}

// line returns the line of data that offset falls on.
func line(data []byte, offset int64) int {
	return 1 + bytes.Count(data[:min(int(offset), len(data))], []byte("\n"))
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
