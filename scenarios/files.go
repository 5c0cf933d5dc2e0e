package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swarmsim/swarmsim/models/policy"
	"github.com/swarmsim/swarmsim/models/task"
)

// Files a scenario refers to (task.path, policy.file) are written relative
// to the folder of the scenario file, so that a scenario and its graphs move
// together and run from any working directory. A --set value is typed at a
// shell, so it is relative to the working directory; it is rewritten
// relative to the scenario's folder, which keeps every path in the resolved
// scenario relative to one place. Embedded scenarios have no folder: their
// paths are relative to the working directory.

// isFilePath reports whether the field at path holds a file path.
func isFilePath(path string) bool {
	if path == "policy.file" || path == "replay.traces" || strings.HasPrefix(path, "replay.traces[") {
		return true
	}
	return topKey(path) == "task" && (path == "task.path" || strings.HasSuffix(path, ".path"))
}

// scenarioDir returns the folder that the relative paths of a scenario read
// from source are relative to, or "" for an embedded scenario.
func scenarioDir(source string) string {
	if strings.HasPrefix(source, "embedded:") {
		return ""
	}
	return filepath.Dir(source)
}

// rebase turns a path relative to the working directory into one relative
// to dir (or absolute where no relative path exists).
func rebase(dir, p string) string {
	if dir == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	absDir, err1 := filepath.Abs(dir)
	absP, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return p
	}
	if rel, err := filepath.Rel(absDir, absP); err == nil {
		return filepath.ToSlash(rel)
	}
	return absP
}

// located returns p as the program opens it: joined to dir when relative.
func located(dir, p string) string {
	if dir == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// locateSpec rewrites the file paths of s so that they open from the
// working directory.
func locateSpec(dir string, s *Spec) {
	s.Policy.File = located(dir, s.Policy.File)
	for i, p := range s.Replay.Traces {
		s.Replay.Traces[i] = located(dir, p)
	}
	locateFamily(dir, &s.Task)
}

func locateFamily(dir string, f *task.Family) {
	f.Path = located(dir, f.Path)
	for i := range f.Components {
		locateFamily(dir, &f.Components[i].Family)
	}
}

// CheckFiles reads every file the scenario's variants refer to (graph files
// of task.path, learned policies of policy.file) and reports what is wrong
// with them. Errors start with the referenced file's own position, such as
// "graphs/cycle.dot:3:6: ...", and name the field and scenario that refer
// to it. Load does not read them, so that a scenario can be checked before
// its files exist.
func (sc *Scenario) CheckFiles() error {
	return sc.checkFiles(func(string) bool { return true })
}

// CheckTaskFiles is CheckFiles for the graph files of task.path only: what
// an environment, which never reads policy.file unless it plays the
// variant's policy, reads.
func (sc *Scenario) CheckTaskFiles() error {
	return sc.checkFiles(func(field string) bool { return strings.HasPrefix(field, "task.") })
}

// checkFiles is CheckFiles for the fields that keep accepts.
func (sc *Scenario) checkFiles(keep func(field string) bool) error {
	var errs []error
	seen := map[string]bool{}
	for i := range sc.Variants {
		v := &sc.Variants[i]
		for _, ref := range fileRefs(&v.Spec) {
			// A file is read once for each way of reading it: a graph's
			// checks depend on its family's fields, which variants set.
			if seen[ref.path+"\x00"+ref.how] || !keep(ref.field) {
				continue
			}
			seen[ref.path+"\x00"+ref.how] = true
			if err := ref.load(ref.path); err != nil {
				where := ref.field + " of " + sc.fieldAt(i, ref.field)
				if len(sc.Variants) > 1 {
					where = fmt.Sprintf("%s (variant %q)", where, v.Name)
				}
				errs = append(errs, fmt.Errorf("%w (the %s)", err, where))
			}
		}
	}
	return errors.Join(errs...)
}

// fieldAt returns where variant i's field was written: "FILE:LINE:COL",
// the --set flag that gave it, or the scenario's source.
func (sc *Scenario) fieldAt(i int, field string) string {
	if i >= len(sc.fileAt) {
		return sc.Source
	}
	return sc.placeOf(sc.fileAt[i][field])
}

// FigureAt returns where Figures[i] was written: "FILE:LINE:COL", the
// --set flag that gave it, or the scenario's source.
func (sc *Scenario) FigureAt(i int) string {
	if i >= len(sc.figureAt) {
		return sc.Source
	}
	return sc.placeOf(sc.figureAt[i])
}

// placeOf formats a place that where found, or the scenario's source for
// none.
func (sc *Scenario) placeOf(e *Error) string {
	switch {
	case e == nil:
		return sc.Source
	case e.Line == 0:
		return e.Source
	}
	return fmt.Sprintf("%s:%d:%d", e.Source, e.Line, e.Column)
}

// CheckTraces returns an error for a path of the base's replay.traces
// that names nothing, which says where the path was written: a replay or
// a sweep of command replay reads them only when its work starts, and
// the bare error of the operating system named neither the field nor
// the scenario (a sweep's directory was left with no trial done). What
// the files hold is read, and its errors named, by the replay.
func (sc *Scenario) CheckTraces() error {
	for i, path := range sc.Base.Replay.Traces {
		if _, err := os.Stat(path); err != nil {
			at := sc.Source
			if i < len(sc.tracesAt) {
				at = sc.placeOf(sc.tracesAt[i])
			}
			return fmt.Errorf("%w (replay.traces[%d] of %s)", err, i, at)
		}
	}
	return nil
}

// A fileRef is a field of a spec that names a file: the field's path, the
// file's path and what reads it; how tells apart the ways load reads it
// (for a graph, the family's fields that LoadFor checks), so that a file
// read one way is not read that way again.
type fileRef struct {
	field, path, how string
	load             func(string) error
}

// fileRefs returns the fields of spec that name a file: the task.path of
// every graph-file family (components too), and policy.file.
func fileRefs(spec *Spec) []fileRef {
	var refs []fileRef
	var visit func(prefix string, f *task.Family)
	visit = func(prefix string, f *task.Family) {
		if f.Shape == task.ShapeFile && f.Path != "" {
			// Which of the family's fields the file leaves to it (work
			// where it gives none, fields every node gives itself)
			// takes reading the file: workProblems and the inert rules
			// cannot tell.
			load := func(path string) error {
				_, err := task.LoadFor(path, prefix, f)
				return err
			}
			how := fmt.Sprint(prefix, !f.Work.IsZero(), !f.OutputTokens.IsZero(), !f.Difficulty.IsZero(), !f.Coupling.IsZero(), f.Loop != 0)
			refs = append(refs, fileRef{prefix + ".path", f.Path, how, load})
		}
		for k := range f.Components {
			visit(fmt.Sprintf("%s.components[%d]", prefix, k), &f.Components[k].Family)
		}
	}
	visit("task", &spec.Task)
	if spec.Policy.File != "" {
		refs = append(refs, fileRef{"policy.file", spec.Policy.File, "", loadPolicy})
	}
	return refs
}

func loadPolicy(path string) error {
	f, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = policy.Load(f, path)
	return err
}

// InputDigest returns "sha256:<hex>" of the contents of the files that
// specs (sc's variants, or the trials of its sweep) read: the graphs of
// task.path, the policies of policy.file and the traces of replay.traces (a
// folder's .json and .jsonl files, which is what replay reads), each under
// its path relative to the scenario's folder; "" when they read none.
//
// The resolved scenario, and so Hash, holds a file's path, not what it
// holds: a training or sweep records this digest beside the hash, so that
// resuming, sharding or merging it after one of its files changed is
// refused rather than mixing results of the old file and the new.
func (sc *Scenario) InputDigest(specs ...*Spec) (string, error) {
	dir := scenarioDir(sc.Source)
	sums := map[string]string{} // the path relative to dir → the content's SHA-256
	add := func(path string) error {
		key := filepath.ToSlash(path)
		if dir != "" {
			if rel, err := filepath.Rel(dir, path); err == nil {
				key = filepath.ToSlash(rel)
			}
		}
		if _, done := sums[key]; done {
			return nil
		}
		// Only a regular file is read: a FIFO would wait for a writer.
		if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (%v)", path, fi.Mode().Type())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		sums[key] = hex.EncodeToString(sum[:])
		return nil
	}
	for _, spec := range specs {
		for _, ref := range fileRefs(spec) {
			if err := add(ref.path); err != nil {
				return "", fmt.Errorf("the %s: %w", ref.field, err)
			}
		}
		for _, p := range spec.Replay.Traces {
			err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					return err
				case path == p && !d.IsDir():
					return add(path) // a file named is read whatever its extension
				case !d.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonl")):
					return add(path)
				}
				return nil
			})
			if err != nil {
				return "", fmt.Errorf("the replay.traces: %w", err)
			}
		}
	}
	if len(sums) == 0 {
		return "", nil
	}
	h := sha256.New()
	for _, key := range slices.Sorted(maps.Keys(sums)) {
		fmt.Fprintf(h, "%s\x00%s\n", key, sums[key])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// openRegular opens a policy file, refusing what is not a regular file
// before opening it: opening a FIFO waits for a writer, and a device may
// never end.
func openRegular(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a policy file", path)
		}
		return nil, fmt.Errorf("%s is not a regular file (%v): want a policy file", path, fi.Mode().Type())
	}
	return os.Open(path)
}
