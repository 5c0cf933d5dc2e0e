package experiment_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment"
)

// TestUnits: units are written whole and read back by key; listing skips
// what is not a unit (directories, other extensions, the hidden temporary
// files a killed writer leaves) and a missing subdirectory holds none.
func TestUnits(t *testing.T) {
	u := experiment.Units{Dir: t.TempDir(), Sub: "parts", Ext: ".json"}
	keys, err := u.Keys()
	require.NoError(t, err)
	assert.Empty(t, keys, "no subdirectory yet")
	_, err = u.Get("a")
	assert.ErrorIs(t, err, fs.ErrNotExist)

	for _, k := range []string{"b", "a", "c"} {
		require.NoError(t, u.Put(k, []byte("unit "+k)))
	}
	require.NoError(t, u.Put("a", []byte("again")), "a unit is replaced")
	sub := filepath.Join(u.Dir, u.Sub)
	for _, junk := range []string{".a.json.tmp123", ".hidden.json", "notes.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(sub, junk), nil, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(sub, "d.json"), 0o755))

	keys, err = u.Keys()
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, keys)
	got, err := u.Get("a")
	require.NoError(t, err)
	assert.Equal(t, "again", string(got))
	assert.Equal(t, filepath.Join(sub, "b.json"), u.Path("b"))
}
