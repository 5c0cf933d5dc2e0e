package scenarios

import (
	"encoding"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/swarmsim/swarmsim/sim"
)

var textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()

// resolve writes the canonical YAML of a resolved scenario: the base with
// every default filled in and --set applied, then the variants, each as
// its overrides with the values they resolved to. Reading it back gives an
// equal scenario, and the same scenario always gives the same bytes.
func resolve(fl *file, variants []variantState, sweep *Sweep) ([]byte, error) {
	doc := yaml.MapSlice{{Key: "name", Value: fl.Name}}
	if fl.Description != "" {
		doc = append(doc, yaml.MapItem{Key: "description", Value: fl.Description})
	}
	doc = append(doc,
		yaml.MapItem{Key: "seed", Value: fl.Seed},
		yaml.MapItem{Key: "episodes", Value: fl.Episodes},
		yaml.MapItem{Key: "task", Value: encodeValue(reflect.ValueOf(fl.Task), false)},
		yaml.MapItem{Key: "collective", Value: encodeValue(reflect.ValueOf(fl.Collective), false)},
		yaml.MapItem{Key: "policy", Value: encodeValue(reflect.ValueOf(fl.Policy), false)},
		yaml.MapItem{Key: "reward", Value: encodeValue(reflect.ValueOf(fl.Reward), false)},
		yaml.MapItem{Key: "train", Value: encodeValue(reflect.ValueOf(fl.Train), false)},
	)
	if !fl.Replay.IsZero() {
		doc = append(doc, yaml.MapItem{Key: "replay", Value: encodeValue(reflect.ValueOf(fl.Replay), false)})
	}
	if len(variants) > 0 && !variants[0].implicit {
		list := make([]any, len(variants))
		for i := range variants {
			vs := &variants[i]
			v := yaml.MapSlice{{Key: "name", Value: vs.Name}}
			if len(vs.overrides) > 0 {
				set := yaml.MapSlice{}
				spec := reflect.ValueOf(&vs.Spec).Elem()
				// Each override is written as the paths it sets, its
				// leaves: a mapping as the keys it names, as their paths
				// would set them, not as its section filled in with
				// defaults that it never set.
				for _, o := range vs.overrides {
					for _, leaf := range o.leaves {
						segs, err := parsePath(leaf)
						if err != nil {
							return nil, err
						}
						fv, err := findField(spec, segs, nil)
						if err != nil {
							return nil, err
						}
						// Written in full (zero values too): a mapping
						// merges into the base, so an omitted field would
						// keep the base's value instead of the override's.
						set = append(set, yaml.MapItem{Key: leaf, Value: encodeValue(fv, true)})
					}
				}
				v = append(v, yaml.MapItem{Key: "set", Value: set})
			}
			list[i] = v
		}
		doc = append(doc, yaml.MapItem{Key: "variants", Value: list})
	}
	if sweep != nil {
		doc = append(doc, yaml.MapItem{Key: "sweep", Value: sweep.resolved()})
	}
	if len(fl.Figures) > 0 {
		doc = append(doc, yaml.MapItem{Key: "figures", Value: fl.Figures})
	}
	return yaml.MarshalWithOptions(doc, yaml.Indent(2), yaml.IndentSequence(true))
}

// isZero reports whether v is zero, by its own IsZero method where it has
// one (as encoding/json's omitzero does): a section such as
// collective.serving is absent when its switch is off, whatever defaults
// its other fields hold.
func isZero(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		return z.IsZero()
	}
	return v.IsZero()
}

// encodeValue turns v into plain values that the YAML encoder writes in
// canonical form. Struct fields are written in declaration order; with
// full unset, those tagged omitempty are left out when zero.
func encodeValue(v reflect.Value, full bool) any {
	t := v.Type()
	switch {
	case t == timeType:
		// Not MarshalText, which writes sim.MaxTime as "never".
		return time.Duration(v.Int()).String()
	case t == distType:
		// Constants are written as numbers, the rest as text.
		text := v.Interface().(sim.Dist).String()
		if x, err := strconv.ParseFloat(text, 64); err == nil {
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x)
			}
			return x
		}
		return text
	case t.Implements(textMarshalerType):
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			panic(err) // caught by Parse: a model type that cannot print itself
		}
		return string(b)
	}
	switch t.Kind() {
	case reflect.Struct:
		ms := yaml.MapSlice{}
		for _, f := range fieldsOf(t) {
			fv := v.FieldByIndex(f.index)
			if !full && isZero(fv) && omitEmpty(t, f.index) {
				continue
			}
			ms = append(ms, yaml.MapItem{Key: f.name, Value: encodeValue(fv, full)})
		}
		return ms
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = encodeValue(v.Index(i), full)
		}
		return out
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	panic("scenarios: cannot encode " + t.String())
}
