package main

import (
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/plots"
	htmlreport "github.com/swarmsim/swarmsim/report"
	"github.com/swarmsim/swarmsim/rundir"
)

// reportKinds are the directories whose reports the tests read, in the
// order they are written (compare reads the two runs), with the command
// that writes each, at the tests' fast settings.
var reportKinds = []reportKind{
	{"run", "summary"}, {"train", "summary"}, {"sweep", "summary"}, {"compare", "compare"}, {"fit", "fit"},
}

type reportKind struct{ name, table string }

// writeReportDirs writes a directory of each of kinds (a run, a train, a
// sweep, a compare, a fit; compare reads the run) below root, each with its
// report, and returns them by kind.
func writeReportDirs(t *testing.T, root string, kinds []reportKind) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	for _, k := range kinds {
		dirs[k.name] = filepath.Join(root, k.name)
	}
	run2 := filepath.Join(root, "run2")
	for _, c := range []struct {
		kind string // the directory the command is for
		args []string
	}{
		{"run", []string{"run", "tiny", "--episodes", "4", "--out", dirs["run"]}},
		{"compare", []string{"run", "tiny", "--episodes", "4", "--seed", "2", "--out", run2}},
		{"train", []string{"train", "tiny", "--seeds", "2", "--set", "train.iterations=3", "--set", "train.batch=2", "--set", "train.group=3", "--out", dirs["train"]}},
		{"sweep", []string{"sweep", sweepScenario, "--out", dirs["sweep"]}},
		{"compare", []string{"compare", dirs["run"], run2, "--out", dirs["compare"]}},
		{"fit", []string{"fit", "../../calibrate/testdata/multiagent.otlp.json", "--out", dirs["fit"]}},
	} {
		if _, ok := dirs[c.kind]; !ok {
			continue
		}
		// Each ends by pointing to its report: --out is the last argument.
		out := mustSimulate(t, c.args...)
		page := filepath.Join(c.args[len(c.args)-1], htmlreport.Name)
		assert.True(t, strings.HasSuffix(out, "\nreport: "+page+" (open it in a browser)\n"), "simulate %s ends with its report's path:\n%s", c.args[0], out)
	}
	return dirs
}

// chartNames returns the names of the charts of the complete directory
// dir: those its manifest lists as charts/NAME.svg.
func chartNames(t *testing.T, dir string) []string {
	t.Helper()
	m, err := rundir.ReadManifest(dir)
	require.NoError(t, err)
	var names []string
	for _, f := range m.Files {
		if name, ok := strings.CutSuffix(strings.TrimPrefix(f, "charts/"), ".svg"); ok && strings.HasPrefix(f, "charts/") {
			names = append(names, name)
		}
	}
	return names
}

var (
	hrefRE   = regexp.MustCompile(`\shref="([^"]*)"`)
	figureRE = regexp.MustCompile(`<figure[^>]* id="chart-([^"]+)">\s*<div class="chart"><svg `)
)

// TestReports writes a directory of every kind once and checks their
// reports: their HTML's structure, and what a browser makes of them.
// Under the race detector it checks the run directory's alone: the
// commands' own concurrency is raced by their tests, the browser test's
// goroutines (a console reader, chromedp's) on one page as on five, and
// every kind's charts would take most of a minute there.
func TestReports(t *testing.T) {
	kinds := reportKinds
	if race.Enabled {
		kinds = kinds[:1]
	}
	dirs := writeReportDirs(t, t.TempDir(), kinds)
	t.Run("structure", func(t *testing.T) { checkStructure(t, dirs, kinds) })
	t.Run("browser", func(t *testing.T) { checkInBrowser(t, dirs, kinds) })
}

// checkStructure: every command writes report.html into its directory,
// with the table the directory is judged by, every chart of the directory
// inline as SVG in the order of its index, the variants' names, and links
// that all lead to files of the directory; the page fetches nothing from
// elsewhere. simulate report writes the same page again.
func checkStructure(t *testing.T, dirs map[string]string, kinds []reportKind) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			dir := dirs[k.name]
			b, err := os.ReadFile(filepath.Join(dir, htmlreport.Name))
			require.NoError(t, err)
			page := string(b)
			m, err := rundir.ReadManifest(dir)
			require.NoError(t, err)

			assert.Contains(t, page, `<section id="`+k.table+`">`)
			assert.Contains(t, page, "<table", "the summary table")
			assert.Contains(t, page, "<h1>"+html.EscapeString(m.Scenario)+" ")
			for _, v := range m.Variants {
				assert.Contains(t, page, html.EscapeString(v))
			}

			want := chartNames(t, dir)
			require.NotEmpty(t, want, "the directory has charts")
			var got []string
			for _, f := range figureRE.FindAllStringSubmatch(page, -1) {
				got = append(got, f[1])
			}
			if m.Has("charts/charts.json") {
				// The index's order, which is the order they were drawn in.
				data, err := os.ReadFile(filepath.Join(dir, "charts", "charts.json"))
				require.NoError(t, err)
				specs, err := plots.ParseSpecs("charts.json", data)
				require.NoError(t, err)
				want = want[:0]
				for _, s := range specs {
					want = append(want, s.Name)
				}
			}
			assert.Equal(t, want, got, "a figure with an inline SVG per chart")
			assert.Equal(t, len(want), strings.Count(page, "<svg "), "one SVG per chart")

			links := hrefRE.FindAllStringSubmatch(page, -1)
			require.NotEmpty(t, links)
			for _, l := range links {
				href := html.UnescapeString(l[1])
				if strings.HasPrefix(href, "#") {
					require.Contains(t, page, `id="`+href[1:]+`"`, "the link %s leads inside the page", href)
					continue
				}
				p, err := url.PathUnescape(href)
				require.NoError(t, err)
				require.True(t, strings.HasPrefix(p, "./"), "link %s is relative to the directory", href)
				_, err = os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
				assert.NoError(t, err, "the link %s leads to a file of the directory", href)
			}
			for _, f := range append(slices.Clone(m.Files), rundir.ManifestName) {
				if !strings.HasPrefix(f, "charts/") || strings.HasSuffix(f, ".csv") {
					assert.Contains(t, page, `href="./`+(&url.URL{Path: f}).EscapedPath()+`"`, "a link to %s", f)
				}
			}
			assert.NotRegexp(t, `\s(src|href)="(https?:)?//`, page, "nothing fetched from elsewhere")

			// simulate report writes the same page again.
			require.NoError(t, os.Remove(filepath.Join(dir, htmlreport.Name)))
			stdout := mustSimulate(t, "report", dir)
			assert.Equal(t, "wrote "+filepath.Join(dir, htmlreport.Name)+"\n", stdout)
			again, err := os.ReadFile(filepath.Join(dir, htmlreport.Name))
			require.NoError(t, err)
			assert.Equal(t, page, string(again))
		})
	}
}

// TestReportRefuses: simulate report wants one complete directory, and
// says which it did not get.
func TestReportRefuses(t *testing.T) {
	empty := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, exitUsage, "want one directory, got 0 arguments"},
		{[]string{"report", empty, empty}, exitUsage, "want one directory, got 2 arguments"},
		{[]string{"report", empty}, exitFail, empty + ": no manifest.json"},
		{[]string{"report", filepath.Join(empty, "missing")}, exitFail, "missing does not exist"},
	}
	for _, c := range cases {
		_, stderr, code := simulate(t, c.args...)
		assert.Equal(t, c.code, code, "%v", c.args)
		assert.Contains(t, stderr, c.want)
		_, err := os.Stat(filepath.Join(empty, htmlreport.Name))
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")
	}
}
