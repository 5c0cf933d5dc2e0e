package calibrate

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/swarmsim/swarmsim/sim"
)

// noDecode is the API output rate written when tokens explain little of a
// model's latency: decoding then takes no time and the whole latency is
// in ttft. It is the largest rate a scenario allows.
const noDecode = 1e9

// Scenario returns a scenario file that reproduces the traced workflow:
// one variant per model of f.Models (the model with the most calls
// first), each a hosted API whose ttft and output_rate were fitted from
// that model's calls, the first serving the calls of f.RareModels too;
// the tool latency of every tool call, of f.RareTools too; calls and tool calls per
// agent; and, where runs delegate, a fork-join task whose width and stages
// are the runs' median fan-out and waves of delegation. Comments say what
// each value was fitted from. sources names the traces, for the header
// and the error. Traces whose subtasks make half a model call or fewer on
// average are refused: the collective model makes at least one call per
// attempt at a subtask, and their work would be always 0.
func (f *Fit) Scenario(name string, sources []string) ([]byte, error) {
	return f.scenario(name, sources, true)
}

// SelfHostedScenario is Scenario without the hosted APIs, for a
// deployment of replicas (collective.serving) to replace them: a scenario
// may not have both.
func (f *Fit) SelfHostedScenario(name string, sources []string) ([]byte, error) {
	return f.scenario(name, sources, false)
}

func (f *Fit) scenario(name string, sources []string, hosted bool) ([]byte, error) {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("# Fitted by 'simulate fit' from %d runs in %s.", f.Runs, strings.Join(sources, ", "))
	w("# Every value below says what it was fitted from; fit.csv has the fits and")
	w("# their Kolmogorov-Smirnov distances, calls.csv, tools.csv and runs.csv the data.")
	w("name: %s", name)
	w("description: %q", fmt.Sprintf("Fitted from %d traced runs (median %.3g s).", f.Runs, f.MedianDuration))
	w("seed: 1")
	w("episodes: 200")
	w("")
	w("task:")
	sh := f.Shape
	nodes := sh.Parts(f.Runs)
	if sh.Delegates(f.Runs) {
		w("  # %d of %d runs delegate: median %d agents at once per delegating agent,", sh.Delegating, f.Runs, sh.Fanout)
		w("  # median %d waves of delegation (invoke_agent spans under invoke_agent).", sh.Waves)
		w("  # Each wave is a fork (the delegating agent's calls), %d parallel parts", sh.Fanout)
		w("  # (the delegated agents) and a join.")
		w("  shape: fork-join")
		w("  width: %d", sh.Fanout)
		w("  stages: %d", sh.Waves)
	} else {
		w("  # %d of %d runs delegate (nested invoke_agent spans): the workflow is one", sh.Delegating, f.Runs)
		w("  # agent working on one subtask.")
		w("  shape: chain")
		w("  length: 1")
	}
	calls := f.Calls.Best()
	lo, hi := calls.Lo, calls.Hi
	if calls.Family == Poisson {
		// A Poisson count has no range: the rounded uniform with its mean
		// and variance stands in, narrowed to keep its mean where a
		// subtask's one call at least would raise it.
		half := min(float64(math.Sqrt(max(float64(12*calls.Mu)-1, 0))/2), max(calls.Mu-0.5, 0))
		lo, hi = calls.Mu-half, calls.Mu+half
	}
	w("  # Model calls per subtask (%s a run): %s(%s), KS %.3g over %d runs. A call is one", countOf(nodes, "subtask", "subtasks"), calls.Family, calls.Params(), calls.KS, f.Runs)
	w("  # second of work (collective.calls.span), so work = calls - 1/2 rounds up to them.")
	wlo, whi := round4(max(lo-0.5, 0)), round4(max(hi-0.5, 0))
	if whi == 0 {
		// Any work makes one call, so no work stands for fewer calls, and
		// a task without work ends every episode at once.
		return nil, fmt.Errorf("the runs in %s make %.3g model calls per subtask on average (%s(%s), %s a run), but a fitted scenario needs more than half a call: the collective model makes at least one model call per attempt at a subtask, and its task.work (calls - 1/2 seconds at a call span of 1 s) would be always 0",
			strings.Join(sources, ", "), calls.Mean(), calls.Family, calls.Params(), countOf(nodes, "subtask", "subtasks"))
	}
	w("  work: %s", sim.Uniform(wlo, whi))
	perWork := callsPerWork(wlo, whi)
	w("  difficulty: %s", difficulty(f, nodes))
	if len(f.AllTools.Fits) > 0 {
		tc := f.ToolCalls.Best()
		td, tsim := f.AllTools.Best(), f.AllTools.BestSim()
		tcDist := fmt.Sprintf("poisson(%s)", fmtG(tc.Mu))
		if d, ok := tc.Sim(); ok {
			tcDist = d.String()
		}
		w("  # Tool calls per subtask: %s(%s), KS %.3g over %d runs.", tc.Family, tc.Params(), tc.KS, f.Runs)
		w("  tool_calls: %s", tcDist)
		w("  # Latency of all %d tool calls together (%s), %s, KS %.3g:", f.toolCalls(), f.toolNames(), td.Family, td.KS)
		for _, t := range f.Tools {
			d := t.Latency.Best()
			w("  #   %s: %d calls, mean %s, %s KS %.3g", t.Tool, t.N, seconds(d.Mean()), d.Family, d.KS)
		}
		for _, r := range f.RareTools {
			w("  #   %s: %s, mean %s, too few to fit alone (at least %d)", r.Name, nCalls(r.N), seconds(r.Mean), MinCalls)
		}
		w("  tool_latency: %s", tsim)
	}
	w("")
	w("collective:")
	agents := max(sh.MaxParallel, 1)
	w("  # Most agents running at once in any run (overlapping invoke_agent spans).")
	w("  agents: %d", agents)
	// With one agent no helper is ever spawned, and the loader refuses a
	// spawn that could not act.
	switch {
	case agents == 1:
	case sh.Delegating > 0:
		w("  # Median time from a delegated agent's start to its first model call.")
		w("  spawn: %s", seconds(sh.Startup))
	default:
		w("  spawn: 0s")
	}
	w("  # Ten times the longest run, so that the limit never decides a run.")
	w("  time_limit: %s", seconds(10*f.maxDuration()))
	w("  calls:")
	w("    span: 1s")
	w("    # Median time per model call not spent in model or tool calls (framework")
	w("    # overhead) over runs without delegation; it precedes each call.")
	w("    overhead: %s", seconds(f.MeanGap))
	m := f.Models[0]
	w("    # Mean output tokens per call of %s over the mean work of a call (%.3g s:", m.Model, 1/perWork)
	w("    # the calls of a subtask share its work), so that a call averages them.")
	w("    output_rate: %s", fmtG(math.Max(m.MeanOutput, 1)*perWork))
	w("    system_prompt: %d", int(math.Round(m.MeanInput)))
	if hosted {
		w("  api:")
		f.writeAPI(w, m, "    ")
	}
	// Only what the organization below reads (a run refuses the rest):
	// split checks each part and never selects; independent never checks,
	// and selects only among the attempts of several agents.
	switch {
	case nodes > 1:
		w("  # The traced runs never check or retry: a check costs nothing and always")
		w("  # passes.")
		w("  check: {cost: 0, accuracy: 1, retries: 0}")
	case agents > 1:
		w("  # The traced runs never select: selecting among the attempts takes no time")
		w("  # and never errs.")
		w("  select: {cost: 0s, accuracy: 1}")
	}
	w("")
	w("policy:")
	if nodes > 1 {
		w("  # The delegating agent hands the parallel parts to helpers (each part's")
		w("  # check adds one free model call that the traces do not have).")
		w("  organization: split")
	} else {
		w("  # One agent makes one attempt: 'independent' with one agent, the")
		w("  # organization that makes no check calls.")
		w("  organization: independent")
	}
	w("")
	w("variants:")
	if len(f.RareModels) > 0 {
		w("  # Without a variant, for too few calls to fit an API of their own (at least")
		w("  # %d): %s. The first variant serves their calls.", MinCalls, f.rareModelList())
	}
	names := f.modelNames()
	for i, m := range f.Models {
		w("  - name: %s", names[i])
		if i == 0 {
			continue
		}
		ttft, rate := m.apiDists()
		if hosted {
			w("    # %s", m.comment())
		}
		w("    set:")
		if hosted {
			w("      collective.api.ttft: %s", ttft)
			w("      collective.api.output_rate: %s", fmtG(rate))
		}
		w("      collective.calls.output_rate: %s", fmtG(math.Max(m.MeanOutput, 1)*perWork))
		w("      collective.calls.system_prompt: %d", int(math.Round(m.MeanInput)))
	}
	return []byte(b.String()), nil
}

// callsPerWork returns the mean calls over the mean work, in seconds, of
// a subtask whose work is uniform(lo, hi) seconds at a call span of 1 s:
// it makes max(1, ⌈work⌉) calls, which share its work, so a call's output
// (calls.output_rate per second of its work) averages calls.output_rate /
// callsPerWork tokens, and the rate is the mean output times it. A call
// is not one second of work: the last of a subtask's is half a second on
// average, so the mean output alone as the rate would make calls output a
// sixth too little on the any-agent traces (0.84 s a call), and half on
// runs of one call (0.5 s).
func callsPerWork(lo, hi float64) float64 {
	if hi <= lo {
		if lo <= 0 {
			return 1 // no work: no rate gives a call output
		}
		return max(1, math.Ceil(lo)) / lo
	}
	calls := 0.0
	for k := 1.0; k-1 < hi; k++ {
		// Work in (k-1, k] makes k calls, and work in [0, 1] one.
		if in := math.Min(hi, k) - math.Max(lo, k-1); in > 0 {
			calls += float64(k * in)
		}
	}
	return calls / (hi - lo) / ((lo + hi) / 2)
}

func (f *Fit) writeAPI(w func(string, ...any), m ModelFit, indent string) {
	ttft, rate := m.apiDists()
	w(indent+"# %s", m.comment())
	if len(f.RareModels) > 0 {
		w(indent+"# It serves the calls of %s too: too few to fit an API of their own.", f.rareModelList())
	}
	w(indent+"ttft: %s", ttft)
	w(indent+"output_rate: %s", fmtG(rate))
}

// apiDists returns the model's time to first token and decode rate.
func (m ModelFit) apiDists() (sim.Dist, float64) {
	d := m.TTFT.BestSim()
	if m.ByTokens {
		return d, m.OutputRate
	}
	return d, noDecode
}

// comment says what the model's API settings were fitted from.
func (m ModelFit) comment() string {
	chosen := m.TTFT.Best()
	s := fmt.Sprintf("%s: %d calls", m.Model, m.N)
	if m.ByTokens {
		s += fmt.Sprintf("; latency = ttft + output tokens / %.4g tokens/s (R² %.2f over %d calls with tokens)", m.OutputRate, m.Line.R2, m.NTokens)
	} else if m.NTokens >= minTokenCalls {
		s += fmt.Sprintf("; output tokens explain little of the latency (R² %.2f), so ttft is the whole latency and decoding takes no time", m.Line.R2)
	} else {
		s += fmt.Sprintf("; %d calls with token counts are too few to regress, so ttft is the whole latency", m.NTokens)
	}
	return s + fmt.Sprintf("; %s (%s), KS %.3g", chosen.Family, m.TTFT.Why, chosen.KS)
}

// difficulty is what makes the scenario's acceptance rate the traced one
// when the root spans say (swarmsim.acceptable): each of nodes parts is
// acceptable with probability p^(1/nodes) for a strength-1 agent.
func difficulty(f *Fit, nodes int) string {
	if f.WithOutcome == 0 {
		return "0 # the traces carry no outcome (swarmsim.acceptable): every run is acceptable; set it"
	}
	p := float64(f.Acceptable) / float64(f.WithOutcome)
	d := 1 - math.Pow(p, 1/float64(nodes))
	// A difficulty is below 1, so the traced rate of 0 (or one that needs
	// a difficulty that rounds to 1 in 4 digits) is the closest below it
	// that is written: a task none of the runs passed is hard, not bad
	// data.
	note := ""
	if d > maxDifficulty {
		d, note = maxDifficulty, fmt.Sprintf(", clamped to %s, the largest below 1", fmtG(maxDifficulty))
	}
	return fmt.Sprintf("%s # %d of %s acceptable (swarmsim.acceptable), over %s%s", fmtG(d), f.Acceptable, countOf(f.WithOutcome, "run", "runs"), countOf(nodes, "part", "parts"), note)
}

// maxDifficulty is the largest difficulty below 1 that fmtG writes as
// itself.
const maxDifficulty = 0.9999

func (f *Fit) maxDuration() float64 { return f.maxRun }

var nonName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// modelNames returns the names of f.Models, then of f.RareModels, in
// scenarios and file names: unique among all the models of the traces, so
// that a scenario may name a variant after a rare model too.
func (f *Fit) modelNames() []string {
	models := make([]string, 0, len(f.Models)+len(f.RareModels))
	for _, m := range f.Models {
		models = append(models, m.Model)
	}
	for _, r := range f.RareModels {
		models = append(models, r.Name)
	}
	return uniqueNames(models, "model")
}

// rareModelList names the rare models with their calls: "router (1 call),
// ...".
func (f *Fit) rareModelList() string {
	parts := make([]string, len(f.RareModels))
	for i, r := range f.RareModels {
		parts[i] = fmt.Sprintf("%s (%s)", r.Name, nCalls(r.N))
	}
	return strings.Join(parts, ", ")
}

// maxVariantName is the longest variant name a scenario takes.
const maxVariantName = 128

// uniqueNames makes a name (a variant's, a chart file's) of each model's
// or tool's, unique among them: the name without a provider's prefix
// ("mistral/mistral-small" becomes "mistral-small") where no other comes
// out the same, else the whole name ("openai/gpt-4o" and "azure/gpt-4o"
// become "openai-gpt-4o" and "azure-gpt-4o"), numbered where even that is
// taken; one that keeps no letter or digit is kind-N ("model-2"), by its
// place. Names are told apart ignoring case, as scenarios tell variants
// apart: "GPT-4o" and "gpt-4o" would name one file on macOS and Windows.
func uniqueNames(models []string, kind string) []string {
	short := make([]string, len(models))
	count := map[string]int{}
	for i, m := range models {
		short[i] = nameOf(m[strings.LastIndexByte(m, '/')+1:])
		count[strings.ToLower(short[i])]++
	}
	names := make([]string, len(models))
	taken := map[string]bool{}
	for i, m := range models {
		base := short[i]
		if count[strings.ToLower(base)] > 1 {
			base = nameOf(m)
		}
		if base == "" {
			base = fmt.Sprintf("%s-%d", kind, i+1)
		}
		n := base
		for k := 2; taken[strings.ToLower(n)]; k++ {
			suffix := fmt.Sprintf("-%d", k)
			n = base[:min(len(base), maxVariantName-len(suffix))] + suffix
		}
		taken[strings.ToLower(n)] = true
		names[i] = n
	}
	return names
}

// nameOf keeps what a name may hold of s: runs of other characters become
// "-", and it starts with a letter or digit.
func nameOf(s string) string {
	s = strings.Trim(nonName.ReplaceAllString(s, "-"), "-._")
	return s[:min(len(s), maxVariantName)]
}

// toolNames names every tool, those fitted alone first.
func (f *Fit) toolNames() string {
	var names []string
	for _, t := range f.Tools {
		names = append(names, t.Tool)
	}
	for _, r := range f.RareTools {
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}

func fmtG(v float64) string { return fmt.Sprintf("%.4g", v) }

// seconds writes a duration in seconds as the scenario grammar reads it,
// rounded to 4 significant digits.
func seconds(s float64) string {
	if s <= 0 {
		return "0s"
	}
	d := time.Duration(s * 1e9)
	return d.Round(time.Duration(math.Pow(10, math.Floor(math.Log10(s*1e9))-3))).String()
}
