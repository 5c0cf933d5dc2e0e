package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/swarmsim/swarmsim/internal/atomicfile"
	"github.com/swarmsim/swarmsim/scenarios"
)

// manifestName is the file whose presence marks a complete run directory.
// It is written last.
const manifestName = "manifest.json"

// A runDir is the output directory of a run. Every file is written
// atomically (a temporary file in the same directory, then a rename), the
// manifest last, so that a directory with a manifest is complete and a
// file under its final name is never truncated. If the run fails, abort
// removes what the run wrote, so nothing is left that looks like a result.
type runDir struct {
	path string
	// created lists directories made by this run, outermost first.
	created []string
	// files lists the files written so far, relative to path, in the
	// order written, with slashes.
	files []string
}

// createRunDir prepares dir for a new run. It refuses a directory that
// holds a complete run (a manifest) unless force is set; with force, it
// first removes the old manifest, then the files the old manifest lists,
// so that the directory never mixes a stale manifest with new results.
func createRunDir(dir string, force bool) (*runDir, error) {
	d := &runDir{path: dir}
	old := filepath.Join(dir, manifestName)
	if _, err := os.Stat(old); err == nil {
		if !force {
			return nil, fmt.Errorf("%s holds a complete run (%s); use --force to overwrite it, or --out to choose another directory", dir, manifestName)
		}
		if err := d.removeOld(old); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := d.mkdirAll(dir); err != nil {
		return nil, err
	}
	return d, nil
}

// removeOld removes the manifest at path and the files it lists.
func (d *runDir) removeOld(path string) error {
	var m struct {
		Files []string `json:"files"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// A manifest that does not parse lists nothing we may remove.
	_ = json.Unmarshal(b, &m)
	if err := os.Remove(path); err != nil {
		return err
	}
	for _, f := range m.Files {
		if !filepath.IsLocal(filepath.FromSlash(f)) || f == manifestName {
			continue
		}
		if err := os.Remove(filepath.Join(d.path, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// mkdirAll makes dir and its missing parents, remembering those it made.
func (d *runDir) mkdirAll(dir string) error {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	slices.Reverse(missing)
	d.created = append(d.created, missing...)
	return nil
}

// join returns the path of name (slash-separated, relative to d).
func (d *runDir) join(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

// subdir makes the subdirectory name of d.
func (d *runDir) subdir(name string) error { return d.mkdirAll(d.join(name)) }

// write writes data to the file name in d atomically and records it.
func (d *runDir) write(name string, data []byte) error {
	if err := atomicfile.Write(d.join(name), data); err != nil {
		return err
	}
	d.record(name)
	return nil
}

// record notes that the file name was written into d (by another writer
// that writes atomically, such as plots.Save).
func (d *runDir) record(name string) {
	if !slices.Contains(d.files, name) {
		d.files = append(d.files, name)
	}
}

// commit writes the manifest, the last file of a run.
func (d *runDir) commit(m *manifest) error {
	m.Files = slices.Clone(d.files)
	slices.Sort(m.Files)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(d.join(manifestName), append(b, '\n'))
}

// abort removes every file the run wrote, then the directories it made
// if they are empty. It is best effort: the error being reported is the
// one that matters.
func (d *runDir) abort() {
	for _, f := range d.files {
		os.Remove(d.join(f))
	}
	d.files = nil
	for _, dir := range slices.Backward(d.created) {
		os.Remove(dir) // fails, as it should, on a directory that is not empty
	}
}

// A manifest describes a complete run: what was run, with which build,
// and which files it wrote. It holds no timestamps, host names or
// absolute paths of the binary, so that the same scenario and seed give
// the same manifest, byte for byte.
type manifest struct {
	Scenario        string   `json:"scenario"`
	Description     string   `json:"description,omitempty"`
	Source          string   `json:"source"`
	Hash            string   `json:"hash"`
	Seed            uint64   `json:"seed"`
	Episodes        int      `json:"episodes,omitempty"`
	Seeds           int      `json:"seeds,omitempty"`
	Variants        []string `json:"variants"`
	SwarmsimVersion string   `json:"swarmsim_version"`
	GoVersion       string   `json:"go_version"`
	Command         []string `json:"command"`
	Files           []string `json:"files"`
	// Resolved is the scenario as run: defaults filled in and --set
	// applied, in canonical YAML.
	Resolved string `json:"resolved"`
}

// version returns the version of the main module simulate was built
// from, or "devel" for a build from a working tree.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
	}
	return "devel"
}

// goVersion returns the Go release simulate was built with.
func goVersion() string { return runtime.Version() }

// csvBytes renders rows under header as CSV (RFC 4180, "\n" line ends).
func csvBytes(header []string, rows [][]string) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(header); err != nil {
		return nil, err
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// startRun settles the seed of a loaded scenario (the flag's, else the
// scenario's) and opens the run directory: out, or by default
// out/NAME<suffix>-seedS.
func startRun(sc *scenarios.Scenario, seedFlag seedFlag, out, suffix string, force bool) (uint64, *runDir, error) {
	seed := sc.Seed
	if seedFlag.set {
		seed = seedFlag.v
	}
	if out == "" {
		out = filepath.Join("out", fmt.Sprintf("%s%s-seed%d", fileName(sc.Name), suffix, seed))
	}
	dir, err := createRunDir(out, force)
	return seed, dir, err
}
