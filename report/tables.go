package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/internal/numtext"
	"github.com/swarmsim/swarmsim/metric"
	"github.com/swarmsim/swarmsim/rundir"
	"github.com/swarmsim/swarmsim/stats"
)

// A Table is a table of the page, read from one CSV file of the
// directory.
type Table struct {
	ID, Title, Caption string
	// Source links the CSV file the table shows.
	Source Link
	Head   []Head
	Rows   [][]Cell
	// keys is the number of columns that name a row (variant, sweep
	// axes); marked says whether the best values are marked, and
	// fewerSeeds whether a value was passed over for the mark as over
	// fewer seeds than others of its column.
	keys       int
	marked     bool
	fewerSeeds bool
}

// A Head is a column's head: the metric's label with its unit.
type Head struct {
	Text string
	// Title is the metric's reading, shown on hover.
	Title string
	Num   bool
}

// A Cell is one cell of a table.
type Cell struct {
	Text string
	// V is the cell's value, which sorts the column and decides the
	// best; Num says whether it has one.
	V   float64
	Num bool
	// Best marks the best value of its column.
	Best bool
	// Seeds is the number of seeds V is over, 0 where the table does
	// not say (a run's means are over episodes): a value over fewer
	// seeds than others of its column is no candidate for the best.
	Seeds int
	// Class is "better" or "worse" for a difference whose interval
	// excludes zero, "" otherwise.
	Class string
	Title string
}

// Sort is the value the page's script sorts the column by.
func (c Cell) Sort() string {
	switch {
	case !c.Num || math.IsNaN(c.V):
		return ""
	case math.IsInf(c.V, 0):
		return strings.Replace(fmt.Sprint(c.V), "Inf", "Infinity", 1) // as Number() reads it
	}
	return strconv.FormatFloat(c.V, 'g', -1, 64)
}

// tableFiles are the CSV files each kind of directory is judged by, in
// the order the page shows them.
var tableFiles = map[rundir.Kind][]string{
	rundir.KindRun:     {"summary.csv"},
	rundir.KindTrain:   {"summary.csv"},
	rundir.KindSweep:   {"summary.csv"},
	rundir.KindCompare: {"compare.csv"},
	rundir.KindFit:     {"fit.csv"},
	rundir.KindReplay:  {"summary.csv"},
}

// Unmarked says which columns of the summary of the directory that m
// describes no best mark may go to, and why: every column where its
// variants pose different problems (tasks), else the rewards where they
// score them differently (rewards, RewardsDiffer; "" where tasks is not).
// It is the one rule of the page and of simulate table.
func Unmarked(m *rundir.Manifest) (unmarked func(col string) bool, tasks, rewards string, err error) {
	sc, err := readScenario(m.Resolved)
	if err != nil {
		return nil, "", "", err
	}
	return sc.unmarked(m.Variants)
}

func (sc scenario) unmarked(ran []string) (unmarked func(col string) bool, tasks, rewards string, err error) {
	if tasks = sc.tasksDiffer(ran); tasks != "" {
		return func(string) bool { return true }, tasks, "", nil
	}
	if rewards, err = sc.rewardsDiffer(ran); err != nil || rewards != "" {
		return RewardColumn, "", rewards, err
	}
	return func(string) bool { return false }, "", "", nil
}

// tables reads the tables of r's kind that its manifest lists; sc is its
// scenario as run.
func tables(r *rundir.Run, sc scenario) ([]*Table, error) {
	unmarked, tasks, differ, err := sc.unmarked(r.Manifest.Variants)
	if err != nil {
		return nil, fmt.Errorf("%s: resolved scenario: %w", r.Join(rundir.ManifestName), err)
	}
	var out []*Table
	for _, name := range tableFiles[r.Manifest.Kind] {
		if !r.Manifest.Has(name) {
			continue
		}
		t, err := r.Table(name)
		if err != nil {
			return nil, err
		}
		parts := byPolicy(t)
		for _, part := range parts {
			tab, err := tableOf(part.Table, unmarked)
			if err != nil {
				return nil, err
			}
			line := "column"
			if tab.marked && len(tab.Rows) <= maxTransposed && len(tab.Rows) < len(tab.Head)-tab.keys {
				tab = transpose(tab)
				line = "row"
			}
			switch {
			case tab.marked && tasks != "":
				tab.Caption += " No value is marked best: " + tasks + ", so they pose different problems."
			case tab.marked:
				tab.Caption += " The best value of each " + line + " is marked."
			}
			if tab.fewerSeeds {
				tab.Caption += " A value over fewer seeds than others of its " + line + " (a metric undefined for some seeds, or trials a sweep lacks) is not marked: its best would rest on less."
			}
			if tab.marked && differ != "" && hasReward(part.Table) {
				tab.Caption += " Rewards are not marked: " + differ + ", so the rewards measure different objectives."
			}
			tab.ID = strings.TrimSuffix(name, ".csv")
			if part.fixed {
				tab.ID += "-fixed"
				tab.Title = "Baselines"
				tab.Caption = "Each variant's own policy section (a fixed organization) on the episodes of the learned policy's last tenth of training. " + untrained(parts) + tab.Caption
			}
			tab.Source = Link{name, href(name)}
			out = append(out, tab)
		}
	}
	return out, nil
}

// RewardColumn reports whether col holds rewards, whose best compares
// objectives where the rows score them differently (RewardsDiffer).
func RewardColumn(col string) bool {
	m, ok := MetricOf(col)
	return ok && (m.Name == "reward" || m.Name == "reward_mean")
}

// hasReward reports whether t has a column of rewards, or rows of them
// under a metric column.
func hasReward(t *rundir.Table) bool {
	if slices.ContainsFunc(t.Header, RewardColumn) {
		return true
	}
	c, err := t.Col("metric")
	return err == nil && slices.ContainsFunc(t.Rows, func(r []string) bool { return RewardColumn(r[c]) })
}

// untrained says which variants of a training's summary have baselines
// but no learned rows, and why: "" if none.
func untrained(parts []policyPart) string {
	learned := map[string]bool{}
	var fixed []string
	for _, part := range parts {
		v := slices.Index(part.Header, "variant")
		if v < 0 {
			return ""
		}
		for _, row := range part.Rows {
			switch {
			case !part.fixed:
				learned[row[v]] = true
			case !slices.Contains(fixed, row[v]):
				fixed = append(fixed, row[v])
			}
		}
	}
	var none []string
	for _, name := range fixed {
		if !learned[name] {
			none = append(none, name)
		}
	}
	if none == nil {
		return ""
	}
	return "No learned row in the summary for " + strings.Join(none, ", ") + ": variants alike but for their policy section train once, as the first of them. "
}

// policyPart is the rows of a summary for one policy.
type policyPart struct {
	*rundir.Table
	fixed bool
}

// byPolicy splits a training's summary.csv, whose policy column
// (rundir.Table.PolicyCol) tells the learned policy's rows from the
// baselines' (fixed), into a tidy summary per policy, in the order they
// first appear, each without the column. Any other table is one part.
func byPolicy(t *rundir.Table) []policyPart {
	p := t.PolicyCol()
	if p < 0 || len(t.Rows) == 0 {
		return []policyPart{{Table: t}}
	}
	header := slices.Delete(slices.Clone(t.Header), p, p+1)
	var parts []policyPart
	var names []string
	for _, row := range t.Rows {
		k := slices.Index(names, row[p])
		if k < 0 {
			k = len(parts)
			names = append(names, row[p])
			parts = append(parts, policyPart{Table: &rundir.Table{Path: t.Path, Header: header}, fixed: row[p] == "fixed"})
		}
		parts[k].Rows = append(parts[k].Rows, slices.Delete(slices.Clone(row), p, p+1))
	}
	return parts
}

// tableOf reads t by its shape: a comparison (diff, diff_lo, diff_hi), a
// summary with one row per variant and metric (metric, iqm, iqm_lo,
// iqm_hi), a summary with one row per variant and a column group per
// metric (a value followed by its _lo and _hi), or a plain table.
func tableOf(t *rundir.Table, unmarked func(col string) bool) (*Table, error) {
	has := func(cols ...string) bool {
		for _, c := range cols {
			if !slices.Contains(t.Header, c) {
				return false
			}
		}
		return true
	}
	// rundir.ParseTable's reader has refused rows of another length.
	switch {
	case has("variant", "metric", "a", "b", "diff", "diff_lo", "diff_hi", "prob_improvement"):
		return differences(t)
	case has("metric", "iqm", "iqm_lo", "iqm_hi"):
		return pivot(t, unmarked)
	case len(Groups(t.Header)) > 0:
		return wide(t, unmarked)
	}
	return plain(t)
}

// MetricOf returns the entry of a column from the table of metrics: its
// own name, or its name less a "_mean" suffix (summary.csv's finish_time_mean
// is the mean of finish_time). It is the one reading of which column is
// which metric, for the page and for simulate table.
func MetricOf(col string) (metric.Metric, bool) {
	if m, ok := metric.Lookup(col); ok {
		return m, true
	}
	if base, ok := strings.CutSuffix(col, "_mean"); ok {
		return metric.Lookup(base)
	}
	return metric.Metric{}, false
}

// head returns the head of a metric's column, with unit the CSV's unit
// for metrics the table of metrics lacks.
func head(col, unit string) Head {
	if m, ok := MetricOf(col); ok {
		return Head{Text: m.Label, Title: m.Reading, Num: true}
	}
	text := col
	if unit != "" && unit != metric.Plain {
		text += " (" + unit + ")"
	}
	return Head{Text: text, Num: true}
}

// better returns which way col is better; None for a column the table
// of metrics lacks.
func better(col string) metric.Better {
	if m, ok := MetricOf(col); ok {
		return m.Better
	}
	return metric.None
}

// A Group is a column of values and the columns of their interval.
type Group struct {
	Name        string
	Val, Lo, Hi int
}

// Groups finds the column groups of header: a column followed by two
// ending in _lo and _hi with one stem (success_rate, success_lo,
// success_hi; finish_time_mean, finish_time_lo, finish_time_hi).
func Groups(header []string) []Group {
	var gs []Group
	for i := 0; i+2 < len(header); i++ {
		stem, ok := strings.CutSuffix(header[i+1], "_lo")
		if ok && header[i+2] == stem+"_hi" && strings.HasPrefix(header[i], stem) {
			gs = append(gs, Group{header[i], i, i + 1, i + 2})
			i += 2
		}
	}
	return gs
}

// wide reads a summary with a row per variant: its first column names
// the row, each group becomes a column "value [lo, hi]", and the other
// columns are shown as they are.
func wide(t *rundir.Table, unmarked func(col string) bool) (*Table, error) {
	gs := Groups(t.Header)
	tab := &Table{Title: "Summary", Caption: "Each cell: the mean over the episodes [its 95% interval].", keys: 1, marked: true}
	tab.Head = append(tab.Head, Head{Text: t.Header[0]})
	type col struct {
		g     Group
		plain bool
	}
	var cols []col
	for i := 1; i < len(t.Header); i++ {
		if j := slices.IndexFunc(gs, func(g Group) bool { return g.Val == i }); j >= 0 {
			cols = append(cols, col{g: gs[j]})
			i += 2
		} else {
			cols = append(cols, col{g: Group{Name: t.Header[i], Val: i}, plain: true})
		}
	}
	for _, c := range cols {
		tab.Head = append(tab.Head, wideHead(c.g.Name, c.plain))
	}
	for i, row := range t.Rows {
		cells := []Cell{{Text: row[0]}}
		for _, c := range cols {
			if c.plain {
				v, err := t.Float(i, c.g.Val)
				if err != nil {
					return nil, err
				}
				cells = append(cells, numCell(v))
				continue
			}
			cell, err := intervalAt(t, i, c.g)
			if err != nil {
				return nil, err
			}
			cells = append(cells, cell)
		}
		tab.Rows = append(tab.Rows, cells)
	}
	for j, c := range cols {
		if !counts(c.g.Name, c.plain) && !unmarked(c.g.Name) {
			markBest(tab, j+1, better(c.g.Name))
		}
	}
	return tab, nil
}

// counts reports whether a column of a wide summary counts episodes: a
// column without an interval whose metric is a fraction per episode
// (acceptable, comm_changed_outcome) holds how many episodes had it.
func counts(col string, plain bool) bool {
	m, ok := MetricOf(col)
	return plain && ok && m.Unit == metric.Fraction
}

// wideHead is head, but a column that counts episodes is labelled with
// its metric's label less the unit of a fraction, in episodes
// ("communication changed the outcome (episodes)").
func wideHead(col string, plain bool) Head {
	if counts(col, plain) {
		m, _ := MetricOf(col)
		return Head{Text: strings.TrimSuffix(m.Label, " ("+metric.Fraction+")") + " (episodes)", Title: "The number of episodes of which: " + m.Reading, Num: true}
	}
	return head(col, "")
}

// pivot reads a summary with a row per metric (train, sweep): a row per
// point (the columns before "metric": variant and sweep axes), a column
// per metric, each cell "IQM [lo, hi]".
func pivot(t *rundir.Table, unmarked func(col string) bool) (*Table, error) {
	mcol, _ := t.Col("metric")
	iqm := Group{Name: "iqm", Val: slices.Index(t.Header, "iqm"), Lo: slices.Index(t.Header, "iqm_lo"), Hi: slices.Index(t.Header, "iqm_hi")}
	unit := slices.Index(t.Header, "unit")
	seeds := slices.Index(t.Header, "n_seeds")
	note := slices.Index(t.Header, "interval")

	var keys, metrics []string
	at := map[[2]string]Cell{}
	units := map[string]string{}
	var ns []string
	caption := "Each cell: the interquartile mean (IQM) over seeds [its 95% interval]"
	for i, row := range t.Rows {
		key := strings.Join(row[:mcol], "\x00")
		name := row[mcol]
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
		if !slices.Contains(metrics, name) {
			metrics = append(metrics, name)
		}
		if unit >= 0 {
			units[name] = row[unit]
		}
		c, err := intervalAt(t, i, iqm)
		if err != nil {
			return nil, err
		}
		if seeds >= 0 {
			if c.Seeds, err = t.Count(i, seeds); err != nil {
				return nil, err
			}
			c.Title = "IQM of " + row[seeds] + " seeds"
			if row[seeds] == "1" {
				c.Title = "IQM of 1 seed"
			}
			// A metric undefined for every seed (NaN over 0) says
			// nothing of how many seeds the others are over.
			if !slices.Contains(ns, row[seeds]) && (row[seeds] != "0" || !math.IsNaN(c.V)) {
				ns = append(ns, row[seeds])
			}
		}
		if note >= 0 && i == 0 {
			caption = "Each cell: the interquartile mean (IQM) over seeds [" + row[note] + "]"
		}
		at[[2]string{key, name}] = c
	}
	if len(ns) == 1 {
		over := ns[0] + " seeds"
		if ns[0] == "1" {
			over = "1 seed"
		}
		caption = strings.Replace(caption, "over seeds", "over "+over, 1)
	}
	tab := &Table{Title: "Summary", Caption: caption + ".", keys: mcol, marked: true}
	for _, k := range t.Header[:mcol] {
		tab.Head = append(tab.Head, Head{Text: k})
	}
	for _, m := range metrics {
		tab.Head = append(tab.Head, head(m, units[m]))
	}
	for _, key := range keys {
		var cells []Cell
		for _, k := range strings.Split(key, "\x00") {
			cells = append(cells, Cell{Text: k})
		}
		for _, m := range metrics {
			c, ok := at[[2]string{key, m}]
			if !ok {
				c = Cell{Text: "–", Title: "not measured"}
			}
			cells = append(cells, c)
		}
		tab.Rows = append(tab.Rows, cells)
	}
	for j, m := range metrics {
		if !unmarked(m) {
			markBest(tab, mcol+j, better(m))
		}
	}
	return tab, nil
}

// RowBetter is the better direction of row i of compare.csv, whose metric
// is in column name: its better column's, which compare writes per row
// (none for rewards of two objectives), else the metric's.
func RowBetter(t *rundir.Table, i, name int) metric.Better {
	if c, err := t.Col("better"); err == nil {
		switch dir := metric.Better(t.Rows[i][c]); dir {
		case metric.Higher, metric.Lower, metric.None:
			return dir
		}
	}
	return better(t.Rows[i][name])
}

// differences reads compare.csv: a row per variant and metric, B − A
// with its interval, marked where the interval excludes zero, and the
// probability that B does better.
func differences(t *rundir.Table) (*Table, error) {
	col := func(name string) int { i, _ := t.Col(name); return i }
	variant, name, a, b := col("variant"), col("metric"), col("a"), col("b")
	diff, lo, hi, prob := col("diff"), col("diff_lo"), col("diff_hi"), col("prob_improvement")
	unit := slices.Index(t.Header, "unit")
	tab := &Table{
		Title: "Differences",
		Caption: "B − A per variant and metric, with its 95% bootstrap interval, and the probability that B does better than A " +
			"(by the metric's direction; ties count a half). A difference whose interval excludes zero is marked better or worse for B.",
		Head: []Head{{Text: "variant"}, {Text: "metric"}, {Text: "A", Num: true}, {Text: "B", Num: true},
			{Text: "B − A [95% CI]", Num: true}, {Text: "P(B better)", Num: true}},
	}
	for i, row := range t.Rows {
		var v [6]float64
		for j, c := range []int{a, b, diff, lo, hi, prob} {
			f, err := t.Float(i, c)
			if err != nil {
				return nil, err
			}
			v[j] = f
		}
		h := head(row[name], "")
		if unit >= 0 && !strings.Contains(h.Text, "(") && row[unit] != "" && row[unit] != metric.Plain {
			h.Text += " (" + row[unit] + ")"
		}
		d := intervalCell(v[2], v[3], v[4])
		dir := RowBetter(t, i, name)
		switch {
		case dir == metric.None || !(v[3] > 0 || v[4] < 0):
		case (dir == metric.Higher) == (v[3] > 0):
			d.Class, d.Title = "better", "B better: the interval excludes zero"
		default:
			d.Class, d.Title = "worse", "B worse: the interval excludes zero"
		}
		p := probabilityCell(v[5])
		if dir == metric.None {
			p = Cell{Text: "–", Title: "the metric has no better direction"}
		}
		tab.Rows = append(tab.Rows, []Cell{{Text: row[variant]}, {Text: h.Text, Title: row[name]}, asFineAs(v[0], v[2]), asFineAs(v[1], v[2]), d, p})
	}
	return tab, nil
}

// asFineAs is the cell of a comparison's A or B value v, written at
// least at the decimals of the difference diff as Format writes it, as
// simulate table writes them: at three significant digits alone, A and B
// of 3.95058 and 3.9517 both read 3.95 beside a difference of 0.00111,
// and 174.045 and 177.5 read 174 and 178 beside 3.5.
func asFineAs(v, diff float64) Cell {
	c := numCell(v)
	want := decimals(Format(diff))
	if want > decimals(c.Text) && !strings.ContainsAny(c.Text, "e∞–") {
		c.Text = numtext.Fixed(v, want)
	}
	return c
}

// decimals returns the decimal places a number written by Format shows:
// 2 of 0.25, 0 of 2467, 7 of 1.11e-05; 0 of "–" and "∞".
func decimals(s string) int {
	mant, exp, _ := strings.Cut(s, "e")
	n := 0
	if _, frac, ok := strings.Cut(mant, "."); ok {
		n = len(frac)
	}
	if e, err := strconv.Atoi(exp); err == nil {
		n -= e
	}
	return min(max(n, 0), 15)
}

// plain shows a table as it is, numbers rounded; a "chosen" column of
// true and false (fit.csv's) marks the chosen rows' first cells best,
// and a replay's summary has a caption that says what its columns are.
func plain(t *rundir.Table) (*Table, error) {
	tab := &Table{Title: "Summary"}
	chosen := slices.Index(t.Header, "chosen")
	for _, h := range t.Header {
		tab.Head = append(tab.Head, Head{Text: h})
	}
	for _, row := range t.Rows {
		cells := make([]Cell, len(row))
		for j, s := range row {
			cells[j] = Cell{Text: s}
			if v, err := strconv.ParseFloat(s, 64); err == nil {
				cells[j] = numCell(v)
			}
		}
		if chosen >= 0 && row[chosen] == "true" {
			cells[0].Best = true
		}
		tab.Rows = append(tab.Rows, cells)
	}
	switch {
	case chosen >= 0:
		tab.Caption = "The rows chosen are marked."
	case !slices.ContainsFunc([]string{"load", "metric", "statistic", "value", "lo", "hi", "n"}, func(c string) bool { return !slices.Contains(t.Header, c) }):
		// A replay's summary (calibrate.ReplaySummary).
		tab.Caption = "Per load, each statistic of a metric over the replayed runs, with its 95% interval (lo, hi: a bootstrap over the recorded runs, each with all its replays; Wilson over the recorded runs for fractions); n: the replays."
	}
	return tab, nil
}

// maxTransposed is the most rows a summary has to be shown transposed,
// a row per metric, when it has more metrics than rows: two variants and
// twenty metrics read down a page, not across three screens.
const maxTransposed = 6

// transpose turns a summary's rows into columns: a row per metric, a
// column per variant (or sweep point).
func transpose(t *Table) *Table {
	out := &Table{Title: t.Title, Caption: t.Caption, Source: t.Source, keys: 1, marked: t.marked, fewerSeeds: t.fewerSeeds}
	out.Head = []Head{{Text: "metric"}}
	for _, r := range t.Rows {
		var names []string
		for _, c := range r[:t.keys] {
			names = append(names, c.Text)
		}
		out.Head = append(out.Head, Head{Text: strings.Join(names, ", "), Num: true})
	}
	for j := t.keys; j < len(t.Head); j++ {
		row := []Cell{{Text: t.Head[j].Text, Title: t.Head[j].Title}}
		for _, r := range t.Rows {
			row = append(row, r[j])
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// markBest marks the best value of column j of t's rows by the direction
// (an infinite cost is the worst), and those that read the same, among
// the values over the most seeds of the column (Candidates); nothing when
// the direction is None, or fewer than two values are candidates, or
// every candidate reads the same: a mark then would single out nothing.
func markBest(t *Table, j int, dir metric.Better) {
	vals := make([]float64, len(t.Rows))
	seeds := make([]int, len(t.Rows))
	for i, r := range t.Rows {
		vals[i], seeds[i] = math.NaN(), r[j].Seeds
		if r[j].Num {
			vals[i] = r[j].V
		}
	}
	_, fewer := Candidates(vals, seeds)
	t.fewerSeeds = t.fewerSeeds || (fewer && dir != metric.None)
	for _, i := range Best(vals, seeds, dir, func(_ int, v float64) string { return Format(v) }) {
		t.Rows[i][j].Best = true
	}
}

// Candidates returns vals with each value over fewer seeds than the most
// of the defined values (seeds[i], NaN being no value) made NaN, and
// whether there was one: an IQM over one seed where others are over ten
// (a metric undefined for most seeds, trials a sweep lacks) is the value
// of one seed, which may be the best by luck. With seeds nil every value
// is a candidate. It is the one rule of which values may be marked, for
// the page and for simulate table.
func Candidates(vals []float64, seeds []int) ([]float64, bool) {
	if seeds == nil {
		return vals, false
	}
	most := 0
	for i, v := range vals {
		if !math.IsNaN(v) {
			most = max(most, seeds[i])
		}
	}
	out := slices.Clone(vals)
	fewer := false
	for i, v := range vals {
		if !math.IsNaN(v) && seeds[i] < most {
			out[i], fewer = math.NaN(), true
		}
	}
	return out, fewer
}

// Best returns the indices of the best of vals by dir (the highest or
// the lowest; NaN is no value, an infinite cost the worst) among the
// candidates (Candidates, by seeds) and of every candidate that reads
// the same as it, shown(i, v) writing v as cell i would show it: a mark
// on one of two cells that both read 0.851 would claim what the table
// does not show. It returns none when dir is neither Higher nor Lower,
// fewer than two values are candidates, or every candidate reads the
// same: a mark then would single out nothing. It is the one best marking
// of the page and of simulate table.
func Best(vals []float64, seeds []int, dir metric.Better, shown func(i int, v float64) string) []int {
	if dir != metric.Higher && dir != metric.Lower {
		return nil
	}
	vals, _ = Candidates(vals, seeds)
	best := math.NaN()
	for _, v := range vals {
		if !math.IsNaN(v) && (math.IsNaN(best) || (dir == metric.Higher && v > best) || (dir == metric.Lower && v < best)) {
			best = v
		}
	}
	if math.IsNaN(best) {
		return nil
	}
	var out []int
	n := 0
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		n++
		if shown(i, v) == shown(i, best) {
			out = append(out, i)
		}
	}
	if n < 2 || len(out) == n {
		return nil
	}
	return out
}

// intervalAt reads the cell of row i of t from the columns of g.
func intervalAt(t *rundir.Table, i int, g Group) (Cell, error) {
	iv, err := Interval(t, i, g.Val, g.Lo, g.Hi)
	if err != nil {
		return Cell{}, err
	}
	return intervalCell(iv.Value, iv.Lo, iv.Hi), nil
}

// Interval reads the value of column v of row i of t and, when lo and hi
// are columns (not -1), its interval; an empty cell is NaN, no value. It
// is the one interval lookup of the page and of simulate table.
func Interval(t *rundir.Table, i, v, lo, hi int) (stats.Interval, error) {
	iv := stats.Interval{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	for _, c := range []struct {
		col int
		to  *float64
	}{{v, &iv.Value}, {lo, &iv.Lo}, {hi, &iv.Hi}} {
		if c.col < 0 || t.Rows[i][c.col] == "" {
			continue
		}
		x, err := t.Float(i, c.col)
		if err != nil {
			return iv, err
		}
		*c.to = x
	}
	return iv, nil
}

func numCell(v float64) Cell { return Cell{Text: Format(v), V: v, Num: true} }

// probabilityCell is a probability at two decimals, every row alike, as
// compare's terminal and simulate table write it: at three significant
// digits a column read 0, 0.099, 0.507 and 1.
func probabilityCell(p float64) Cell {
	c := numCell(p)
	if !math.IsNaN(p) && !math.IsInf(p, 0) {
		c.Text = strconv.FormatFloat(p, 'f', 2, 64)
	}
	return c
}

// intervalCell is "v [lo, hi]"; the interval is left out where it is
// not defined (one seed).
func intervalCell(v, lo, hi float64) Cell {
	c := numCell(v)
	if !math.IsNaN(lo) && !math.IsNaN(hi) && !math.IsNaN(v) {
		c.Text += " [" + Format(lo) + ", " + Format(hi) + "]"
	}
	return c
}

// Format writes v for a reader: three significant digits, whole numbers
// from 1000 on (2467, not 2.47e+03), "–" for a value not defined (NaN),
// "∞" for an infinite one, and "0" for a negative zero, which equals 0 but
// would read as a small negative number.
func Format(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.IsNaN(v):
		return "–"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "−∞"
	// From 999.5, which three significant digits round to 1000.
	case math.Abs(v) >= 999.5 && math.Abs(v) < 1e15:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
