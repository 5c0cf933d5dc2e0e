package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strings"

	"github.com/swarmsim/swarmsim/rundir"
)

// Name is the report's file name in a directory. The report is written
// after the manifest, from it, so the manifest does not list it.
const Name = "report.html"

// Write builds the report of the complete directory dir and writes it to
// dir/report.html atomically, replacing an older one.
func Write(dir string) error {
	r, err := rundir.Open(dir)
	if err != nil {
		return err
	}
	p, err := Build(r)
	if err != nil {
		return fmt.Errorf("report of %s: %w", dir, err)
	}
	b, err := p.HTML()
	if err != nil {
		return fmt.Errorf("report of %s: %w", dir, err)
	}
	return rundir.WriteFile(r.Join(Name), b)
}

// A Page is what report.html shows, read from a complete directory.
type Page struct {
	Kind        rundir.Kind
	Scenario    string
	Description string
	// Facts are the manifest's lines: seed, episodes or seeds, variants,
	// the command, the versions, the scenario's source and hash.
	Facts []Fact
	// Tables are the summary (or, for a compare directory, the
	// differences), first the one a reader judges the result by.
	Tables []*Table
	Charts []Chart
	// LeftOut says which charts were left out and why.
	LeftOut []string
	// Settings are the variants' settings that differ; nil when the
	// variants set nothing.
	Settings *Table
	// Files link every file of the directory, grouped by folder.
	Files []FileGroup
}

// A Fact is one line of what was run.
type Fact struct {
	Name, Value string
	// Code marks a value to show as code: the command line, a hash.
	Code bool
}

// A Link is a relative link to a file of the directory.
type Link struct{ Text, Href string }

// A FileGroup is the files of one folder of the directory ("" for its
// top level).
type FileGroup struct {
	Folder string
	Links  []Link
}

// Heading is the folder's heading in the list of files: how many files
// it lists, but for charts/, which lists only its index, where the
// charts' own files are.
func (g FileGroup) Heading() string {
	if g.Folder == chartsDir+"/" {
		return g.Folder + " (the index; each chart's own files are linked under it above)"
	}
	if len(g.Links) == 1 {
		return g.Folder + " (1 file)"
	}
	return fmt.Sprintf("%s (%d files)", g.Folder, len(g.Links))
}

// Build reads the page of the complete directory r.
func Build(r *rundir.Run) (*Page, error) {
	m := r.Manifest
	p := &Page{Kind: m.Kind, Scenario: m.Scenario, Description: m.Description, Facts: facts(m)}
	sc, err := readScenario(m.Resolved)
	if err != nil {
		return nil, fmt.Errorf("%s: resolved scenario: %w", r.Join(rundir.ManifestName), err)
	}
	if p.Tables, err = tables(r, sc); err != nil {
		return nil, err
	}
	if p.Charts, err = charts(r); err != nil {
		return nil, err
	}
	if p.LeftOut, err = leftOut(r); err != nil {
		return nil, err
	}
	p.Settings = settings(sc.settings, m.Variants)
	p.Files = files(m)
	return p, nil
}

// facts lists what the manifest says was run.
func facts(m *rundir.Manifest) []Fact {
	var fs []Fact
	add := func(name, value string, code bool) {
		if value != "" {
			fs = append(fs, Fact{name, value, code})
		}
	}
	add("variants", strings.Join(m.Variants, ", "), false)
	add("seed", fmt.Sprint(m.Seed), false)
	if m.Episodes > 0 {
		add("episodes", fmt.Sprint(m.Episodes), false)
	}
	if m.Seeds > 0 {
		add("seeds", fmt.Sprint(m.Seeds), false)
	}
	if m.MissingTrials > 0 {
		add("missing trials", fmt.Sprintf("%d: the tables and charts hold the sweep's other trials (one shard's, or a partial merge's)", m.MissingTrials), false)
	}
	add("scenario source", m.Source, false)
	add("swarmsim", m.SwarmsimVersion, false)
	add("Go", m.GoVersion, false)
	add("command", shellQuote(m.Command), true)
	add("scenario hash", m.Hash, true)
	return fs
}

// shellQuote joins args as a shell would need them typed.
func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/:=+@%") == "" {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

//go:embed page.html.tmpl
var pageSource string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"title": kindTitle,
}).Parse(pageSource))

// HTML renders the page.
func (p *Page) HTML() ([]byte, error) {
	var b bytes.Buffer
	if err := page.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// kindTitle names a directory's kind in the page's title.
func kindTitle(k rundir.Kind) string {
	switch k {
	case rundir.KindRun:
		return "run"
	case rundir.KindTrain:
		return "training"
	case rundir.KindSweep:
		return "sweep"
	case rundir.KindCompare:
		return "comparison"
	case rundir.KindFit:
		return "fit"
	case rundir.KindReplay:
		return "replay"
	}
	return string(k)
}
