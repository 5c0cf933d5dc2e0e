package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/plots"
	"github.com/swarmsim/swarmsim/scenarios"
)

// setsFlag is --set, which may be repeated; each use appends an override.
// One without "=" is refused as the flag's value (a usage error); the
// scenario checks the rest.
type setsFlag []string

func (f *setsFlag) String() string { return strings.Join(*f, " ") }

func (f *setsFlag) Set(v string) error {
	if !strings.Contains(v, "=") {
		return errors.New(scenarios.SetForm)
	}
	*f = append(*f, v)
	return nil
}

// seedFlag is a uint64 flag that remembers whether it was given, so that
// the scenario's own seed applies otherwise. Like every number flag here
// it is read in decimal: 010 is ten.
type seedFlag struct {
	v   uint64
	set bool
}

func (f *seedFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatUint(f.v, 10)
}

func (f *seedFlag) Set(s string) error {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d in decimal", uint64(math.MaxUint64))
	}
	f.v, f.set = v, true
	return nil
}

// stand is a flag that stands for a --set of path: given, its value
// replaces the --set's.
type stand struct {
	flag, path string
	given      bool
}

func (f *seedFlag) stand() stand { return stand{"--seed", "seed", f.set} }

// refuseReplaced returns a usage error for a --set among sets of a path
// that a flag given stands for: the flag's value wins, so the --set would
// change nothing.
func refuseReplaced(sets []string, stands ...stand) error {
	for _, st := range stands {
		if !st.given {
			continue
		}
		for _, s := range sets {
			if scenarios.SetPath(s) == st.path {
				return usagef("--set %s: %s replaces it; give one of them", s, st.flag)
			}
		}
	}
	return nil
}

// countFlag is a whole number of 1 or more, such as --episodes N. Zero
// means that the flag was not given, so its default applies; given, 0
// (which would silently mean the default) and negative numbers are
// refused.
type countFlag int

func (c *countFlag) String() string {
	if c == nil || *c == 0 {
		return ""
	}
	return strconv.Itoa(int(*c))
}

func (c *countFlag) Set(s string) error {
	v, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) && v > 0 {
		return fmt.Errorf("want a whole number of 1 or more, at most %d", math.MaxInt)
	}
	if err != nil || v < 1 {
		return errors.New("want a whole number of 1 or more in decimal (leave the flag out for its default)")
	}
	*c = countFlag(v)
	return nil
}

// formatsFlag is --format: the image formats each chart is drawn in, a
// comma-separated list of plots.Formats, each at most once. Its zero value
// stands for all of them.
type formatsFlag struct {
	list []string
	set  bool
}

// addFormatFlag declares --format on a command that draws charts; needs
// is what the command requires of the list (checkFormats), so that the
// help says it before the command refuses it.
func addFormatFlag(fs *flag.FlagSet, f *formatsFlag, needs string) {
	fs.Var(f, "format", "draw each chart in the formats `F`: a comma-separated list of png,\nsvg and pdf"+needs)
}

// What checkFormats requires of --format, in its help: of a command that
// writes report.html, and of one with --figures too.
const (
	formatNeedsSVG    = "; svg is required (report.html shows it)"
	formatNeedsSVGPNG = formatNeedsSVG + ",\nand png with --figures"
)

// formats are the formats chosen: all of them unless the flag was given.
func (f *formatsFlag) formats() []string {
	if f.list == nil {
		return plots.Formats
	}
	return f.list
}

func (f *formatsFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(f.formats(), ",")
}

func (f *formatsFlag) Set(s string) error {
	list := strings.Split(s, ",")
	for i, v := range list {
		if !slices.Contains(plots.Formats, v) {
			return fmt.Errorf("%q is not one of png, svg and pdf", v)
		}
		if slices.Contains(list[:i], v) {
			return fmt.Errorf("%s is listed twice", v)
		}
	}
	f.list, f.set = list, true
	return nil
}

// checkFormats refuses a --format that a command writing report.html
// cannot take, or that nothing would read: the report shows each chart's
// SVG, --figures copies its PNG, and --charts=false draws no chart.
func checkFormats(f formatsFlag, charts bool, figures string) error {
	switch {
	case !f.set:
		return nil
	case !charts:
		return usagef("--format %s chooses the charts' formats, and --charts=false draws none: give one of them", f.String())
	case !slices.Contains(f.list, "svg"):
		return usagef("--format %s: report.html shows each chart's SVG: add svg (such as --format svg,%s)", f.String(), f.String())
	case figures != "" && !slices.Contains(f.list, "png"):
		return usagef("--format %s: --figures %s copies each chart's .svg, .png and .csv: add png, or leave --figures out", f.String(), figures)
	}
	return nil
}

// intFlag is a whole-number flag read in decimal only. The flag package's
// own IntVar reads Go's prefixes too, so --seeds 010 would mean 8, which
// nobody who types it means.
type intFlag struct{ p *int }

func (f intFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f intFlag) Set(s string) error {
	v, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("want a whole number from %d to %d", math.MinInt, math.MaxInt)
	}
	if err != nil {
		return errors.New("want a whole number in decimal")
	}
	*f.p = v
	return nil
}

// policyFlag is --policy: a policy learned by 'simulate train', which
// decides in every variant instead of the scenario's organization. It
// stands for --set policy.file=FILE, so that the scenario's loading reads
// and checks the file as it does a policy.file in the scenario.
type policyFlag struct{ file string }

func (p *policyFlag) flags(fs *flag.FlagSet) {
	fs.Func("policy", "decide with the learned policy in `FILE` (written by 'simulate train')\nin every variant, instead of the scenario's organization\n(it stands for --set policy.file=FILE)", func(v string) error {
		if v == "" {
			// An empty name would leave the organizations deciding
			// without a word.
			return errors.New("empty: give the file of a policy that simulate train wrote")
		}
		p.file = v
		return nil
	})
}

// restate rewrites, in err's message, the --set that the flag stands for
// as the flag the user gave ("--policy FILE"), keeping err to unwrap.
func (p *policyFlag) restate(err error) error {
	set := "--set policy.file=" + p.file
	if err == nil || p.file == "" || !strings.Contains(err.Error(), set) {
		return err
	}
	return restated{err, strings.ReplaceAll(err.Error(), set, "--policy "+p.file)}
}

// restated is an error told in other words.
type restated struct {
	err error
	msg string
}

func (r restated) Error() string { return r.msg }
func (r restated) Unwrap() error { return r.err }

func (p *policyFlag) stand() stand { return stand{"--policy", "policy.file", p.file != ""} }

// sets returns the overrides that the flag stands for.
func (p *policyFlag) sets() []string {
	if p.file == "" {
		return nil
	}
	return []string{"policy.file=" + p.file}
}

// outputOptions are the flags that run, train and sweep share: what to
// run (--seed, --set, --variant), on how many workers, within which
// limits, and what to write (--out, --charts, --figures). Each command
// embeds them.
type outputOptions struct {
	limits  limitOptions
	figures string
	seed    seedFlag
	out     string
	sets    setsFlag
	variant string
	workers countFlag
	charts  bool
	format  formatsFlag
}

// outputUsage is what a command says of the shared flags that mean
// something of its own (its seed, its directory, its variant, its
// workers).
type outputUsage struct{ seed, out, set, variant, workers string }

// flags defines the shared flags on fs.
func (o *outputOptions) flags(fs *flag.FlagSet, u outputUsage) {
	fs.Var(&o.seed, "seed", u.seed)
	fs.StringVar(&o.out, "out", "", u.out)
	fs.Var(&o.sets, "set", u.set)
	fs.StringVar(&o.variant, "variant", "", u.variant)
	fs.Var(&o.workers, "workers", u.workers)
	fs.BoolVar(&o.charts, "charts", true, "draw the charts; --charts=false writes the tables only")
	addFormatFlag(fs, &o.format, formatNeedsSVGPNG)
	o.limits.flags(fs)
	addFiguresFlag(fs, &o.figures)
}

// check refuses shared flags that contradict each other or a --set, and
// the command's own flags that stand for scenario values (extra) under a
// --set of the same value.
func (o *outputOptions) check(extra ...stand) error {
	if err := checkFigures(o.figures, o.charts, o.sets); err != nil {
		return err
	}
	if err := checkFormats(o.format, o.charts, o.figures); err != nil {
		return err
	}
	if o.figures != "" && o.variant != "" {
		// The figures, named after the scenario, are those of every
		// variant: one variant's would take their place in DIR.
		return usagef("--figures %s copies the scenario's figures, drawn from all its variants, and --variant %s runs one: give one of them", o.figures, o.variant)
	}
	return refuseReplaced(o.sets, append([]stand{o.seed.stand()}, extra...)...)
}

// workerCount is --workers, by default the number of CPUs.
func (o *outputOptions) workerCount() int {
	if o.workers == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return int(o.workers)
}

// dir is --out, by default out/NAME<suffix>-seedS (see defaultOut).
func (o *outputOptions) dir(sc *scenarios.Scenario, suffix string, seed uint64) string {
	if o.out == "" {
		return defaultOut(sc, o.variant, suffix, seed)
	}
	return o.out
}

// seedOf is --seed, by default sc's seed.
func (o *outputOptions) seedOf(sc *scenarios.Scenario) uint64 {
	if o.seed.set {
		return o.seed.v
	}
	return sc.Seed
}
