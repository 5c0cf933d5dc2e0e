package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// A Manifest describes a complete directory: what was run, with which
// build, and which files it wrote. It holds no timestamps, host names or
// absolute paths of the binary, so that the same scenario and seed give
// the same manifest, byte for byte.
type Manifest struct {
	// Kind is what wrote the directory: KindRun, KindTrain, KindSweep,
	// KindFit, KindCompare or KindReplay.
	Kind        Kind   `json:"kind"`
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"`
	Hash        string `json:"hash"`
	Seed        uint64 `json:"seed"`
	Episodes    int    `json:"episodes,omitempty"`
	Seeds       int    `json:"seeds,omitempty"`
	// MissingTrials counts the trials of a sweep that its tables lack:
	// those of the other shards in a shard's directory, and those left
	// out of a partial merge.
	MissingTrials   int      `json:"missing_trials,omitempty"`
	Variants        []string `json:"variants"`
	SwarmsimVersion string   `json:"swarmsim_version"`
	GoVersion       string   `json:"go_version"`
	Command         []string `json:"command"`
	Files           []string `json:"files"`
	// Resolved is the scenario as run: defaults filled in and --set
	// applied, in canonical YAML.
	Resolved string `json:"resolved"`
}

// Kind is the kind of work a directory holds.
type Kind string

// The kinds of directories.
const (
	KindRun   Kind = "run"   // simulate run: episodes.csv, summary.csv
	KindTrain Kind = "train" // simulate train: iterations.csv, summary.csv
	KindSweep Kind = "sweep" // simulate sweep or merge: trials.csv
	KindFit   Kind = "fit"   // simulate fit: calls.csv, fit.csv, scenario.yaml
	// KindCompare is simulate compare: compare.csv.
	KindCompare Kind = "compare"
	// KindReplay is simulate replay: replay.csv, summary.csv.
	KindReplay Kind = "replay"
)

// ErrIncomplete is wrapped by ReadManifest's error for a directory
// without a manifest: work that never finished, or no output directory
// at all.
var ErrIncomplete = errors.New("no " + ManifestName + ": not a complete run directory")

// NotDirectory returns an error saying what path is when it is missing or
// a file, for a command that wants a directory (want says which), and nil
// otherwise.
func NotDirectory(path, want string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist: want %s", path, want)
	case err == nil && !fi.IsDir():
		return fmt.Errorf("%s is a file, not a directory: want %s", path, want)
	}
	return nil
}

// ReadManifest reads the manifest of dir. A manifest without a kind
// (written before kinds were recorded) gets one from the files it lists.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if err != nil {
		// Say what dir is rather than that a file in it does not open.
		if nerr := NotDirectory(dir, "a directory that simulate wrote"); nerr != nil {
			return nil, nerr
		}
		if errors.Is(err, fs.ErrNotExist) {
			if _, perr := os.Stat(filepath.Join(dir, PreviousDir, ManifestName)); perr == nil {
				return nil, fmt.Errorf("%s: %w: a forced rerun, running or killed, holds its old result aside in %s (put back if the rerun fails; after a kill, by the next command that writes there, but for the same training resumed, which replaces it)", dir, ErrIncomplete, PreviousDir)
			}
			return nil, fmt.Errorf("%s: %w", dir, ErrIncomplete)
		}
		return nil, err
	}
	return parseManifest(path, b)
}

// parseManifest reads the manifest data, read from path, which its errors
// start with.
func parseManifest(path string, data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Kind == "" {
		m.Kind = kindOf(m.Files)
	}
	switch m.Kind {
	case KindRun, KindTrain, KindSweep, KindFit, KindCompare, KindReplay:
	default:
		return nil, fmt.Errorf("%s: kind %q: want run, train, sweep, fit, compare or replay", path, m.Kind)
	}
	return &m, nil
}

// kindOf infers a directory's kind from its files.
func kindOf(files []string) Kind {
	for _, f := range files {
		switch f {
		case "episodes.csv":
			return KindRun
		case "iterations.csv":
			return KindTrain
		case "trials.csv":
			return KindSweep
		case "fit.csv":
			return KindFit
		case "compare.csv":
			return KindCompare
		}
	}
	return ""
}

// Has reports whether the manifest lists the file name.
func (m *Manifest) Has(name string) bool {
	for _, f := range m.Files {
		if f == name {
			return true
		}
	}
	return false
}

// shortHash is the length of a hash in messages: "sha256:" and 12 hex
// digits, enough to tell two scenarios or sweeps apart.
const shortHash = len("sha256:") + 12

// ShortHash abbreviates a "sha256:..." hash (a manifest's, a sweep's) for
// messages: its first 19 bytes (fewer where the 19th is inside a
// character), followed by cut where it was longer.
// The sweep's messages mark the cut with "…", the training's resume
// messages with nothing.
func ShortHash(hash, cut string) string {
	if len(hash) <= shortHash {
		return hash
	}
	// The hash of a damaged file need not be hex, and a character cut in
	// two would leave the message invalid UTF-8.
	n := shortHash
	for n > 0 && !utf8.RuneStart(hash[n]) {
		n--
	}
	return hash[:n] + cut
}
