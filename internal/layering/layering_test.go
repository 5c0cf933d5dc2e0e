package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// rule is one line of the layering: the packages of the module it
// constrains, and the module packages they must not import. Packages are
// named relative to the module's path ("sim", "models/task").
type rule struct {
	name    string            // the rule as a violation states it
	from    func(string) bool // the packages the rule constrains
	forbids func(string) bool // the imports it forbids them
}

// rules is the layering of docs/architecture.md, from the bottom layer up.
var rules = []rule{
	{
		name:    "sim imports nothing of the module",
		from:    under("sim"),
		forbids: not(under("sim")),
	},
	{
		name:    "stats imports nothing of the module",
		from:    under("stats"),
		forbids: not(under("stats")),
	},
	{
		// The shared utilities sit below models, which use them.
		name:    "internal/... imports nothing of the module outside internal/...",
		from:    under("internal"),
		forbids: not(under("internal")),
	},
	{
		name:    "models/... imports nothing of the module outside models/..., sim, stats and internal/...",
		from:    under("models"),
		forbids: not(under("models", "sim", "stats", "internal")),
	},
	{
		name:    "metric imports nothing of the module",
		from:    under("metric"),
		forbids: not(under("metric")),
	},
	{
		// scenarios is the file format: it may name the models' types
		// (collective.Config, rlcr.Config, task.Family), so it imports
		// models/...; that it calls none of their running (collective.Run,
		// rlcr.Train) is not visible in imports, as rlcr's types and its
		// training are one package. What imports can show is that it
		// reaches no package that runs experiments, pools work, writes
		// results or draws: those are the layers above it.
		name:    "scenarios/... imports no execution or output package (experiment/..., internal/pool, rundir, results, plots)",
		from:    under("scenarios"),
		forbids: under("experiment", "internal/pool", "rundir", "results", "plots"),
	},
	{
		name:    "plots imports nothing from models/... or experiment/...",
		from:    under("plots"),
		forbids: under("models", "experiment"),
	},
	{
		name:    "nothing but cmd/... imports experiment/...",
		from:    not(under("cmd", "experiment")),
		forbids: under("experiment"),
	},
	{
		// The environment answers its client and writes nothing: a
		// session leaves no files behind.
		name:    "experiment/env imports no output package (rundir, results, plots, internal/atomicfile)",
		from:    under("experiment/env"),
		forbids: under("rundir", "results", "plots", "internal/atomicfile"),
	},
}

// under reports whether a package is one of the given ones or inside one.
func under(roots ...string) func(string) bool {
	return func(pkg string) bool {
		for _, r := range roots {
			if pkg == r || strings.HasPrefix(pkg, r+"/") {
				return true
			}
		}
		return false
	}
}

func not(f func(string) bool) func(string) bool {
	return func(pkg string) bool { return !f(pkg) }
}

// violations returns, sorted, a message for every import in graph that r
// forbids, and the number of packages r constrains. graph maps each of
// the module's packages to the module packages it imports.
func (r rule) violations(graph map[string][]string) ([]string, int) {
	var out []string
	n := 0
	for pkg, imports := range graph {
		if !r.from(pkg) {
			continue
		}
		n++
		for _, imp := range imports {
			if r.forbids(imp) {
				out = append(out, fmt.Sprintf("%s imports %s, against the rule %q", pkg, imp, r.name))
			}
		}
	}
	slices.Sort(out)
	return out, n
}

func TestLayering(t *testing.T) {
	graph := moduleGraph(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			found, n := r.violations(graph)
			if n == 0 {
				t.Logf("no package of the module is constrained by this rule yet")
			}
			for _, v := range found {
				t.Error(v)
			}
		})
	}
}

// TestRulesFindViolations checks the checker on a made-up module: each
// rule must report the import it forbids, with both packages and itself
// named, and pass an import it allows.
func TestRulesFindViolations(t *testing.T) {
	cases := []struct {
		rule    string
		pkg     string
		bad, ok string // an import the rule forbids pkg, and one it allows
	}{
		{"sim imports nothing of the module", "sim", "models/task", "sim/internal/x"},
		{"stats imports nothing of the module", "stats", "sim", "stats/x"},
		{"internal/... imports nothing of the module outside internal/...", "internal/pool", "sim", "internal/atomicfile"},
		{"models/... imports nothing of the module outside models/..., sim, stats and internal/...", "models/collective", "scenarios", "internal/pool"},
		{"models/... imports nothing of the module outside models/..., sim, stats and internal/...", "models/rlcr", "metric", "models/task"},
		{"metric imports nothing of the module", "metric", "stats", "metric/x"},
		{"scenarios/... imports no execution or output package (experiment/..., internal/pool, rundir, results, plots)", "scenarios", "experiment/sweep", "models/rlcr"},
		{"scenarios/... imports no execution or output package (experiment/..., internal/pool, rundir, results, plots)", "scenarios/x", "internal/pool", "internal/atomicfile"},
		{"plots imports nothing from models/... or experiment/...", "plots", "models/collective", "internal/atomicfile"},
		{"nothing but cmd/... imports experiment/...", "scenarios", "experiment", "sim"},
		{"nothing but cmd/... imports experiment/...", "results", "experiment/sweep", "rundir"},
		{"experiment/env imports no output package (rundir, results, plots, internal/atomicfile)", "experiment/env", "rundir", "experiment"},
	}
	for _, c := range cases {
		t.Run(c.pkg+" imports "+c.bad, func(t *testing.T) {
			i := slices.IndexFunc(rules, func(r rule) bool { return r.name == c.rule })
			if i < 0 {
				t.Fatalf("no rule %q", c.rule)
			}
			got, n := rules[i].violations(map[string][]string{c.pkg: {c.ok, c.bad}})
			want := []string{fmt.Sprintf("%s imports %s, against the rule %q", c.pkg, c.bad, c.rule)}
			if n != 1 || !slices.Equal(got, want) {
				t.Errorf("got %q over %d packages, want %q over 1", got, n, want)
			}
		})
	}
	// Every rule has a case, so that none is a rule that forbids nothing.
	for _, r := range rules {
		if !slices.ContainsFunc(cases, func(c struct{ rule, pkg, bad, ok string }) bool { return c.rule == r.name }) {
			t.Errorf("rule %q has no case", r.name)
		}
	}
}

// listed is what the test reads of each package `go list -json` prints.
type listed struct {
	ImportPath string
	Imports    []string
	Module     *struct {
		Path string
		Main bool
	}
	Error *struct{ Err string }
}

// moduleGraph lists the main module's packages with the go command and
// returns each one's imports within the module, all named relative to the
// module's path. It skips the test where there is no go command.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the layering test runs `go list`, and there is no go command on PATH: %v", err)
	}
	// -e lists a package that does not build, an import cycle included,
	// with its imports: an upward import that closes a cycle is reported
	// by its rule rather than as go list's failure.
	cmd := exec.Command(goCmd, "list", "-e", "-deps", "-json", "./...")
	cmd.Dir = "../.." // the module's root, from internal/layering
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -e -deps -json ./...: %v\n%s", err, stderr.Bytes())
	}
	graph, broken, err := parseGraph(out)
	if err != nil {
		t.Fatalf("reading go list's output: %v", err)
	}
	for _, b := range broken {
		t.Logf("go list: %s (the rules read the imports as written)", b)
	}
	if _, ok := graph["sim"]; !ok {
		t.Fatalf("go list named no package sim: the graph was not read (%d packages)", len(graph))
	}
	return graph
}

// parseGraph reads the stream of JSON objects that `go list -deps -json`
// prints and keeps the main module's packages. A package built for one
// command with that command's profile (PGO) is listed again as a variant,
// "models/collective [.../cmd/simulate]"; a variant counts as its package.
// It also returns the errors go list found in the module's packages.
func parseGraph(out []byte) (graph map[string][]string, broken []string, err error) {
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		err = dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if p.Module != nil && p.Module.Main {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		return nil, nil, errors.New("no package of the main module")
	}
	module := pkgs[0].Module.Path
	rel := func(path string) (string, bool) {
		path, _, _ = strings.Cut(path, " [")
		if path == module {
			return ".", true
		}
		return strings.CutPrefix(path, module+"/")
	}
	graph = map[string][]string{}
	for _, p := range pkgs {
		if p.Error != nil {
			broken = append(broken, p.ImportPath+": "+p.Error.Err)
		}
		pkg, ok := rel(p.ImportPath)
		if !ok {
			return nil, nil, fmt.Errorf("package %s of the main module is outside its path %s", p.ImportPath, module)
		}
		imports := graph[pkg]
		for _, imp := range p.Imports {
			if r, ok := rel(imp); ok && !slices.Contains(imports, r) {
				imports = append(imports, r)
			}
		}
		graph[pkg] = imports
	}
	return graph, broken, nil
}

// TestParseGraph checks the reading of go list's output: the main
// module's packages only, named relative to it, a PGO variant merged into
// its package, errors kept.
func TestParseGraph(t *testing.T) {
	out := []byte(`
{"ImportPath": "example.com/m/sim", "Imports": ["fmt", "example.com/m/x"], "Module": {"Path": "example.com/m", "Main": true}}
{"ImportPath": "example.com/m/models/a [example.com/m/cmd/c]", "Imports": ["example.com/m/sim [example.com/m/cmd/c]", "example.com/m/stats"], "Module": {"Path": "example.com/m", "Main": true}}
{"ImportPath": "example.com/m/models/a", "Imports": ["example.com/m/sim", "example.com/dep"], "Module": {"Path": "example.com/m", "Main": true}, "Error": {"Err": "import cycle not allowed"}}
{"ImportPath": "example.com/dep", "Imports": ["example.com/m/sim"], "Module": {"Path": "example.com/dep"}}
{"ImportPath": "fmt", "Imports": ["errors"]}
`)
	graph, broken, err := parseGraph(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"sim":      {"x"},
		"models/a": {"sim", "stats"},
	}
	if len(graph) != len(want) {
		t.Errorf("got packages %v, want %v", graph, want)
	}
	for pkg, imports := range want {
		if !slices.Equal(graph[pkg], imports) {
			t.Errorf("%s imports %q, want %q", pkg, graph[pkg], imports)
		}
	}
	if !slices.Equal(broken, []string{"example.com/m/models/a: import cycle not allowed"}) {
		t.Errorf("errors %q, want the cycle of models/a", broken)
	}
}
