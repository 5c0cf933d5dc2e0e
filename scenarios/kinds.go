package scenarios

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/swarmsim/swarmsim/models/task"
)

// A task kind's preset gives defaults to the fields a family leaves out
// (task.Family.Kind). A field given as 0 (or false) decodes to the same
// value as one left out, so it would silently keep the preset's value:
// that is an error, found here from where the scenario writes the field
// (the file, a variant's set, a --set flag or a sweep axis).

// familyFields are the fields of a task family a preset can give.
var familyFields = func() []field {
	var out []field
	for _, f := range fieldsOf(reflect.TypeFor[task.Family]()) {
		switch f.name {
		case "kind", "shape", "components", "path":
		default:
			out = append(out, f)
		}
	}
	return out
}()

// kindZeroProblems reports the fields of spec's families with a kind that
// written says were given, whose value is zero while the kind's preset
// has another.
func kindZeroProblems(spec *Spec, written func(path string) bool) []problem {
	var out []problem
	var visit func(prefix string, f *task.Family)
	visit = func(prefix string, f *task.Family) {
		for i := range f.Components {
			visit(fmt.Sprintf("%s.components[%d]", prefix, i), &f.Components[i].Family)
		}
		preset, ok := task.KindPreset(f.Kind)
		if f.Kind == "" || !ok {
			return // no kind, or one Validate reports
		}
		fv, pv := reflect.ValueOf(f).Elem(), reflect.ValueOf(&preset).Elem()
		for _, fd := range familyFields {
			path := prefix + "." + fd.name
			own, given := fv.FieldByIndex(fd.index), pv.FieldByIndex(fd.index)
			if own.IsZero() && !given.IsZero() && written(path) {
				out = append(out, problem{path, fmt.Sprintf("%v cannot be told from leaving the field out, so kind %q would keep its %v; give another value, or a shape instead of the kind",
					encodeValue(own, false), f.Kind, encodeValue(given, false))})
			}
		}
	}
	visit("task", &spec.Task)
	return out
}

// writtenIn reports whether the value node, set at setPath, gives the
// field at path: setPath is path, or the value is a mapping that holds
// it.
func (d *decoder) writtenIn(setPath string, value ast.Node, path string) bool {
	if setPath == path {
		return true
	}
	rest, ok := strings.CutPrefix(path, setPath+".")
	if !ok || value == nil {
		return false
	}
	_, found := d.lookupNode(value, rest)
	return found
}

// kindWritten returns whether variant vi of fl gives the field at a path:
// in the file, a --set flag, the variant's set, or one of the sweep's
// axes.
func (p *parse) kindWritten(fl *file, vi int, axes []string) func(path string) bool {
	var sets setList
	if vi < len(fl.Variants) {
		sets = fl.Variants[vi].Set
	}
	return func(path string) bool {
		if _, ok := p.dec.lookupNode(p.root, path); ok {
			return true
		}
		for _, e := range sets {
			if segs, err := parsePath(e.Path); err == nil && p.dec.writtenIn(pathString(segs), e.Value, path) {
				return true
			}
		}
		for _, o := range p.flags {
			if o.path == path {
				return true
			}
		}
		for _, a := range axes {
			if a == path {
				return true
			}
		}
		return false
	}
}

// axisPaths returns the paths of the sweep's axes.
func (sw *Sweep) axisPaths() []string {
	var out []string
	for _, a := range sw.Grid {
		out = append(out, a.Path)
	}
	for _, a := range sw.Random {
		out = append(out, a.Path)
	}
	return out
}
