package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/swarmsim/swarmsim/internal/spelling"
)

// The library: scenario files embedded in the binary, one per name.
//
//go:embed library/*.yaml
var libraryFS embed.FS

// Entry describes one embedded scenario.
type Entry struct {
	Name        string
	Description string
}

var library struct {
	once    sync.Once
	entries []Entry
}

// List returns the embedded scenarios, sorted by name. An embedded file
// that does not load (a bug the tests catch) is listed with its error as
// the description.
func List() []Entry {
	library.once.Do(func() {
		files, _ := fs.Glob(libraryFS, "library/*.yaml")
		sort.Strings(files)
		for _, f := range files {
			name := strings.TrimSuffix(path.Base(f), ".yaml")
			e := Entry{Name: name}
			if sc, err := loadEmbedded(name, nil); err != nil {
				e.Description = "error: " + err.Error()
			} else {
				e.Description = sc.Description
			}
			library.entries = append(library.entries, e)
		}
	})
	return append([]Entry(nil), library.entries...)
}

// Names returns the names of the embedded scenarios, sorted.
func Names() []string {
	entries := List()
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	return names
}

// Info returns the description of the embedded scenario name.
func Info(name string) (description string, ok bool) {
	for _, e := range List() {
		if e.Name == name {
			return e.Description, true
		}
	}
	return "", false
}

// Embedded returns the source text of the embedded scenario name.
func Embedded(name string) ([]byte, bool) {
	if !validName(name) {
		return nil, false
	}
	data, err := libraryFS.ReadFile("library/" + name + ".yaml")
	return data, err == nil
}

func loadEmbedded(name string, sets []string) (*Scenario, error) {
	data, ok := Embedded(name)
	if !ok {
		return nil, fmt.Errorf("no embedded scenario %q", name)
	}
	return Parse(data, "embedded:"+name, sets)
}

// Load loads a scenario by name from the library, or from a file. An
// argument that has no path separator and no .yaml/.yml extension names an
// embedded scenario when one has that name; anything else is a file path.
// sets are overrides "PATH=VALUE" applied to the base before the variants,
// such as "collective.agents=8", "episodes=50" or "task.work=exp(5m)":
// PATH is a field path (keys separated by dots, list entries by index, as
// in "task.components[0].weight"), and VALUE is written as in the file
// (strings, durations and distributions need no quotes).
func Load(nameOrPath string, sets []string) (*Scenario, error) {
	if !looksLikePath(nameOrPath) {
		if _, ok := Embedded(nameOrPath); ok {
			return loadEmbedded(nameOrPath, sets)
		}
	}
	data, err := readFile(nameOrPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !looksLikePath(nameOrPath) {
			return nil, fmt.Errorf("no scenario %q: not an embedded scenario (embedded: %s) and no such file%s", nameOrPath, strings.Join(Names(), ", "), spelling.DidYouMean(nameOrPath, Names()))
		}
		// "tiny.yaml" for the embedded tiny: the name alone loads it.
		base := strings.TrimSuffix(filepath.Base(nameOrPath), filepath.Ext(nameOrPath))
		if _, ok := Embedded(base); ok && errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w; the embedded scenario %s is named without a path or extension: %q", err, base, base)
		}
		return nil, err
	}
	return Parse(data, nameOrPath, sets)
}

// maxFileBytes bounds a scenario file: the largest embedded one is a few
// kilobytes, and a path such as /dev/zero would otherwise be read until
// memory runs out.
const maxFileBytes = 16 << 20

// readFile reads a scenario file. It refuses what is not a regular file
// before opening it: opening a FIFO waits for a writer, and a device may
// never end.
func readFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		pe.Op = "open" // what the user asked for: "stat" would be ours
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a scenario: want a YAML file or the name of an embedded scenario (simulate list)", path)
		}
		return nil, fmt.Errorf("%s is not a regular file (%v): want a YAML file or the name of an embedded scenario (simulate list)", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: not a scenario file", path, maxFileBytes>>20)
	}
	return data, nil
}

func looksLikePath(s string) bool {
	ext := filepath.Ext(s)
	return strings.ContainsAny(s, `/\`) || strings.ContainsRune(s, filepath.Separator) || ext == ".yaml" || ext == ".yml"
}
