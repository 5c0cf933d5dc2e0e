package experiment

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarmsim/swarmsim/rundir"
)

// Units is how work resumes, training and sweeps alike: the units of
// work a directory holds, one file per unit in a subdirectory, named by
// the unit's key and written atomically (rundir.WriteFile), so that work
// stopped by an interrupt or a kill finds every unit whole or not at all,
// and continues from those it finds. A training keeps each job's latest
// checkpoint (the key names the variant and seed), a sweep each finished
// trial's record (the key is the trial's ID, a hash of its parameters).
// The directory's claim (rundir.Claim) says whose units they are.
type Units struct {
	Dir string // the work's directory
	Sub string // the units' subdirectory of Dir
	Ext string // the extension of a unit's file, such as ".json"
}

// Path returns the path of the unit key.
func (u Units) Path(key string) string { return filepath.Join(u.Dir, u.Sub, key+u.Ext) }

// Put writes the unit key atomically, replacing the one there.
func (u Units) Put(key string, data []byte) error { return rundir.WriteFile(u.Path(key), data) }

// Get reads the unit key. The error wraps fs.ErrNotExist when there is
// none.
func (u Units) Get(key string) ([]byte, error) { return os.ReadFile(u.Path(key)) }

// Keys returns the keys of the units held, sorted: the names of the files
// with the extension, never a directory nor the hidden temporary files a
// killed writer leaves behind. A missing subdirectory holds none.
func (u Units) Keys() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(u.Dir, u.Sub))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, e := range entries {
		key, ok := strings.CutSuffix(e.Name(), u.Ext)
		if ok && !e.IsDir() && !strings.HasPrefix(key, ".") {
			keys = append(keys, key)
		}
	}
	return keys, nil
}
