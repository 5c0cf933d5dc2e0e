package scenarios_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/serving"
	"github.com/swarmsim/swarmsim/models/task"
	"github.com/swarmsim/swarmsim/scenarios"
	"github.com/swarmsim/swarmsim/sim"
)

func TestLoadGood(t *testing.T) {
	tests := []struct {
		file     string
		name     string
		variants []string
		check    func(t *testing.T, sc *scenarios.Scenario)
	}{
		{
			file: "minimal.yaml", name: "minimal", variants: []string{"default"},
			check: func(t *testing.T, sc *scenarios.Scenario) {
				assert.Equal(t, 100, sc.Episodes, "default episodes")
				assert.Equal(t, uint64(0), sc.Seed)
				assert.Equal(t, collective.Defaults(), sc.Base.Collective, "an omitted collective keeps the defaults")
				assert.Equal(t, sc.Base, sc.Variants[0].Spec, "the default variant is the base")
				assert.Equal(t, sim.Const(300), sc.Base.Task.Work)
			},
		},
		{
			file: "full.yaml", name: "full", variants: []string{"team", "split-lenient", "team-strict"},
			check: func(t *testing.T, sc *scenarios.Scenario) {
				c := sc.Base.Collective
				assert.Equal(t, 5, c.Agents)
				assert.Equal(t, 20*sim.Second, c.Calls.Span)
				assert.Equal(t, 20*sim.Microsecond, c.Calls.PromptToken)
				assert.Equal(t, 10*sim.Microsecond, c.Comm.Read)
				assert.Equal(t, collective.Blackboard, c.Comm.Topology)
				assert.Equal(t, collective.ConflictRework, c.Reconcile.Mode)
				assert.Equal(t, 90*sim.Minute, c.TimeLimit)
				assert.Equal(t, sim.Gamma(240, 0.5), sc.Base.Task.Work)

				lenient := sc.Variants[1].Spec
				assert.Equal(t, "split", lenient.Policy.Organization)
				assert.Equal(t, 0.7, lenient.Collective.Check.Accuracy, "a mapping override changes the keys it names")
				assert.Equal(t, 0.25, lenient.Collective.Check.Cost, "... and keeps the others")

				strict := sc.Variants[2].Spec
				assert.Equal(t, collective.Verification{Cost: 0.25, Accuracy: 0.95, Retries: 2}, strict.Collective.Check, "an alias")
				assert.Equal(t, sim.Const(0.9), strict.Task.Coupling)
				assert.Equal(t, collective.Broadcast, strict.Collective.Comm.Topology)
				assert.Equal(t, sim.Const(0.3), sc.Base.Task.Coupling, "overrides do not reach the base")
			},
		},
		{
			file: "shared.yaml", name: "shared", variants: []string{"api", "self-hosted"},
			check: func(t *testing.T, sc *scenarios.Scenario) {
				c := sc.Base.Collective
				assert.Equal(t, 4, c.Tools.Pool)
				assert.True(t, c.Serving.IsZero(), "no self-hosted server in the base")
				assert.Equal(t, serving.API{}, c.API)
				assert.Equal(t, sim.Poisson(2), sc.Base.Task.ToolCalls)
				assert.Equal(t, sim.LogNormal(3, 1), sc.Base.Task.ToolLatency)
				want := serving.API{RPM: 500, TPM: 400000, Concurrency: 64, TTFT: sim.LogNormal(0.6, 0.5), OutputRate: 80}
				assert.Equal(t, want, sc.Variants[0].Spec.Collective.API)
				def := serving.DefaultDeployment()
				def.Replicas, def.MaxBatch = 2, 32
				assert.Equal(t, def, sc.Variants[1].Spec.Collective.Serving, "the keys left out keep the fitted defaults")
				assert.Contains(t, string(sc.Resolved), "tool_calls: poisson(2)")
				resolvedBase, _, _ := strings.Cut(string(sc.Resolved), "variants:")
				assert.NotContains(t, resolvedBase, "serving:", "the base has no server")
			},
		},
		{
			file: "kinds.yaml", name: "kinds", variants: []string{"even", "more-tools"},
			check: func(t *testing.T, sc *scenarios.Scenario) {
				assert.Equal(t, task.KindToolHeavy, sc.Base.Task.Components[1].Kind)
				assert.True(t, sc.Base.Task.UsesTools(), "the tool-heavy component calls tools")
				assert.Contains(t, string(sc.Resolved), "kind: navigation")
				assert.NotContains(t, string(sc.Resolved), "needle", "the resolved scenario keeps the kind, not the preset's fields")
			},
		},
		{
			file: "mixture.yaml", name: "mixture", variants: []string{"independent", "heavier-needles"},
			check: func(t *testing.T, sc *scenarios.Scenario) {
				assert.Equal(t, 2.0, sc.Base.Task.Components[0].Weight, "the base keeps its own components")
				assert.Equal(t, 5.0, sc.Variants[1].Spec.Task.Components[0].Weight)
				assert.Equal(t, 1.0, sc.Variants[1].Spec.Task.Components[1].Weight)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "good", tt.file)
			sc, err := scenarios.Load(path, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.name, sc.Name)
			assert.Equal(t, path, sc.Source)
			var names []string
			for _, v := range sc.Variants {
				names = append(names, v.Name)
				_, err := v.Policy()
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.variants, names)
			assert.True(t, strings.HasPrefix(sc.Hash, "sha256:") && len(sc.Hash) == len("sha256:")+64, sc.Hash)
			tt.check(t, sc)
			assertRoundTrip(t, sc)
		})
	}
}

// assertRoundTrip checks that the resolved YAML loads again to an equal
// scenario with the same bytes.
func assertRoundTrip(t *testing.T, sc *scenarios.Scenario) {
	t.Helper()
	again, err := scenarios.Parse(sc.Resolved, "resolved.yaml", nil)
	require.NoError(t, err, "resolved YAML:\n%s", sc.Resolved)
	assert.Equal(t, sc.Name, again.Name)
	assert.Equal(t, sc.Description, again.Description)
	assert.Equal(t, sc.Seed, again.Seed)
	assert.Equal(t, sc.Episodes, again.Episodes)
	assert.Equal(t, sc.Base, again.Base)
	assert.Equal(t, sc.Variants, again.Variants)
	assert.Equal(t, string(sc.Resolved), string(again.Resolved))
	assert.Equal(t, sc.Hash, again.Hash)
}

func TestLoadBad(t *testing.T) {
	// Each file is one class of mistake. want lists substrings of the error:
	// the position, the field path, and what is allowed.
	tests := []struct {
		file string
		want []string
	}{
		{"unknown-key.yaml", []string{"unknown-key.yaml:6:3: collective.agentz: unknown key", "allowed: agents, speed, strength", `did you mean "agents"`}},
		{"wrong-type.yaml", []string{"wrong-type.yaml:6:3: collective.agents:", `got "four", want an integer`}},
		{"out-of-range.yaml", []string{"out-of-range.yaml:7:3: collective.agents: -2 is out of range (at least 1)"}},
		{"unknown-shape.yaml", []string{"unknown-shape.yaml:3:3: task.shape:", `"needl"`, "allowed: chain, fork-join, tree, layered, needle, mixture, file"}},
		{"unknown-organization.yaml", []string{"unknown-organization.yaml:6:3: policy.organization:", `"teams"`, "allowed: centralized, decentralized, hybrid, independent, sequential, single, split, team"}},
		{"unknown-topology.yaml", []string{"unknown-topology.yaml:6:10: collective.comm.topology:", `"mesh"`, "allowed: point-to-point, broadcast, blackboard"}},
		{"unknown-mode.yaml", []string{"unknown-mode.yaml:7:5: collective.reconcile.mode:", `"retry"`, "allowed: fail, rework"}},
		{"token-budget-negative.yaml", []string{"token-budget-negative.yaml:4:3: collective.token_budget: -100 is negative (0 for no budget, or more tokens)"}},
		{"unknown-checker.yaml", []string{`unknown-checker.yaml:5:5: collective.check.by: "boss" is not allowed (allowed: maker, orchestrator)`, `unknown-checker.yaml:7:5: collective.select.merge: "vote" is not allowed (allowed: verify, synthesis)`}},
		{"duplicate-variant.yaml", []string{"duplicate-variant.yaml:10:5: variants[2].name:", `duplicate variant name "a"`, "variants[0]"}},
		{"case-variant.yaml", []string{"case-variant.yaml:11:5: variants[2].name:", `variant name "fast" differs from variants[0]'s "Fast" only in case`}},
		{"empty-variant-name.yaml", []string{"empty-variant-name.yaml:8:5: variants[0].name: missing"}},
		{"bad-set-path.yaml", []string{"bad-set-path.yaml:9:11:", `variant "a"`, "collective.check.acuracy", "allowed: cost, accuracy, retries", `did you mean "accuracy"`}},
		{"bad-set-value.yaml", []string{"bad-set-value.yaml:11:7:", `variant "b"`, `collective.agents: got "many", want an integer`}},
		{"variant-out-of-range.yaml", []string{"variant-out-of-range.yaml:11:45:", `variant "independent"`, "collective.select.accuracy: 1.5 is out of range [0, 1]"}},
		{"malformed.yaml", []string{"malformed.yaml:5:1: malformed YAML:", "']' must be specified"}},
		{"merge-key.yaml", []string{"merge-key.yaml:9:9:", `variant "a": collective: merge keys (<<) are not supported: write the keys out (an alias such as *NAME may stand for a whole value)`}},
		{"tab.yaml", []string{"tab.yaml:3:1: malformed YAML: found character '\t' that cannot start any token (YAML indents with spaces, not tabs: replace the tab)"}},
		{"duplicate-key.yaml", []string{"duplicate-key.yaml:5:3: malformed YAML:", `"length" already defined`}},
		{"overindented.yaml", []string{"overindented.yaml:3:10: malformed YAML: mapping value is not allowed in this context (either a key below is indented deeper than the key before it, which makes it part of this value"}},
		{"list-key-dedented.yaml", []string{`list-key-dedented.yaml:6:3: malformed YAML: value is not allowed in this context (this key's indentation fits no mapping above it: after a list item, line it up with the item's first key, after its "- ", or start a new item with "- "`}},
		{"bad-duration.yaml", []string{"bad-duration.yaml:6:3: collective.time_limit:", `"90"`, "want a number with a unit, such as 90s, 12m or 1h30m"}},
		{"bad-dist.yaml", []string{"bad-dist.yaml:5:3: task.work:", `unknown distribution "expo"`, "allowed: const, exp, uniform, lognormal, gamma, normal", `or a bare number or duration); did you mean "exp"?`}},
		{"unknown-kind.yaml", []string{"unknown-kind.yaml:3:3: task.kind:", `unknown "browsing"`, "allowed: decomposable, navigation, sequential, tool-heavy"}},
		{"kind-and-shape.yaml", []string{"kind-and-shape.yaml:4:3: task.shape:", `"chain" cannot be given with kind "sequential"`}},
		{"kind-unused-param.yaml", []string{"kind-unused-param.yaml:4:3: task.tries:", `not used by kind "decomposable" (its shape "fork-join" uses: width, stages)`}},
		{"unused-param.yaml", []string{"unused-param.yaml:5:3: task.width:", `not used by shape "needle" (it uses: tries)`}},
		{"mixture-component.yaml", []string{"mixture-component.yaml:10:7: task.components[1].width: must be at least 1"}},
		{"episodes.yaml", []string{"episodes.yaml:2:1: episodes: 0 is out of range (1 to"}},
		{"missing-organization.yaml", []string{"missing-organization.yaml: policy.organization: missing (allowed: centralized, decentralized, hybrid, independent, sequential, single, split, team)"}},
		{"not-a-mapping.yaml", []string{"not-a-mapping.yaml:1:1: got a list, want a mapping (allowed keys: name, description"}},
		{"prose.yaml", []string{`prose.yaml:1:1: got "This file is a paragraph of prose rather than a scenario, as…" (text of 150 characters), want a mapping`}},
		{"bad-name.yaml", []string{"bad-name.yaml:1:1: name:", `"my scenario" is not a valid name`}},
		{"serving-and-api.yaml", []string{"serving-and-api.yaml:5:3: collective.api:", "not both"}},
		{"tools-unused.yaml", []string{"tools-unused.yaml:5:5: collective.tools.pool:", "the task makes no tool calls"}},
		{"handoff-out-of-range.yaml", []string{"handoff-out-of-range.yaml:5:5: collective.handoff.miss: 1.5 is out of range [0, 1]"}},
		{"handoff-inert.yaml", []string{"handoff-inert.yaml:5:5: collective.handoff.findings: 2 has no effect with handoff.miss 0"}},
		{"handoff-alone.yaml", []string{"handoff-alone.yaml:6:5: collective.handoff.duplicates: true has no effect with agents 1"}},
		{"unknown-action.yaml", []string{"unknown-action.yaml:8:19: train.actions[1]:", `unknown action "delegat"`, "allowed: work, delegate, attempt, share, check, wait, submit"}},
		{"one-action.yaml", []string{"one-action.yaml:8:3: train.actions: 1 listed, want at least 2"}},
		// A reward term that could not act is an error like a bad value.
		{"inert-latency.yaml", []string{"inert-latency.yaml:7:3: reward.latency: 2 has no effect with penalty none"}},
		{"late-deadline.yaml", []string{"late-deadline.yaml:10:3: reward.deadline: 3h0m0s is at or beyond the time limit 3h0m0s", "allowed: below the time limit"}},
		{"unused-penalty-param.yaml", []string{`unused-penalty-param.yaml:10:3: reward.buffer: not used by penalty "linear" (it uses: scale)`}},
		{"inert-parl.yaml", []string{"inert-parl.yaml:5:1: reward.anneal: 0 leaves parallel and finish without effect"}},
		// A path and a map around it set one field: the later's value wins.
		{"set-twice.yaml", []string{`set-twice.yaml:11:7: variant "a": collective.check.cost: set again by collective.check (line 12), which replaces this value; give one`}},
		{"group-of-one.yaml", []string{"group-of-one.yaml:8:3: reward.penalty: group-relative ranks the finish times of a group and has no effect with train.group 1",
			"group-of-one.yaml:11:3: train.group: 1 gives every rollout of the flat-collective advantage an advantage of 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "bad", tt.file)
			sc, err := scenarios.Load(path, nil)
			require.Error(t, err)
			assert.Nil(t, sc)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			var e *scenarios.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, path, e.Source)
			if e.Line > 0 {
				assert.NotEmpty(t, e.Snippet(false), "an error with a position shows the source")
			}
		})
	}
}

// TestSnippetQuotesTheFile: the lines an error's snippet shows are the
// file's own, numbered as in the file, with the error's line marked and a
// caret under its column, whatever blank lines and comments surround it.
func TestSnippetQuotesTheFile(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "bad", "*.yaml"))
	require.NoError(t, err)
	// A blank line and a comment right after the error.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gap.yaml": "name: gap\ntask: {shape: chain, length: 2, work: 1m}\ncollective:\n  agents: 3\n  time_limit: -2h\n\npolicy:\n  organization: split\n# a comment\n\nvariants:\n  - name: a\n",
		// The parser's null for a key without a value, and a complex key,
		// are tokens that are not linked to the others.
		"null.yaml":        "name: null\ntask: {shape: chain, length: 3, work: exp(1m), bar}\npolicy: {organization: team}\n",
		"complex-key.yaml": "name: complex-key\ntask: {shape: chain, length: 3, work: 1m}\npolicy: {organization: team}\n? [a, b]\n: 3\n",
	})
	for _, f := range []string{"gap.yaml", "null.yaml", "complex-key.yaml"} {
		files = append(files, filepath.Join(dir, f))
	}
	snippetLine := regexp.MustCompile(`^([> ]) *(\d+) \| (.*)$`)
	checked := 0
	for _, path := range files {
		_, err := scenarios.Load(path, nil)
		var e *scenarios.Error
		if !errors.As(err, &e) || e.Line == 0 || e.Source != path {
			continue
		}
		data, rerr := os.ReadFile(path)
		require.NoError(t, rerr)
		// What follows the last newline is no line of the file.
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		snip := strings.Split(strings.TrimRight(e.Snippet(false), "\n"), "\n")
		marked, prev := 0, 0
		for i, l := range snip {
			m := snippetLine.FindStringSubmatch(l)
			if m == nil {
				// The caret line, under the marked one.
				require.Positive(t, marked, "%s: %q before the marked line", path, l)
				require.Equal(t, marked, prev, "%s: the caret follows the marked line", path)
				prefix := len(snip[i-1]) - len(lines[marked-1])
				assert.Equal(t, strings.Repeat(" ", prefix+e.Column-1)+"^", l, "%s: the caret is under column %d", path, e.Column)
				continue
			}
			n, _ := strconv.Atoi(m[2])
			require.True(t, n >= 1 && n <= len(lines), "%s: line %d", path, n)
			assert.Equal(t, strings.TrimRight(lines[n-1], " "), strings.TrimRight(m[3], " "), "%s: line %d", path, n)
			if prev > 0 {
				assert.Equal(t, prev+1, n, "%s: lines follow each other", path)
			}
			if m[1] == ">" {
				marked = n
			}
			prev = n
		}
		assert.Equal(t, e.Line, marked, "%s: the error's line is marked", path)
		checked++
	}
	assert.Greater(t, checked, 20, "files with a placed error")
}

// TestLeadingZero: an integer written with a leading zero is refused
// (the YAML reader would take 010 for octal 8), while the explicit forms
// of other bases still read as they say.
func TestLeadingZero(t *testing.T) {
	for _, tt := range []struct {
		lit     string
		want    uint64
		wantErr string
	}{
		{lit: "10", want: 10},
		{lit: "0", want: 0},
		{lit: "-0", want: 0},
		{lit: "0o10", want: 8},
		{lit: "0x10", want: 16},
		{lit: "010", wantErr: "x.yaml:1:1: seed: 010 has a leading zero, which this YAML reader takes for octal (8); write 10 for decimal, or 0o10 for octal"},
		{lit: "+007", wantErr: "seed: +007 has a leading zero"},
		{lit: "00", wantErr: "write 0 for decimal"},
	} {
		t.Run(tt.lit, func(t *testing.T) {
			src := "seed: " + tt.lit + "\nname: x\ntask: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\n"
			sc, err := scenarios.Parse([]byte(src), "x.yaml", nil)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, sc.Seed)
		})
	}
}

// TestMisplacedKeyOrMisspelt: a key near an allowed one is taken for a
// misspelling of it, even where a section has a field of its name (seeds:
// seed, or sweep.seeds), and only the nearest is suggested.
func TestMisplacedKeyOrMisspelt(t *testing.T) {
	_, err := scenarios.Parse([]byte("task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\nseeds: 3\n"), "x.yaml", nil)
	require.Error(t, err)
	assert.True(t, strings.HasSuffix(err.Error(), `figures); did you mean "seed"?`), err.Error())
}

// TestYAMLForms: the YAML forms a hand-written file may use (tags, block
// scalars, keys that are not strings, aliases) decode as they read, and a
// mistake in one names the key and what was written.
func TestYAMLForms(t *testing.T) {
	const base = "task: {shape: chain, length: 2, work: 1m}\n"
	const team = "policy: {organization: team}\n"
	tests := []struct {
		name, src string
		got       func(*scenarios.Scenario) any // nil when the file is refused
		want      any                           // got's value, or the error's substring
	}{
		{"tagged value", base + team + "seed: !!int 5\n", func(sc *scenarios.Scenario) any { return sc.Seed }, uint64(5)},
		{"tag without a value", base + team + "seed: !!int\n", nil, "x.yaml:3:1: seed: missing value (want a non-negative integer)"},
		{"block scalar", base + "policy:\n  organization: |-\n    team\n", func(sc *scenarios.Scenario) any { return sc.Base.Policy.Organization }, "team"},
		{"empty block scalar", base + team + "description: |\n", func(sc *scenarios.Scenario) any { return sc.Description }, ""},
		{"integer key", base + team + "5: x\n", nil, "x.yaml:3:1: 5: unknown key (allowed: name, description, seed"},
		// A key indented too little is named where it belongs; a
		// misspelling near an allowed key is not (did you mean says it).
		{"key out of its section", base + team + "coupling: 0.5\n", nil, "figures); the scenario has task.coupling: a key indented too little?"},
		{"key of two sections", base + team + "latency: 0.5\n", nil, "; the scenario has collective.comm.latency and reward.latency: a key"},
		{"path without its section", base + team + "variants: [{name: a, set: {coupling: 0.5}}]\n", nil, `variant "a": coupling: unknown key "coupling" (allowed: task, collective, policy, reward, train); the scenario has task.coupling: a path without its section?`},
		{"path one level out", base + team + "variants: [{name: a, set: {collective.mode: rework}}]\n", nil, "; the scenario has collective.reconcile.mode: a path"},
		{"key one level out", base + team + "collective: {mode: rework}\n", nil, "x.yaml:3:14: collective.mode: unknown key (allowed: agents, speed, strength, calls, comm, spawn, check, reconcile, select, time_limit, token_budget, serving, api, tools, handoff); the scenario has collective.reconcile.mode: a key indented too little?"},
		{"alias to no anchor", base + team + "seed: *nope\n", nil, "x.yaml:3:1: seed: alias *nope refers to no anchor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scenarios.Parse([]byte(tt.src), "x.yaml", nil)
			if tt.got == nil {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, tt.got(sc))
		})
	}
}

func TestLoadBadFileListsAll(t *testing.T) {
	// Independent problems are reported together, in file order.
	src := "name: x\ntask: {shape: chain, length: 2, work: 1m}\ncollective:\n  agents: 0\n  check: {accuracy: 2}\npolicy: {organization: team}\n"
	_, err := scenarios.Parse([]byte(src), "x.yaml", nil)
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], "x.yaml:4:3: collective.agents")
	assert.Contains(t, lines[1], "x.yaml:5:11: collective.check.accuracy")
}

func TestSetFlags(t *testing.T) {
	tests := []struct {
		sets  []string
		check func(t *testing.T, sc *scenarios.Scenario)
	}{
		{[]string{"collective.agents=8"}, func(t *testing.T, sc *scenarios.Scenario) {
			for _, v := range sc.Variants {
				assert.Equal(t, 8, v.Spec.Collective.Agents, v.Name)
			}
		}},
		{[]string{"episodes=50", "seed=9"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, 50, sc.Episodes)
			assert.Equal(t, uint64(9), sc.Seed)
		}},
		{[]string{"task.work=exp(6m)", "collective.time_limit=90m"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, sim.Exponential(360), sc.Variants[1].Spec.Task.Work)
			assert.Equal(t, 90*sim.Minute, sc.Base.Collective.TimeLimit)
		}},
		{[]string{"collective.check={cost: 0.5}"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, collective.Verification{Cost: 0.5, Accuracy: 0.9, Retries: 3}, sc.Base.Collective.Check)
		}},
		// A map sets the keys it names, so two of the same section add up.
		{[]string{"collective.check={cost: 0.5}", "collective.check={retries: 1}"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, collective.Verification{Cost: 0.5, Accuracy: 0.9, Retries: 1}, sc.Base.Collective.Check)
		}},
		{[]string{"collective.check.cost=0.5", "collective.check={retries: 1}"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, collective.Verification{Cost: 0.5, Accuracy: 0.9, Retries: 1}, sc.Base.Collective.Check)
		}},
		// The range of episodes is 1 to 1e9, both ends included.
		{[]string{"episodes=1"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, 1, sc.Episodes)
		}},
		{[]string{"episodes=1000000000"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, 1_000_000_000, sc.Episodes)
		}},
		// A flag's value may hold its own anchors and aliases.
		{[]string{"collective.check={cost: &c 0.25, accuracy: *c}"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, collective.Verification{Cost: 0.25, Accuracy: 0.25, Retries: 3}, sc.Base.Collective.Check)
		}},
		{[]string{"policy.organization=sequential"}, func(t *testing.T, sc *scenarios.Scenario) {
			assert.Equal(t, "sequential", sc.Variants[0].Spec.Policy.Organization, "a variant that does not set it keeps the flag's")
			assert.Equal(t, "team", sc.Variants[1].Spec.Policy.Organization, "a variant's own set wins")
		}},
	}
	plain, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(strings.Join(tt.sets, " "), func(t *testing.T) {
			sc, err := scenarios.Load("tiny", tt.sets)
			require.NoError(t, err)
			tt.check(t, sc)
			assert.NotEqual(t, plain.Hash, sc.Hash, "--set changes the hash")
			assertRoundTrip(t, sc)
		})
	}
}

// TestSplitValueHint: a field path that is the tail of a value cut at its
// comma in a flow mapping says so; another malformed path does not.
func TestSplitValueHint(t *testing.T) {
	const hint = "cut at its comma"
	for set, want := range map[string]bool{
		"sweep.random={task.coupling: uniform(0,1)}":  true,
		"collective..agents=3":                        false,
		"sweep.grid={task.coupling: [0, 1], x.(y: 2}": false,
	} {
		_, err := scenarios.Load("tiny", []string{set})
		require.ErrorContains(t, err, "malformed field path", set)
		assert.Equal(t, want, strings.Contains(err.Error(), hint), "%s: %v", set, err)
	}
}

func TestSetFlagErrors(t *testing.T) {
	tests := []struct {
		set  string
		want []string
	}{
		{"collective.agents=abc", []string{"--set collective.agents=abc: collective.agents:", `got "abc", want an integer`}},
		{"collective.agents=-2", []string{"--set collective.agents=-2: collective.agents: -2 is out of range (at least 1)"}},
		{"collective.agentz=3", []string{"--set collective.agentz=3:", `unknown key "agentz" in collective`, "allowed: agents, speed", `did you mean "agents"`}},
		{"colective.agents=3", []string{`unknown key "colective"`, "allowed: name, description, seed, episodes, task, collective, policy", `did you mean "collective"`}},
		{"variants=[]", []string{"variants cannot be changed with --set"}},
		{"nonsense", []string{"--set nonsense: want PATH=VALUE"}},
		{"collective..agents=3", []string{"malformed field path"}},
		{"coupling=0.5", []string{`unknown key "coupling"`, "figures); the scenario has task.coupling: a path without its section?"}},
		{"task.work=expo(5m)", []string{"task.work:", `unknown distribution "expo"`, "allowed: const, exp", `did you mean "exp"?`}},
		{"collective.time_limit=90", []string{"collective.time_limit:", "want a number with a unit"}},
		{"task.components[1].weight=2", []string{"task.components has no entries"}},
		{"collective.agents.x=1", []string{"collective.agents holds an integer and has no key"}},
		{"task.work.mean=5m", []string{`task.work holds a distribution such as 0.3, 5m`, `and has no key "mean"`}},
		{"collective.comm.topology=mesh", []string{"--set collective.comm.topology=mesh: collective.comm.topology:", "allowed: point-to-point, broadcast, blackboard"}},
		{"task.shape=needle", []string{"--set task.shape=needle: task.width: not used by shape"}},
		{"episodes=0", []string{"--set episodes=0: episodes: 0 is out of range"}},
		{"collective.check.accuracy=[1, 2", []string{"malformed value"}},
		{"collective.serving.step_per_seq=0s", []string{"collective.serving.step_per_seq:", "replicas is 0"}},
		{"collective.api.rpm=10", []string{"collective.api.output_rate:", "greater than 0"}},
		{"task.tool_calls=poisson(2)", []string{"task.tool_calls: needs tool_latency"}},
		{"task.tool_calls=poison(2)", []string{"task.tool_calls:", `unknown distribution "poison"`, "poisson"}},
		{`collective.check.accuracy="0.9"`, []string{`collective.check.accuracy: got "0.9", want a number (the quotes make it a string: write 0.9 without them)`}},
		{"episodes=1000000001", []string{"--set episodes=1000000001: episodes: 1000000001 is out of range (1 to 1000000000)"}},
		// An empty value, or a comment alone, is a document without a body.
		{"collective.agents=", []string{"--set collective.agents=: collective.agents: missing value (want an integer)"}},
		{"collective.agents=# none", []string{"--set collective.agents=# none: collective.agents: missing value (want an integer)"}},
		{"episodes=9223372036854775807", []string{"episodes: 9223372036854775807 is out of range (1 to"}},
		{"episodes=9223372036854775808", []string{"episodes: 9223372036854775808 is out of range for an integer (-9223372036854775808 to 9223372036854775807)"}},
		{"collective.agents=99999999999999999999", []string{"collective.agents: 99999999999999999999 is out of range for an integer (-9223372036854775808 to 9223372036854775807)"}},
		{"seed=99999999999999999999", []string{"seed: 99999999999999999999 is out of range for a non-negative integer (0 to 18446744073709551615)"}},
		{"collective.time_limit=2562048h", []string{`collective.time_limit: invalid virtual time: "2562048h" is out of range (at most 2562047h47m16.854775807s either way, about 292 years)`}},
		{"task.difficulty=-0.5", []string{`task.difficulty: invalid distribution "-0.5": negative value (-0.5); values must be non-negative`}},
		// A name none of the allowed ones suggests the nearest.
		{"collective.check.by=orchestator", []string{`collective.check.by: "orchestator" is not allowed (allowed: maker, orchestrator); did you mean "orchestrator"?`}},
		{"train.policy=MLP", []string{`train.policy: "MLP" is not allowed (allowed: linear, mlp); did you mean "mlp"?`}},
		{"reward.penalty=exp", []string{`reward.penalty: "exp" is not allowed (allowed: none, linear, quadratic, exponential, deadline, soft-overlong, group-relative, critical-steps); did you mean "exponential"?`}},
		{"train.advantage=ppo", []string{`train.advantage: "ppo" is not allowed (allowed: flat-collective, none, moving-average, per-agent, ppo-gae); did you mean "ppo-gae"?`}},
		{"collective.select.merge=v", []string{`collective.select.merge: "v" is not allowed (allowed: verify, synthesis); did you mean "verify"?`}},
		// A quoted value of another type is a string; the hint says so.
		{`train.std_norm="true"`, []string{`train.std_norm: got "true", want true or false (the quotes make it a string: write true without them)`}},
		{`collective.agents="4"`, []string{`collective.agents: got "4", want an integer (the quotes make it a string: write 4 without them)`}},
		{"sweep={command: run, seeds: 1000000}", []string{"sweep: 2000000 trials are too many"}},
		{"sweep={command: run, seeds: 1000001}", []string{"sweep.seeds: 1000001 is out of range (1 to 1000000)"}},
		{"seed=-1", []string{"seed: -1 is negative (want a non-negative integer)"}},
		{"collective.agents=1.5", []string{"collective.agents: got the number 1.5, want an integer"}},
		{"collective.agents=true", []string{"collective.agents: got the boolean true, want an integer"}},
		{"collective.reconcile=3", []string{"collective.reconcile: got the integer 3, want a mapping (allowed keys: mode, rework)"}},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			_, err := scenarios.Load("tiny", []string{tt.set})
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			var e *scenarios.Error
			if assert.ErrorAs(t, err, &e) {
				assert.Equal(t, "--set "+tt.set, e.Source)
				assert.Zero(t, e.Line, "a flag has no line")
			}
		})
	}
}

// TestQuotedHint: a quoted value is told to lose its quotes only where
// its text unquoted is one the field takes: "0.5" or "1e3" is no integer,
// and "inf" or "0x10" no number of a scenario.
func TestQuotedHint(t *testing.T) {
	for _, tc := range []struct {
		set  string
		hint bool
	}{
		{`collective.agents="4"`, true},
		{`collective.agents="0.5"`, false},
		{`collective.agents="1e3"`, false},
		{`reward.latency="0.5"`, true},
		{`reward.latency="1e-1"`, true},
		{`reward.latency="inf"`, false},
		{`reward.latency="NaN"`, false},
		{`reward.latency="0x10"`, false},
		{`reward.latency="1_0"`, false},
	} {
		t.Run(tc.set, func(t *testing.T) {
			_, err := scenarios.Load("latency-pressure", []string{tc.set})
			require.Error(t, err)
			assert.Equal(t, tc.hint, strings.Contains(err.Error(), "the quotes make it a string"), "%v", err)
		})
	}
}

// TestManySets: thousands of --sets (one make request of simulate env
// holds them) are checked in one pass each over the overrides before
// them, not one per pair (4,000 took more than two minutes), with each set
// again of one path reported once, at the set before it.
func TestManySets(t *testing.T) {
	var sets []string
	for i := range 4000 {
		sets = append(sets, fmt.Sprintf("reward.cost=%d", i%2))
	}
	_, err := scenarios.Load("tiny", sets)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--set reward.cost=0: reward.cost: changes nothing: the later --set reward.cost=1 replaces it; give one")
	assert.Contains(t, err.Error(), "and 3989 more problems")
}

// TestRepeatedSet: a --set of a value (a number, a string, a
// distribution, a list) that a later --set of the same path replaces
// changes nothing, and is an error at the earlier one.
func TestRepeatedSet(t *testing.T) {
	for _, sets := range [][]string{
		{"collective.agents=2", "collective.agents=3"},
		{"collective.agents=2", "seed=4", " collective.agents = 3"},
		{"task.work=exp(5m)", "task.work=exp(6m)"},
		{"seed=2", "seed=2"},
		{"policy.organization=team", "policy.organization=split"},
		{"task.components=[{weight: 1}]", "task.components=[{weight: 2}]"},
		// A path and a map that names it set one field.
		{"collective.check.cost=0.3", "collective.check={cost: 0.5}"},
		{"collective.check={cost: 0.5}", "collective.check.cost=0.3"},
		{"collective.check={cost: 0.5}", "collective.check={cost: 0.3}"},
	} {
		t.Run(strings.Join(sets, " "), func(t *testing.T) {
			_, err := scenarios.Load("tiny", sets)
			var e *scenarios.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "--set "+sets[0], e.Source, "the error is at the --set that changes nothing")
			assert.Contains(t, e.Error(), "changes nothing: the later --set "+sets[len(sets)-1]+" replaces it")
		})
	}
}

// TestSetPartlyAgain: a --set that sets again some of the keys of an
// earlier map loses those of the earlier's values, an error at each; of
// three --sets of one field, each of the first two is an error once.
func TestSetPartlyAgain(t *testing.T) {
	_, err := scenarios.Load("tiny", []string{"collective.check={cost: 0.3, retries: 1}", "collective.check.cost=0.5"})
	assert.EqualError(t, err, "--set collective.check={cost: 0.3, retries: 1}: collective.check.cost: the later --set collective.check.cost=0.5 sets it again, which replaces this value; give one")
	_, err = scenarios.Load("tiny", []string{"collective.agents=2", "collective.agents=3", "collective.agents=4"})
	assert.EqualError(t, err, "--set collective.agents=2: collective.agents: changes nothing: the later --set collective.agents=3 replaces it; give one\n"+
		"--set collective.agents=3: collective.agents: changes nothing: the later --set collective.agents=4 replaces it; give one")
}

// TestVariantSetThrice: of three overrides of one field in a variant's
// set, each of the first two is an error once, at its own line.
func TestVariantSetThrice(t *testing.T) {
	src := "task: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\nvariants:\n  - name: a\n    set:\n      collective.check.cost: 0.1\n      collective.check: {cost: 0.2}\n      collective: {check: {cost: 0.3}}\n"
	_, err := scenarios.Parse([]byte(src), "v.yaml", nil)
	assert.EqualError(t, err, `v.yaml:6:7: variant "a": collective.check.cost: set again by collective.check (line 7), which replaces this value; give one`+"\n"+
		`v.yaml:7:7: variant "a": collective.check.cost: set again by collective (line 8), which replaces this value; give one`)
}

// TestSetIndexPastTheList: an index at or past the end of a list is an
// error that says how many entries there are.
func TestSetIndexPastTheList(t *testing.T) {
	const mixture = "testdata/good/mixture.yaml"
	for set, want := range map[string]string{
		"task.components[1].weight=3": "",
		"task.components[2].weight=3": "task.components[2].weight: task.components has 2 entries (index 0 to 1), not 3",
		"task.components[7].weight=3": "task.components[7].weight: task.components has 2 entries (index 0 to 1), not 8",
	} {
		_, err := scenarios.Load(mixture, []string{set})
		if want == "" {
			assert.NoError(t, err, set)
			continue
		}
		assert.ErrorContains(t, err, "--set "+set+": "+want, set)
	}
}

// TestWorkHashLeavesOutTheFigures: the work hash is the hash of the
// scenario without its figures list, whatever the list; anything else
// changes it as it changes the hash.
func TestWorkHashLeavesOutTheFigures(t *testing.T) {
	load := func(sets ...string) *scenarios.Scenario {
		t.Helper()
		sc, err := scenarios.Load("tiny", sets)
		require.NoError(t, err)
		return sc
	}
	plain := load()
	assert.Equal(t, plain.Hash, plain.WorkHash, "no figures list: the hash")
	one, two := load("figures=[finish_time]"), load("figures=[finish_time, agent_time]")
	assert.NotEqual(t, plain.Hash, one.Hash, "the figures list is part of the scenario")
	assert.Equal(t, plain.WorkHash, one.WorkHash)
	assert.Equal(t, plain.WorkHash, two.WorkHash)
	assert.Contains(t, string(two.Resolved), "figures:", "Resolved keeps the list")

	seeded := load("seed=2", "figures=[finish_time]")
	assert.NotEqual(t, one.WorkHash, seeded.WorkHash)
	assert.Equal(t, load("seed=2").Hash, seeded.WorkHash)
}

func TestResolvedStable(t *testing.T) {
	a, err := scenarios.Load("organizations", nil)
	require.NoError(t, err)
	b, err := scenarios.Load("organizations", nil)
	require.NoError(t, err)
	assert.Equal(t, a.Resolved, b.Resolved)
	assert.Equal(t, a.Hash, b.Hash)

	// The same scenario written differently resolves to the same bytes.
	data, ok := scenarios.Embedded("organizations")
	require.True(t, ok)
	reordered := strings.Replace(string(data), "seed: 1\n", "", 1) + "\nseed: 1\n"
	c, err := scenarios.Parse([]byte(reordered), "elsewhere.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, a.Hash, c.Hash, "key order, comments and the source do not change the hash")

	d, err := scenarios.Load("organizations", []string{"seed=2"})
	require.NoError(t, err)
	assert.NotEqual(t, a.Hash, d.Hash)
	assert.Contains(t, string(d.Resolved), "seed: 2\n")
}

// TestResolvedNestedSet: a variant's set of a mapping resolves to the
// paths it sets, as their dotted form does, not to its section filled in
// with defaults: the two forms give one scenario, and list and the report
// show them alike.
func TestResolvedNestedSet(t *testing.T) {
	const head = "name: nested\ntask: {shape: chain, length: 2, work: 1m}\npolicy: {organization: team}\n"
	nested, err := scenarios.Parse([]byte(head+"variants:\n  - {name: a, set: {collective: {check: {cost: 0.5}}}}\n"), "n.yaml", nil)
	require.NoError(t, err)
	dotted, err := scenarios.Parse([]byte(head+"variants:\n  - {name: a, set: {collective.check.cost: 0.5}}\n"), "n.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, string(dotted.Resolved), string(nested.Resolved))
	assert.True(t, strings.HasSuffix(string(nested.Resolved), "variants:\n  - name: a\n    set:\n      collective.check.cost: 0.5\n"), "%s", nested.Resolved)
	assertRoundTrip(t, nested)
}

func TestResolvedGolden(t *testing.T) {
	sc, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	golden(t, "tiny.resolved.yaml", sc.Resolved)
}

func TestLibrary(t *testing.T) {
	names := scenarios.Names()
	for _, want := range []string{"coupled-work", "divisible-work", "organizations", "tiny"} {
		assert.Contains(t, names, want)
	}
	assert.IsNonDecreasing(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Load(name, nil)
			require.NoError(t, err)
			assert.Equal(t, name, sc.Name, "the file's name field matches its file name")
			assert.Equal(t, "embedded:"+name, sc.Source)
			desc, ok := scenarios.Info(name)
			assert.True(t, ok)
			assert.Equal(t, sc.Description, desc)
			assert.NotEmpty(t, desc)
			assert.NotContains(t, desc, "\n")
			for _, v := range sc.Variants {
				require.NoError(t, v.Spec.Task.Validate())
				require.NoError(t, v.Spec.Collective.Validate())
				_, err := v.Policy()
				require.NoError(t, err)
			}
			assertRoundTrip(t, sc)

			// A library file loads by path as well as by name.
			byPath, err := scenarios.Load(filepath.Join("library", name+".yaml"), nil)
			require.NoError(t, err)
			assert.Equal(t, sc.Hash, byPath.Hash)
		})
	}
	_, ok := scenarios.Info("no-such-scenario")
	assert.False(t, ok)
	_, err := scenarios.Load("no-such-scenario", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "embedded: "+strings.Join(names, ", "))
}

func TestJSONSchema(t *testing.T) {
	b, err := scenarios.JSONSchema()
	require.NoError(t, err)
	var s map[string]any
	require.NoError(t, json.Unmarshal(b, &s))
	assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", s["$schema"])
	assert.Equal(t, false, s["additionalProperties"], "unknown keys are errors")
	props := s["properties"].(map[string]any)
	for _, k := range []string{"name", "description", "seed", "episodes", "task", "collective", "policy", "variants"} {
		assert.Contains(t, props, k)
	}
	text := string(b)
	for _, want := range []string{
		`"fork-join"`, `"needle"`, // shapes
		`"sequential"`, `"independent"`, `"team"`, // organizations
		`"point-to-point"`, `"blackboard"`, `"rework"`, // topologies and modes
		`"pattern"`, "90s, 12m or 1h30m", "exp(MEAN)", // durations and distributions
	} {
		assert.Contains(t, text, want)
	}
	// refine's descriptions and the enums of list items.
	episodes := props["episodes"].(map[string]any)
	assert.Equal(t, "Episodes per variant (default 100).", episodes["description"])
	assert.Equal(t, 1e9, episodes["maximum"], "the loader's bound")
	defs := s["$defs"].(map[string]any)
	metrics := defs["Sweep"].(map[string]any)["properties"].(map[string]any)["metrics"].(map[string]any)
	assert.Subset(t, metrics["items"].(map[string]any)["enum"], []any{"reward_mean", "prob_submit", "turns_mean", "duration_ratio", "error_amplification"})
	actions := defs["Train"].(map[string]any)["properties"].(map[string]any)["actions"].(map[string]any)
	assert.Equal(t, []any{"work", "delegate", "attempt", "share", "check", "wait", "submit"}, actions["items"].(map[string]any)["enum"])
	assert.Equal(t, 2.0, actions["minItems"], "at least two actions")
	again, err := scenarios.JSONSchema()
	require.NoError(t, err)
	assert.Equal(t, b, again, "the schema is deterministic")
}

// TestJSONSchemaTakesEveryDistribution: the schema's distributions are
// the loader's: an editor must not flag poisson(2), the documented value
// of task.tool_calls.
func TestJSONSchemaTakesEveryDistribution(t *testing.T) {
	s := readSchema(t)
	pattern := s.pattern(t, "TaskFamily", "tool_calls")
	description, _ := s.Defs["TaskFamily"].Properties["tool_calls"]["description"].(string)
	for _, name := range sim.DistNames() {
		assert.Regexp(t, pattern, name+"(2)", "the pattern takes %s", name)
		assert.Contains(t, description, name+"(", "the description names %s", name)
	}
	assert.NotRegexp(t, pattern, "poison(2)")
}

// TestJSONSchemaTakesTheResolvedScenario: every number that a resolved
// scenario writes (every field, defaults included: what manifest.json
// records) is inside the schema's bounds, so an editor does not flag a
// scenario the loader reads.
func TestJSONSchemaTakesTheResolvedScenario(t *testing.T) {
	b, err := scenarios.JSONSchema()
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(b, &schema))
	defs := schema["$defs"].(map[string]any)
	sc, err := scenarios.Load("tiny", nil)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(sc.Resolved, &doc))
	checked := 0
	var walk func(path string, node map[string]any, v any)
	walk = func(path string, node map[string]any, v any) {
		if ref, ok := node["$ref"].(string); ok {
			node = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		switch v := v.(type) {
		case map[string]any:
			props, _ := node["properties"].(map[string]any)
			for k, sub := range v {
				if p, ok := props[k].(map[string]any); ok {
					walk(path+"."+k, p, sub)
				}
			}
		case uint64, int64, float64:
			x, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
			if lo, ok := node["minimum"].(float64); ok {
				assert.GreaterOrEqual(t, x, lo, "%s", path)
			}
			if lo, ok := node["exclusiveMinimum"].(float64); ok {
				assert.Greater(t, x, lo, "%s", path)
			}
			if hi, ok := node["maximum"].(float64); ok {
				assert.LessOrEqual(t, x, hi, "%s", path)
			}
			if hi, ok := node["exclusiveMaximum"].(float64); ok {
				assert.Less(t, x, hi, "%s", path)
			}
			checked++
		}
	}
	walk("", schema, doc)
	assert.Greater(t, checked, 40, "numbers checked")
}

// TestGuardsLetScenariosThrough: a file of exactly the size limit, and
// brackets in quoted text or comments, however deep, are not refused by
// the guards against hostile input.
func TestGuardsLetScenariosThrough(t *testing.T) {
	const base = "task: {shape: chain, length: 1, work: 5m}\npolicy: {organization: team}\n"
	const limit = 4 << 20 // scenarios' maxFileSize
	deep := strings.Repeat("[", 65)
	tests := map[string]string{
		"at the size limit": base + "#" + strings.Repeat("x", limit-len(base)-2) + "\n",
		// The escaped quote does not end the string, so the brackets are text.
		"escaped double quote": `description: "\"` + deep + `"` + "\n" + base,
		"single-quoted":        "description: '" + deep + "'\n" + base,
		"comment":              "# " + deep + "\n" + base,
		"quoted key":           "'description': \"" + deep + "\"\n" + base,
		"trailing comment":     "description: x # " + deep + "\n" + base,
		"comment after a tab":  "description: x\t# " + deep + "\n" + base,
		"comment line":         "description: x\n# " + deep + "\n" + base,
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(src), "s.yaml", nil)
			assert.NoError(t, err)
		})
	}
	// Quoted list entries and brackets nested exactly as deep as allowed
	// pass the guard, to be refused by the checks of their values.
	for src, want := range map[string]string{
		"figures: [a, 'x" + deep + "', \"y" + deep + "\"]\n" + base:    "is not a chart name",
		"figures:\n  - 'x" + deep + "'\n" + base:                       "is not a chart name",
		"figures: " + deep[1:] + strings.Repeat("]", 64) + "\n" + base: "figures[0]: got a list, want a string",
		// Many brackets one after the other, none deep.
		"figures: [" + strings.Repeat("[], ", 70) + "]\n" + base: "and 60 more problems",
		// Without a space before it, # is text, and the brackets count.
		"description: a#" + deep + "\n" + base: "brackets nested too deeply",
	} {
		_, err := scenarios.Parse([]byte(src), "s.yaml", nil)
		assert.ErrorContains(t, err, want, src)
	}
	_, err := scenarios.Parse([]byte(tests["at the size limit"]+"\n"), "s.yaml", nil)
	assert.ErrorContains(t, err, "file too large (4194305 bytes; the limit is 4194304)")
}

func TestVariantPolicy(t *testing.T) {
	v := scenarios.Variant{Name: "x", Spec: scenarios.Spec{Policy: scenarios.PolicySpec{Organization: "nope"}}}
	_, err := v.Policy()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `variant "x": policy.organization: unknown organization "nope"`)
}

// TestVariantPolicyFile: a policy file replaces the organization (here
// one that does not exist, which would fail); a file that is missing or
// not a policy is an error naming the variant, and the file for the
// latter.
func TestVariantPolicyFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	var buf bytes.Buffer
	require.NoError(t, policy.Save(&buf, policy.NewLinear()))
	require.NoError(t, os.WriteFile(good, buf.Bytes(), 0o644))
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"format": "nope"}`), 0o644))

	v := scenarios.Variant{Name: "x", Spec: scenarios.Spec{Policy: scenarios.PolicySpec{Organization: "nope", File: good}}}
	p, err := v.Policy()
	require.NoError(t, err)
	assert.IsType(t, &policy.Linear{}, p)

	v.Spec.Policy.File = bad
	_, err = v.Policy()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `variant "x": policy `+bad)

	v.Spec.Policy.File = filepath.Join(dir, "missing.json")
	_, err = v.Policy()
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, err.Error(), `variant "x": policy.file: `)
}

func TestParseErrorsAreErrors(t *testing.T) {
	_, err := scenarios.Parse([]byte("name: a\nname: b\n"), "dup.yaml", nil)
	var e *scenarios.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, 2, e.Line)
	_, err = scenarios.Parse(nil, "empty.yaml", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "empty.yaml: empty scenario")
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./scenarios -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), string(got), "rerun with -update if the change is intended")
}

func TestHostileInput(t *testing.T) {
	nestedMixtures := func(n int) string {
		var sb strings.Builder
		sb.WriteString("task:\n")
		indent := "  "
		for range n {
			sb.WriteString(indent + "shape: mixture\n" + indent + "components:\n")
			indent += "  "
			sb.WriteString(indent + "- weight: 1\n")
			indent += "  "
		}
		sb.WriteString(indent + "shape: chain\n" + indent + "length: 1\n")
		return sb.String()
	}
	aliasBomb := func() string {
		var sb strings.Builder
		sb.WriteString("x:\n  - &c0 {weight: 1, shape: chain, length: 1}\n")
		for i := 1; i <= 9; i++ {
			fmt.Fprintf(&sb, "  - &c%d {weight: 1, shape: mixture, components: [%s]}\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*c%d, ", i-1), 10), ", "))
		}
		sb.WriteString("task: *c9\npolicy: {organization: team}\n")
		return sb.String()
	}
	tests := []struct {
		name, src, want string
	}{
		{"deep brackets", "task: " + strings.Repeat("[", 100000), "brackets nested too deeply"},
		{"deep blocks", nestedMixtures(40), "nested too deeply"},
		{"alias bomb", aliasBomb(), "too large"},
		{"alias cycle", "task: &a {shape: mixture, components: [*a]}\npolicy: {organization: team}\n", "task.components[0]"},
		{"huge", strings.Repeat("#", 5<<20), "file too large"},
		{"binary", "\x00\xff\xfe", ""},
		// Valid UTF-8, but a NUL, even the first byte, is not text.
		{"NUL first", "\x00name: a\n", "not a text file"},
		// Text in another encoding was "not a text file", with no place
		// and no word of the encoding.
		{"Latin-1", "name: a\ndescription: caf\xe9 au lait\n", "hostile.yaml:2:17: byte 0xE9 is not UTF-8, which a scenario must be (is the file in Latin-1"},
		{"Latin-1 after UTF-8", "name: a\ndescription: \u00e9t\xe9\n", "hostile.yaml:2:16: byte 0xE9 is not UTF-8"},
		{"UTF-16", "\xff\xfen\x00a\x00", "hostile.yaml: the file is UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8"},
		// The depth is reported at the line where it is exceeded.
		{"deep on line 3", "name: a\n\ntask: " + strings.Repeat("[", 65), "hostile.yaml:3:1: brackets nested too deeply"},
		// In single quotes a backslash escapes nothing: the quote ends
		// there, and the brackets after it count.
		// A quote inside plain text opens no quoted scalar: the brackets
		// after it count (they were skipped as quoted text, and the parser
		// then took minutes over 100,000 of them).
		{"apostrophe in plain text", "description: it's\ntask: " + strings.Repeat("[", 65), "hostile.yaml:2:1: brackets nested too deeply"},
		{"inch mark in plain text", "description: a 5\" screen\ntask: " + strings.Repeat("[", 65), "hostile.yaml:2:1: brackets nested too deeply"},
		{"quote after a dash", "description: a-'b\ntask: " + strings.Repeat("[", 65), "hostile.yaml:2:1: brackets nested too deeply"},
		{"quote after a comma", "description: a,'b\ntask: " + strings.Repeat("[", 65), "hostile.yaml:2:1: brackets nested too deeply"},
		{"single-quoted backslash", "description: 'C:\\'\ntask: " + strings.Repeat("[", 65), "hostile.yaml:2:1: brackets nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse([]byte(tt.src), "hostile.yaml", nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestHostileSet: a --set value that is YAML has a file's bounds, so
// that the parser never takes minutes over brackets (simulate env's make
// passes a client's set values here).
func TestHostileSet(t *testing.T) {
	tests := []struct {
		name, set, want string
	}{
		{"one level too deep", "train.actions=" + strings.Repeat("[", 65), "train.actions: brackets nested too deeply (more than 64 levels)"},
		{"deep brackets", "train.actions=" + strings.Repeat("[", 100000) + strings.Repeat("]", 100000), "brackets nested too deeply"},
		{"huge", "train.actions=[" + strings.Repeat("work,", 1<<20) + "work]", "train.actions: value too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Load("tiny", []string{tt.set})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	// Within the bounds a value is read as before.
	_, err := scenarios.Load("tiny", []string{"train.actions=[work, delegate]"})
	require.NoError(t, err)
}

// TestJSONSchemaRefusesNegativeDurations: every duration and distribution
// the loader reads is 0 or more, so the schema's patterns take no minus
// sign before the value (an editor must not pass -1s), while exponents
// such as 1e-3 stay allowed.
func TestJSONSchemaRefusesNegativeDurations(t *testing.T) {
	s := readSchema(t)
	tests := []struct {
		set, def, field, bad, good string
	}{
		{"collective.calls.overhead", "Calls", "overhead", "-1s", "1.5s"},
		{"collective.time_limit", "Collective", "time_limit", "-2h", "1h30m"},
		{"collective.spawn", "Collective", "spawn", "-0.5s", ".5s"},
		{"task.work", "TaskFamily", "work", "-5m", "1e-3"},
		{"collective.api.ttft", "API", "ttft", "-1s", "exp(0.5s)"},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			_, err := scenarios.Load("tiny", []string{tt.set + "=" + tt.bad})
			assert.ErrorContains(t, err, tt.set, "the loader refuses %s", tt.bad)
			pattern := s.pattern(t, tt.def, tt.field)
			assert.NotRegexp(t, pattern, tt.bad)
			assert.Regexp(t, pattern, tt.good)
		})
	}
}
