package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"
)

// settings returns the table of the settings in which the variants of
// resolved (a manifest's scenario as run) differ: a row per variant, a
// column per path any variant sets, the scenario's own value where a
// variant does not set it. It is nil when no variant sets anything.
func settings(resolved string) (*Table, error) {
	if resolved == "" {
		return nil, nil
	}
	var doc struct {
		Variants []struct {
			Name string         `yaml:"name"`
			Set  map[string]any `yaml:"set"`
		} `yaml:"variants"`
	}
	// One parse, decoded twice: parsing the scenario is most of the cost.
	file, err := parser.ParseBytes([]byte(resolved), 0)
	if err != nil {
		return nil, err
	}
	if len(file.Docs) == 0 || file.Docs[0].Body == nil {
		return nil, nil
	}
	root := file.Docs[0].Body
	if err := yaml.NodeToValue(root, &doc); err != nil {
		return nil, err
	}
	var whole map[string]any
	if err := yaml.NodeToValue(root, &whole); err != nil {
		return nil, err
	}
	var paths []string
	for _, v := range doc.Variants {
		for p := range v.Set {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	slices.Sort(paths)
	tab := &Table{ID: "settings", Title: "Variants",
		Caption: "The settings a variant sets; the others are the scenario's (in grey). The manifest holds the whole scenario as run."}
	tab.Head = append(tab.Head, Head{Text: "variant"})
	for _, p := range paths {
		tab.Head = append(tab.Head, Head{Text: p})
	}
	for _, v := range doc.Variants {
		row := []Cell{{Text: v.Name}}
		for _, p := range paths {
			if val, ok := v.Set[p]; ok {
				row = append(row, Cell{Text: value(val)})
			} else {
				row = append(row, Cell{Text: value(lookup(whole, p)), Class: "default", Title: "the scenario's value"})
			}
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab, nil
}

// lookup returns the value at the dotted path p of doc, nil if it has
// none.
func lookup(doc map[string]any, p string) any {
	var cur any = doc
	for _, k := range strings.Split(p, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// value writes a setting as YAML writes it in one line.
func value(v any) string {
	if v == nil {
		return "–"
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := yaml.MarshalWithOptions(v, yaml.Flow(true))
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(b))
}
