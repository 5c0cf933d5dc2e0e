package calibrate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MinR2 is the share of a model's latency variance that output tokens
// must explain for the fit to model a call as time to first token plus
// tokens at an output rate; below it the whole latency is one
// distribution.
const MinR2 = 0.5

// minTokenCalls is the fewest calls with token counts the regression is
// tried on.
const minTokenCalls = 10

// MinCalls is the fewest calls of a model or a tool that a latency
// distribution of its own is fitted to: FitPositive needs 2 values. A
// trace set often holds a tool used once, or a router model called once.
const MinCalls = 2

// MinRuns is the fewest runs a scenario is fitted to: its calls per
// subtask and its run duration are distributions over runs, and one run
// has no spread to fit them to (FitPositive needs 2 values). A replay
// needs neither: it replays each run's own calls, against model APIs
// fitted from the calls, so it replays a single run.
const MinRuns = 2

// ModelFit is what was fitted for one model.
type ModelFit struct {
	Model string
	// N counts the model's calls, NTokens those with token counts.
	N, NTokens int
	// Latency is the call duration's distribution.
	Latency Choice
	// Line regresses duration on output tokens (calls with counts).
	Line Line
	// ByTokens says that tokens explain the latency (Line.R2 >= MinR2 and
	// a positive slope): then OutputRate is 1/Line.Slope and TTFT the
	// distribution of duration − output/OutputRate; otherwise TTFT is
	// Latency and OutputRate 0.
	ByTokens   bool
	TTFT       Choice
	OutputRate float64
	// MeanInput and MeanOutput are mean token counts per call.
	MeanInput, MeanOutput float64
}

// ToolFit is a tool's latency distribution.
type ToolFit struct {
	Tool    string
	N       int
	Latency Choice
}

// Rare is a model or a tool with fewer than MinCalls calls: too few to
// fit a distribution of its own to.
type Rare struct {
	Name string
	N    int
	// Mean is the mean latency of its calls, in seconds.
	Mean float64
}

// Fit is every fitted quantity of a set of traces.
type Fit struct {
	Models []ModelFit // most calls first
	Tools  []ToolFit  // most calls first
	// RareModels and RareTools are the models and tools with too few
	// calls to fit alone (fewer than MinCalls), most calls first. A rare
	// model has no variant of its own: the first variant, whose API is
	// fitted to the first of Models, serves its calls. A rare tool's calls
	// count in AllTools and in the counts of tool calls.
	RareModels, RareTools []Rare
	// AllTools is the latency of every tool call together: a scenario has
	// one tool latency.
	AllTools Choice
	// Calls and ToolCalls are counts per subtask of the scenario's task
	// graph (Shape.Parts of them per run); Duration the runs' durations,
	// fitted from MinRuns runs on (no fit, and no row of Rows, with fewer).
	Calls, ToolCalls Choice
	Duration         Choice
	// Shape is the delegation structure: median waves and fan-out of the
	// runs that delegate, and the share of runs that do.
	Shape Shape
	// Runs counts runs; Acceptable those with swarmsim.acceptable true
	// among the HasOutcome runs that say.
	Runs, WithOutcome, Acceptable int
	// MedianDuration is the median run duration in seconds.
	MedianDuration float64
	// MeanGap is the median, over runs without delegation, of the time
	// per model call not spent in model or tool calls (the framework's
	// overhead), in seconds.
	MeanGap float64
	maxRun  float64 // the longest run, in seconds
}

// Shape is the delegation structure fitted from nested invoke_agent spans.
type Shape struct {
	Delegating int // runs with at least one nested agent
	// Fanout and Waves are medians over delegating runs; Startup is the
	// median time from a delegated agent's start to its first model call.
	Fanout, Waves int
	Startup       float64
	// MaxParallel is the largest number of agents at once in any run.
	MaxParallel int
}

// FitAll fits every quantity of t. With fewer than MinRuns runs the run
// duration is not fitted, and a scenario written from the fit rests on
// one run: CheckRuns refuses that for a fit, while a replay may use it.
func FitAll(t *Traces) (*Fit, error) {
	f := &Fit{Runs: len(t.Runs)}
	byModel := map[string][]Call{}
	for _, c := range t.Calls {
		byModel[c.Model] = append(byModel[c.Model], c)
	}
	for _, m := range sortedKeys(byModel, func(cs []Call) int { return len(cs) }) {
		if len(byModel[m]) < MinCalls {
			durs := make([]float64, len(byModel[m]))
			for i, c := range byModel[m] {
				durs[i] = c.Duration
			}
			f.RareModels = append(f.RareModels, Rare{Name: m, N: len(durs), Mean: mean(durs)})
			continue
		}
		mf, err := fitModel(m, byModel[m])
		if err != nil {
			return nil, err
		}
		f.Models = append(f.Models, mf)
	}
	if len(f.Models) == 0 {
		if len(f.RareModels) == 0 {
			return nil, fmt.Errorf("no model call (a span with gen_ai.operation.name %s) in the runs: nothing to fit a model's latency to", strings.Join(modelOps, ", "))
		}
		return nil, fmt.Errorf("no model has enough calls to fit its latency to (at least %d): %s", MinCalls, rareList(f.RareModels))
	}
	byTool := map[string][]float64{}
	var all []float64
	for _, tc := range t.Tools {
		byTool[tc.Tool] = append(byTool[tc.Tool], tc.Duration)
		all = append(all, tc.Duration)
	}
	for _, name := range sortedKeys(byTool, func(d []float64) int { return len(d) }) {
		if len(byTool[name]) < MinCalls {
			f.RareTools = append(f.RareTools, Rare{Name: name, N: len(byTool[name]), Mean: mean(byTool[name])})
			continue
		}
		ch, err := FitPositive(byTool[name])
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", name, err)
		}
		f.Tools = append(f.Tools, ToolFit{Tool: name, N: len(byTool[name]), Latency: ch})
	}
	if len(all) >= 2 {
		ch, err := FitPositive(all)
		if err != nil {
			return nil, fmt.Errorf("all tools: %w", err)
		}
		f.AllTools = ch
	}
	f.Shape = fitShape(t)
	// Counts are per subtask of the scenario's task graph, which draws
	// them per attempt at a subtask.
	parts := f.Shape.Parts(f.Runs)
	var calls, tools []int
	var durs []float64
	for _, r := range t.Runs {
		calls = append(calls, r.Calls)
		tools = append(tools, r.Tools)
		durs = append(durs, r.Duration)
		f.maxRun = max(f.maxRun, r.Duration)
		if r.HasOutcome {
			f.WithOutcome++
			if r.Acceptable {
				f.Acceptable++
			}
		}
	}
	var err error
	if f.Calls, err = FitCount(calls, parts); err != nil {
		return nil, err
	}
	if f.ToolCalls, err = FitCount(tools, parts); err != nil {
		return nil, err
	}
	if len(durs) >= MinRuns {
		if f.Duration, err = FitPositive(durs); err != nil {
			return nil, fmt.Errorf("run durations: %w", err)
		}
	}
	f.MedianDuration = median(durs)
	f.MeanGap = gap(t)
	return f, nil
}

// CheckRuns refuses traces of fewer than MinRuns runs for a fit, saying
// how many runs the paths they were loaded from hold, in which files, and
// what else a user can do.
func (t *Traces) CheckRuns(paths []string) error {
	if len(t.Runs) >= MinRuns {
		return nil
	}
	found := "no run"
	if len(t.Runs) == 1 {
		found = "1 run"
	} else if len(t.Runs) > 1 {
		found = fmt.Sprintf("%d runs", len(t.Runs))
	}
	where := strings.Join(paths, ", ")
	var files []string
	for _, r := range t.Runs {
		if !slices.Contains(files, r.File) {
			files = append(files, r.File)
		}
	}
	if len(files) > 0 && !slices.Equal(files, paths) {
		// The files below a directory, named relative to it.
		where += " (" + strings.Join(files, ", ") + ")"
	}
	return fmt.Errorf("%s in %s: a fit needs at least %d runs, as a scenario's calls per subtask and run duration are distributions over runs; add the traces of more runs, or replay these with 'simulate replay', which replays even one", found, where, MinRuns)
}

// rareList names each of rs with its calls: "router: 1 call, ...".
func rareList(rs []Rare) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s: %s", r.Name, nCalls(r.N))
	}
	return strings.Join(parts, ", ")
}

// nCalls writes n calls: "1 call", "3 calls".
func nCalls(n int) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}

// Notes returns a line for each model and each tool with too few calls
// to fit alone, saying what stands in for its own fit: ModelNotes, then
// the tools'.
func (f *Fit) Notes() string {
	var b strings.Builder
	b.WriteString(f.ModelNotes())
	for _, r := range f.RareTools {
		fmt.Fprintf(&b, "tool %s: %s, too few to fit its latency alone (at least %d): its calls count in the latency of all tools together\n", r.Name, nCalls(r.N), MinCalls)
	}
	return b.String()
}

// ModelNotes returns a line for each model with too few calls to fit
// alone, saying that the fitted scenario's first variant serves its
// calls.
func (f *Fit) ModelNotes() string {
	var b strings.Builder
	for _, r := range f.RareModels {
		fmt.Fprintf(&b, "model %s: %s, too few to fit an API of its own (at least %d): the first variant's, fitted to %s, serves its calls\n", r.Name, nCalls(r.N), MinCalls, f.Models[0].Model)
	}
	return b.String()
}

// gap returns the median over runs without delegation of the time per
// model call that no model or tool call accounts for: the framework's own
// work between calls.
func gap(t *Traces) float64 {
	busy := map[string]float64{}
	for _, c := range t.Calls {
		busy[c.Run] += c.Duration
	}
	for _, c := range t.Tools {
		busy[c.Run] += c.Duration
	}
	var gaps []float64
	for _, r := range t.Runs {
		if r.Agents == 0 && r.Calls > 0 {
			gaps = append(gaps, max(r.Duration-busy[r.ID], 0)/float64(r.Calls))
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	return median(gaps)
}

// Delegates reports whether the scenario should delegate: when at least
// half the runs of runs do.
func (s Shape) Delegates(runs int) bool { return s.Delegating*2 >= runs && s.Fanout >= 1 }

// Parts returns the subtasks of the scenario's task graph: a fork, Fanout
// parallel parts and a join per wave when runs delegate, else one.
func (s Shape) Parts(runs int) int {
	if s.Delegates(runs) {
		return s.Waves * (s.Fanout + 2)
	}
	return 1
}

func fitShape(t *Traces) Shape {
	var s Shape
	var fan, waves []float64
	for _, r := range t.Runs {
		s.MaxParallel = max(s.MaxParallel, r.MaxParallel)
		if r.Agents > 0 {
			s.Delegating++
			fan = append(fan, float64(r.Fanout))
			waves = append(waves, float64(r.Waves))
		}
	}
	var startup []float64
	for _, d := range t.Delegs {
		startup = append(startup, d.Startup)
	}
	if s.Delegating > 0 {
		s.Fanout = int(math.Round(median(fan)))
		s.Waves = int(math.Round(median(waves)))
		s.Startup = median(startup)
	}
	return s
}

func fitModel(m string, calls []Call) (ModelFit, error) {
	mf := ModelFit{Model: m, N: len(calls)}
	durs := make([]float64, len(calls))
	var x, y []float64
	for i, c := range calls {
		durs[i] = c.Duration
		if c.HasTokens {
			x = append(x, float64(c.OutputTokens))
			y = append(y, c.Duration)
			mf.MeanInput += float64(c.InputTokens)
			mf.MeanOutput += float64(c.OutputTokens)
		}
	}
	mf.NTokens = len(x)
	if mf.NTokens > 0 {
		mf.MeanInput /= float64(mf.NTokens)
		mf.MeanOutput /= float64(mf.NTokens)
	}
	var err error
	if mf.Latency, err = FitPositive(durs); err != nil {
		return mf, fmt.Errorf("model %s: %w", m, err)
	}
	mf.TTFT = mf.Latency
	if mf.NTokens < minTokenCalls {
		return mf, nil
	}
	mf.Line = FitLine(x, y)
	if mf.Line.R2 < MinR2 || mf.Line.Slope <= 0 {
		return mf, nil
	}
	mf.ByTokens = true
	mf.OutputRate = 1 / mf.Line.Slope
	res := make([]float64, len(x))
	for i := range x {
		res[i] = y[i] - x[i]/mf.OutputRate
	}
	if mf.TTFT, err = FitPositive(res); err != nil {
		return mf, fmt.Errorf("model %s: time to first token: %w", m, err)
	}
	return mf, nil
}

// sortedKeys returns m's keys, largest size first, then by name.
func sortedKeys[V any](m map[string]V, size func(V) int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(size(m[b]), size(m[a])), cmp.Compare(a, b))
	})
	return keys
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Rows returns fit.csv: one row per fit tried per quantity, with the
// chosen one marked and why it was chosen.
func (f *Fit) Rows() (header []string, rows [][]string) {
	header = []string{"what", "distribution", "parameters", "mean", "n", "ks", "bic", "chosen", "why"}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	add := func(what string, n int, c Choice) {
		for i, d := range c.Fits {
			why := ""
			if i == c.Chosen {
				why = c.Why
			}
			bic := g(d.BIC)
			if d.Family == Poisson || d.Family == Uniform {
				bic = "" // chosen by KS: a uniform has no likelihood outside its range
			}
			rows = append(rows, []string{what, string(d.Family), d.Params(), g(d.Mean()), strconv.Itoa(n), g(d.KS), bic, strconv.FormatBool(i == c.Chosen), why})
		}
	}
	rare := func(what string, r Rare, instead string) {
		rows = append(rows, []string{what + "/" + r.Name + "/latency_s", "", "", g(r.Mean), strconv.Itoa(r.N), "", "", "false",
			fmt.Sprintf("%s, too few to fit alone (at least %d): %s", nCalls(r.N), MinCalls, instead)})
	}
	for _, m := range f.Models {
		add("model/"+m.Model+"/latency_s", m.N, m.Latency)
		if m.NTokens >= minTokenCalls {
			why := fmt.Sprintf("R² %.3g < %g: tokens explain little; the scenario uses the latency distribution", m.Line.R2, MinR2)
			if m.ByTokens {
				why = fmt.Sprintf("R² %.3g >= %g: output rate %.4g tokens/s", m.Line.R2, MinR2, m.OutputRate)
			}
			rows = append(rows, []string{"model/" + m.Model + "/latency_s~output_tokens", "linear",
				fmt.Sprintf("intercept=%s slope=%s r2=%s", g(m.Line.Intercept), g(m.Line.Slope), g(m.Line.R2)),
				"", strconv.Itoa(m.NTokens), "", "", strconv.FormatBool(m.ByTokens), why})
		}
		if m.ByTokens {
			add("model/"+m.Model+"/ttft_s", m.NTokens, m.TTFT)
		}
	}
	for _, r := range f.RareModels {
		rare("model", r, "the first variant's API, fitted to "+f.Models[0].Model+", serves its calls")
	}
	for _, t := range f.Tools {
		add("tool/"+t.Tool+"/latency_s", t.N, t.Latency)
	}
	for _, r := range f.RareTools {
		rare("tool", r, "its calls count in tools/latency_s")
	}
	if len(f.AllTools.Fits) > 0 {
		add("tools/latency_s", f.toolCalls(), f.AllTools)
	}
	add("run/calls_per_subtask", f.Runs, f.Calls)
	add("run/tool_calls_per_subtask", f.Runs, f.ToolCalls)
	if len(f.Duration.Fits) > 0 {
		add("run/duration_s", f.Runs, f.Duration)
	}
	return header, rows
}

// toolCalls returns the number of tool calls, of the tools fitted alone
// and of the rare ones.
func (f *Fit) toolCalls() int {
	n := 0
	for _, t := range f.Tools {
		n += t.N
	}
	for _, r := range f.RareTools {
		n += r.N
	}
	return n
}

// Curve is what one chart of observed against fitted CDFs shows.
type Curve struct {
	// Name is a file name (letters, digits, '.', '_', '-'): cdf_model_X
	// or cdf_tool_X.
	Name, XLabel string
	Sample       []float64
	Fits         []Dist
}

// Curves returns one chart per model (call latency) and per tool (tool
// latency), in the order of f.Models and f.Tools.
func (f *Fit) Curves(t *Traces) []Curve {
	var out []Curve
	models := f.modelNames()
	for i, m := range f.Models {
		var xs []float64
		for _, c := range t.Calls {
			if c.Model == m.Model {
				xs = append(xs, max(c.Duration, minPositive))
			}
		}
		out = append(out, Curve{Name: "cdf_model_" + models[i], XLabel: "latency of a call to " + m.Model + " (s)", Sample: xs, Fits: m.Latency.Fits})
	}
	ids := make([]string, len(f.Tools))
	for i, tf := range f.Tools {
		ids[i] = tf.Tool
	}
	tools := uniqueNames(ids, "tool")
	for i, tf := range f.Tools {
		var xs []float64
		for _, c := range t.Tools {
			if c.Tool == tf.Tool {
				xs = append(xs, max(c.Duration, minPositive))
			}
		}
		out = append(out, Curve{Name: "cdf_tool_" + tools[i], XLabel: "latency of " + tf.Tool + " (s)", Sample: xs, Fits: tf.Latency.Fits})
	}
	return out
}
