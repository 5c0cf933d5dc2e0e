package plots_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/swarmsim/swarmsim/plots"
)

// listDir prints the names of the files in dir.
func listDir(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Println(e.Name())
	}
}

// printFile prints the file at path.
func printFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(b))
}

// Draw iterations to a target against team size on a logarithmic axis
// ticked at the sizes measured, and read the chart back from its CSV
// through its spec, as `simulate plot` does.
func ExampleScaling() {
	series := []plots.Series{
		{Name: "flat", X: []float64{2, 4, 8, 16, 32}, Y: []float64{5, 30, 55, 34, 18}},
		{Name: "÷std", X: []float64{2, 4, 8, 16, 32}, Y: []float64{5, 10, 12, 13, 11}},
	}
	spec := plots.Spec{Name: "scaling", Kind: "scaling", XLabel: "team size (agents)", YLabel: "iterations to target", Size: "column"}
	p, err := plots.Draw(&spec, plots.LinesTable(series))
	if err != nil {
		log.Fatal(err)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	fmt.Println(strings.Join(labels, " "))
	_, err = plots.Scaling(plots.Chart{XLabel: "team size (agents)", YLabel: "iterations to target", Size: plots.Column},
		[]plots.Series{{X: []float64{0, 1}, Y: []float64{1, 2}}})
	fmt.Println(err)
	// Output:
	// 2 4 8 16 32
	// plots: series 0 (""): x = 0: a logarithmic axis needs x > 0
}

func ExampleLines() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	series := []plots.Series{
		{Name: "team", X: []float64{0, 10, 20}, Y: []float64{2, 6, 8},
			Lo: []float64{1, 5.2, 7.5}, Hi: []float64{3, 6.8, 8.5}},
		{Name: "solo", X: []float64{0, 10, 20}, Y: []float64{2, 3, 3.5}},
	}
	chart := plots.Chart{XLabel: "training iteration", YLabel: "episode reward (points)", Size: plots.Column}
	p, err := plots.Lines(chart, series)
	if err != nil {
		log.Fatal(err)
	}
	if err := plots.Save(p, chart.Size, filepath.Join(dir, "learning"), plots.LinesTable(series)); err != nil {
		log.Fatal(err)
	}
	listDir(dir)
	printFile(filepath.Join(dir, "learning.csv"))
	// Output:
	// learning.csv
	// learning.pdf
	// learning.png
	// learning.svg
	// series,x,y,lo,hi
	// team,0,2,1,3
	// team,10,6,5.2,6.8
	// team,20,8,7.5,8.5
	// solo,0,2,,
	// solo,10,3,,
	// solo,20,3.5,,
}

func ExampleBars() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	bars := []plots.Bar{
		{Label: "solo", Mean: 42.5, Lo: 39.1, Hi: 46},
		{Label: "team", Mean: 18.9, Lo: 17.2, Hi: 20.4},
	}
	chart := plots.Chart{XLabel: "organization", YLabel: "finish time (min)", Size: plots.Page}
	p, err := plots.Bars(chart, bars)
	if err != nil {
		log.Fatal(err)
	}
	if err := plots.Save(p, chart.Size, filepath.Join(dir, "finish"), plots.BarsTable("mean", bars)); err != nil {
		log.Fatal(err)
	}
	listDir(dir)
	printFile(filepath.Join(dir, "finish.csv"))
	// Output:
	// finish.csv
	// finish.pdf
	// finish.png
	// finish.svg
	// label,mean,lo,hi
	// solo,42.5,39.1,46
	// team,18.9,17.2,20.4
}

func ExampleTimeline() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	spans := []plots.Span{
		{Row: "lead", Start: 0, End: 2, Kind: "work", Label: "plan"},
		{Row: "lead", Start: 2, End: 2.5, Kind: "message"},
		{Row: "worker", Start: 3, End: 8, Kind: "work", Label: "task"},
	}
	flows := []plots.Flow{{FromRow: "lead", From: 2.5, ToRow: "worker", To: 3}}
	chart := plots.Chart{XLabel: "simulated time (min)"}
	p, err := plots.Timeline(chart, spans, flows)
	if err != nil {
		log.Fatal(err)
	}
	if err := plots.Save(p, plots.Column, filepath.Join(dir, "trace"), plots.TimelineTable(spans, flows)); err != nil {
		log.Fatal(err)
	}
	listDir(dir)
	printFile(filepath.Join(dir, "trace.csv"))
	// Output:
	// trace.csv
	// trace.pdf
	// trace.png
	// trace.svg
	// record,row,start,end,kind,label,to_row
	// span,lead,0,2,work,plan,
	// span,lead,2,2.5,message,,
	// span,worker,3,8,work,task,
	// flow,lead,2.5,3,,,worker
}

func ExampleHeatmap() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	g := plots.Grid{
		X: []string{"0.5", "1"}, // message cost, as the sweep writes it
		Y: []string{"2", "4"},   // team size
		Z: [][]float64{
			{31.5, 33}, // team size 2
			{18, 21},   // team size 4
		},
		Annotate: true,
	}
	chart := plots.Chart{XLabel: "message cost (min)", YLabel: "team size (agents)", ZLabel: "finish time (min)"}
	p, err := plots.Heatmap(chart, g)
	if err != nil {
		log.Fatal(err)
	}
	if err := plots.Save(p, plots.Column, filepath.Join(dir, "sweep"), plots.GridTable(g)); err != nil {
		log.Fatal(err)
	}
	listDir(dir)
	printFile(filepath.Join(dir, "sweep.csv"))
	// Output:
	// sweep.csv
	// sweep.pdf
	// sweep.png
	// sweep.svg
	// x,y,z
	// 0.5,2,31.5
	// 1,2,33
	// 0.5,4,18
	// 1,4,21
}

// A difference map of team minus split: the cell whose interval excludes
// zero is outlined, and the colour scale's ends say which side is better.
// The data go beside it with each interval.
func ExampleDiffMap() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	g := plots.Grid{
		X:        []string{"0", "0.25"},    // coupling
		Y:        []string{"300", "30000"}, // message size
		Z:        [][]float64{{0.002, 0.96}, {-0.18, 0.21}},
		Lo:       [][]float64{{-0.05, 0.81}, {-0.4, -0.02}},
		Hi:       [][]float64{{0.06, 1.1}, {0.01, 0.44}},
		Annotate: true,
	}
	chart := plots.Chart{XLabel: "coupling", YLabel: "message size (tokens)", ZLabel: "difference in reward", Stat: "difference of IQMs"}
	p, err := plots.DiffMap(chart, g, plots.Sides{Low: "split better", High: "team better"})
	if err != nil {
		log.Fatal(err)
	}
	if err := plots.SaveFormats(p, plots.Column, filepath.Join(dir, "diff"), plots.GridTable(g), []string{"svg"}); err != nil {
		log.Fatal(err)
	}
	printFile(filepath.Join(dir, "diff.csv"))
	// Output:
	// x,y,z,lo,hi
	// 0,300,0.002,-0.05,0.06
	// 0.25,300,0.96,0.81,1.1
	// 0,30000,-0.18,-0.4,0.01
	// 0.25,30000,0.21,-0.02,0.44
}

// Points over categories: an IQM per organization with its interval,
// where a bar from zero would mislead.
func ExamplePoints() {
	pts := []plots.Bar{{Label: "split", Mean: 0.31, Lo: 0.22, Hi: 0.4}, {Label: "team", Mean: 0.74, Lo: 0.6, Hi: 0.85}}
	p, err := plots.Points(plots.Chart{XLabel: "organization", YLabel: "reward", Stat: "IQM"}, pts)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		fmt.Printf("%s at x = %v\n", t.Label, t.Value)
	}
	// Output:
	// split at x = 0
	// team at x = 1
}

// A Band is a plot.Plotter: it goes into any gonum plot, here under a
// gonum line, with both in one legend entry.
func ExampleNewBand() {
	x := []float64{0, 1, 2, 3}
	mean := []float64{1, 2, 2.5, 2.7}
	band, err := plots.NewBand(x, []float64{0.5, 1.6, 2.2, 2.5}, []float64{1.5, 2.4, 2.8, 2.9})
	if err != nil {
		log.Fatal(err)
	}
	line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: mean[0]}, {X: 1, Y: mean[1]}, {X: 2, Y: mean[2]}, {X: 3, Y: mean[3]}})
	if err != nil {
		log.Fatal(err)
	}
	p := plot.New()
	p.Add(band, line)
	p.Legend.Add("mean, 95% CI", band, line)
	xmin, xmax, ymin, ymax := band.DataRange()
	fmt.Println(xmin, xmax, ymin, ymax)

	_, err = plots.NewBand(x, []float64{0.5, 1.6, 2.2, 2.5}, []float64{1.5, 2.4, 2.1, 2.9})
	fmt.Println(err)
	// Output:
	// 0 3 0.5 2.9
	// plots: band lo[2] = 2.2 > hi[2] = 2.1
}

// A Gantt is a plot.Plotter too; its Ticker names the rows.
func ExampleNewGantt() {
	g, err := plots.NewGantt([]plots.Span{
		{Row: "lead", Start: 0, End: 2, Kind: "work"},
		{Row: "worker", Start: 1, End: 4, Kind: "wait"},
		{Row: "lead", Start: 2, End: 3, Kind: "check"},
	}, []plots.Flow{{FromRow: "lead", From: 3, ToRow: "critic", To: 3.5}})
	if err != nil {
		log.Fatal(err)
	}
	p := plot.New()
	p.Add(g)
	p.Y.Tick.Marker = g.Ticker()
	fmt.Println(g.Rows, g.Kinds)
	for _, t := range g.Ticker().Ticks(p.Y.Min, p.Y.Max) {
		fmt.Println(t.Value, t.Label)
	}
	// Output:
	// [lead worker critic] [work wait check]
	// 2 lead
	// 1 worker
	// 0 critic
}

func ExampleCDF() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	obs, err := plots.ECDF("observed", []float64{0.8, 1.1, 1.0, 19})
	if err != nil {
		log.Fatal(err)
	}
	// An exponential fit with mean 5.5 s, evaluated where the data are.
	fit := plots.Series{Name: "exponential", X: []float64{0.5, 1, 2, 5, 10, 20}}
	for _, x := range fit.X {
		fit.Y = append(fit.Y, 1-math.Exp(-x/5.5))
	}
	chart := plots.Chart{XLabel: "call latency (s)", YLabel: "P(latency <= x)", Size: plots.Column}
	p, err := plots.CDF(chart, obs, []plots.Series{fit}, true)
	if err != nil {
		log.Fatal(err)
	}
	if err := plots.Save(p, chart.Size, filepath.Join(dir, "latency_cdf"), plots.LinesTable([]plots.Series{obs})); err != nil {
		log.Fatal(err)
	}
	printFile(filepath.Join(dir, "latency_cdf.csv"))
	// Output:
	// series,x,y,lo,hi
	// observed,0.8,0,,
	// observed,0.8,0.25,,
	// observed,1,0.25,,
	// observed,1,0.5,,
	// observed,1.1,0.5,,
	// observed,1.1,0.75,,
	// observed,19,0.75,,
	// observed,19,1,,
}
