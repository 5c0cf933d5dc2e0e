package main

import (
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swarmsim/swarmsim/experiment"
	"github.com/swarmsim/swarmsim/internal/atomicfile"
	"github.com/swarmsim/swarmsim/internal/spelling"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/scenarios"
)

// figureExts are the files of a chart that --figures copies: the vector
// and raster images a document embeds, and the data to redraw them. The
// PDF stays in the run directory (its embedded fonts make it the largest).
var figureExts = []string{".svg", ".png", ".csv"}

// addFiguresFlag declares --figures on a command that draws charts.
func addFiguresFlag(fs *flag.FlagSet, dir *string) {
	fs.StringVar(dir, "figures", "", "copy the charts that the scenario's figures list names (else every chart)\ninto directory `DIR` as SCENARIO_CHART.svg, .png and .csv, such as docs/figures")
}

// checkFigures refuses --figures with --charts=false before any work is
// done: there would be no chart to copy; and a --figures that names a
// file, a folder below a file, or a results directory. Without --figures nothing reads
// the scenario's figures list, so a --set of it (among sets) is refused
// too.
func checkFigures(dir string, charts bool, sets []string) error {
	if dir != "" && !charts {
		return usagef("--figures %s copies charts, and --charts=false draws none: give one of them", dir)
	}
	// Checked before the work, which would be lost at the copy: a file
	// where the folder should be, or above it (the copy makes the folders
	// that are not there, and a file cannot hold one), or a directory of
	// results, whose files the figures would mix with.
	if dir != "" {
		// p is the nearest of dir and the folders above it that is there.
		p := dir
		fi, err := os.Stat(p)
		for err != nil && filepath.Dir(p) != p {
			p = filepath.Dir(p)
			fi, err = os.Stat(p)
		}
		switch {
		case err != nil:
		case !fi.IsDir() && p == dir:
			return fmt.Errorf("--figures %s is a file: want a folder for the figure files", dir)
		case !fi.IsDir():
			return fmt.Errorf("--figures %s: %s is a file, which cannot hold a folder: want a folder for the figure files", dir, p)
		case p == dir:
			if _, err := os.Stat(filepath.Join(dir, rundir.ManifestName)); err == nil {
				return fmt.Errorf("--figures %s holds results (%s): want a folder of figures, such as docs/figures", dir, rundir.ManifestName)
			}
		}
	}
	for _, s := range sets {
		if dir == "" && setSection(s) == "figures" {
			return usagef("--set %s: the figures list names the charts that --figures copies, and no --figures DIR is given: give one, or remove the --set", s)
		}
	}
	return nil
}

// checkFigureNames refuses, before anything runs, a name of sc.Figures
// that is none of the charts the command may draw (possible): the run's
// work would end in an error at the copy.
func checkFigureNames(sc *scenarios.Scenario, dir, command string, possible []string) error {
	if dir == "" {
		return nil
	}
	return unknownFigure(sc, possible, "is not a chart that simulate "+command+" draws (its charts: %s)")
}

// unknownFigure returns the error of the first name of sc.Figures that is
// not in charts, with why, whose %s is where charts are listed; nil if
// there is none.
func unknownFigure(sc *scenarios.Scenario, charts []string, why string) error {
	for i, name := range sc.Figures {
		if !slices.Contains(charts, name) {
			return fmt.Errorf("%s: figures[%d]: chart %q "+why+"%s", sc.FigureAt(i), i, name, strings.Join(charts, ", "), spelling.DidYouMean(name, charts))
		}
	}
	return nil
}

// exportFigures copies the charts that sc.Figures names (every chart when
// it names none) from the run directory into dir, named after the
// scenario; what names the work that drew them ("run", "sweep",
// "training"). It checks every name before it copies anything, so that a
// figure the run did not draw is an error and no half set is left; each
// file is written atomically. It returns the paths written.
func exportFigures(run *rundir.Dir, sc *scenarios.Scenario, dir, what string) ([]string, error) {
	var drawn []string
	for _, f := range run.Files() {
		if name, ok := strings.CutPrefix(f, experiment.ChartsDir+"/"); ok && path.Ext(name) == ".svg" {
			drawn = append(drawn, strings.TrimSuffix(name, ".svg"))
		}
	}
	slices.Sort(drawn)
	want := sc.Figures
	if len(want) == 0 {
		want = drawn
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("--figures %s: the run drew no charts (was --charts=false given?)", dir)
	}
	if err := unknownFigure(sc, drawn, "was not drawn by this "+what+" (drawn: %s)"); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--figures: %w", err)
	}
	var wrote []string
	for _, name := range want {
		for _, ext := range figureExts {
			data, err := os.ReadFile(run.Join(path.Join(experiment.ChartsDir, name+ext)))
			if err != nil {
				return wrote, fmt.Errorf("--figures: %w", err)
			}
			to := filepath.Join(dir, experiment.FileName(sc.Name)+"_"+name+ext)
			if err := atomicfile.Write(to, data); err != nil {
				return wrote, fmt.Errorf("--figures: %w", err)
			}
			wrote = append(wrote, to)
		}
	}
	return wrote, nil
}

// copyFigures exports the figures of a run into dir when --figures names
// one, and says what it wrote; what names the work (exportFigures).
func copyFigures(s *session, run *rundir.Dir, sc *scenarios.Scenario, dir, what string) error {
	if dir == "" {
		return nil
	}
	wrote, err := exportFigures(run, sc, dir, what)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stderr, "%s: %d figure files in %s\n", s.name, len(wrote), dir)
	return nil
}
