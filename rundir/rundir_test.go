package rundir_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/internal/atomicfile"
	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/rundir"
)

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

func TestCreateCommitOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b")
	d, err := rundir.Create(path, false)
	require.NoError(t, err)
	require.NoError(t, d.Write("episodes.csv", []byte("variant,x\nv,1\n")))
	require.NoError(t, d.Write("charts/c.csv", []byte("x\n")))
	require.NoError(t, d.Commit(&rundir.Manifest{Scenario: "s", Variants: []string{"v"}}))

	r, err := rundir.Open(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"charts/c.csv", "episodes.csv"}, r.Manifest.Files)
	assert.Equal(t, rundir.KindRun, r.Manifest.Kind, "kind inferred from the files")
	tab, err := r.Table("episodes.csv")
	require.NoError(t, err)
	col, err := tab.Col("x")
	require.NoError(t, err)
	v, err := tab.Float(0, col)
	require.NoError(t, err)
	assert.Equal(t, 1.0, v)
	// -1, as slices.Index gives: callers that drop the error (i, _ := Col) must not get a real column.
	c, err := tab.Col("y")
	assert.ErrorContains(t, err, `no column "y"`)
	assert.Equal(t, -1, c)
	_, err = r.Table("summary.csv")
	assert.ErrorContains(t, err, "has no summary.csv")

	_, err = rundir.Create(path, false)
	assert.ErrorContains(t, err, "holds a complete run")

	// Force sets the old result aside, file by file, and leaves other files.
	require.NoError(t, os.WriteFile(filepath.Join(path, "notes.txt"), nil, 0o644))
	d, err = rundir.Create(path, true)
	require.NoError(t, err)
	assert.False(t, exists(t, filepath.Join(path, rundir.ManifestName)))
	assert.False(t, exists(t, filepath.Join(path, "episodes.csv")))
	assert.True(t, exists(t, filepath.Join(path, "notes.txt")))
	_, err = rundir.Open(path)
	assert.ErrorIs(t, err, rundir.ErrIncomplete)

	// The new run writes into the cleared directory; its manifest lists only its own files.
	require.NotNil(t, d)
	require.NoError(t, d.Write("iterations.csv", []byte("x\n")))
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain}))
	r, err = rundir.Open(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"iterations.csv"}, r.Manifest.Files)
	assert.False(t, exists(t, filepath.Join(path, "episodes.csv")), "the old result goes at Commit")
	assert.False(t, exists(t, filepath.Join(path, rundir.PreviousDir)))
}

func TestAbortKeepsParts(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "new", "run")
	d, err := rundir.Create(path, false)
	require.NoError(t, err)
	require.NoError(t, d.Write("iterations.csv", []byte("x\n")))
	require.NoError(t, rundir.WriteFile(d.Join("checkpoints/v-seed1.json"), []byte("{}")))
	d.Abort()
	assert.False(t, exists(t, filepath.Join(path, "iterations.csv")))
	assert.True(t, exists(t, filepath.Join(path, "checkpoints", "v-seed1.json")))

	// Without parts, Abort removes the directories it made.
	path2 := filepath.Join(root, "other", "run")
	d2, err := rundir.Create(path2, false)
	require.NoError(t, err)
	require.NoError(t, d2.Write("x.csv", nil))
	d2.Abort()
	assert.False(t, exists(t, filepath.Join(root, "other")))
}

func TestRemoveAndRecord(t *testing.T) {
	d, err := rundir.Create(t.TempDir(), false)
	require.NoError(t, err)
	require.NoError(t, d.Write("a.csv", nil))
	require.NoError(t, d.Write("b.csv", nil))
	require.NoError(t, rundir.WriteFile(d.Join("parts/p.json"), nil))
	d.Record("parts/p.json", true)
	d.Record("a.csv", false) // twice is once
	assert.Equal(t, []string{"a.csv", "b.csv", "parts/p.json"}, d.Files())
	require.NoError(t, d.Remove("a.csv"))
	require.NoError(t, d.Remove("missing.csv"))
	assert.Equal(t, []string{"b.csv", "parts/p.json"}, d.Files())
	assert.False(t, exists(t, d.Join("a.csv")))

	// Removing one file leaves the others for Abort to remove.
	d.Abort()
	assert.False(t, exists(t, d.Join("b.csv")))
	assert.True(t, exists(t, d.Join("parts/p.json")))
}

// TestCommitSyncsWhatWriteWrote checks that Commit syncs every file Write
// wrote and did not Remove, and writes no manifest when one cannot be
// synced: a file taken away behind the Dir's back is the error that names
// it.
func TestCommitSyncsWhatWriteWrote(t *testing.T) {
	d, err := rundir.Create(t.TempDir(), false)
	require.NoError(t, err)
	require.NoError(t, d.Write("a.csv", []byte("a")))
	require.NoError(t, d.Write("sub/b.csv", []byte("b")))
	require.NoError(t, d.Write("gone.csv", nil))
	require.NoError(t, d.Remove("gone.csv"))
	require.NoError(t, os.Remove(d.Join("sub/b.csv")))
	err = d.Commit(&rundir.Manifest{Kind: rundir.KindTrain})
	require.ErrorContains(t, err, "syncing "+d.Join("sub/b.csv"))
	assert.NotContains(t, err.Error(), "gone.csv", "a removed file is not synced")
	assert.False(t, exists(t, d.Join(rundir.ManifestName)), "no manifest over a file that did not sync")

	require.NoError(t, d.Write("sub/b.csv", []byte("b")))
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain}))
	m, err := rundir.ReadManifest(d.Path())
	require.NoError(t, err)
	assert.Equal(t, []string{"a.csv", "sub/b.csv"}, m.Files)
}

// TestCommitListsWhatItSynced writes a file while Commit syncs the
// others: the manifest leaves it out, as it was not synced, and the next
// Commit syncs it and lists it.
func TestCommitListsWhatItSynced(t *testing.T) {
	d, err := rundir.Create(t.TempDir(), false)
	require.NoError(t, err)
	require.NoError(t, d.Write("a.csv", []byte("a")))
	var synced [][]string
	rundir.SetSyncFiles(t, func(paths []string) error {
		synced = append(synced, paths)
		if len(synced) == 1 {
			require.NoError(t, d.Write("late.csv", []byte("late")))
		}
		return atomicfile.Sync(paths)
	})
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain}))
	m, err := rundir.ReadManifest(d.Path())
	require.NoError(t, err)
	assert.Equal(t, []string{"a.csv"}, m.Files)
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain}))
	m, err = rundir.ReadManifest(d.Path())
	require.NoError(t, err)
	assert.Equal(t, []string{"a.csv", "late.csv"}, m.Files)
	assert.Equal(t, [][]string{{d.Join("a.csv")}, {d.Join("late.csv")}}, synced)
}

func claim(id string) *rundir.Claim {
	return &rundir.Claim{
		File: "plan.json",
		Data: []byte(id),
		Same: func(old []byte) error {
			if string(old) == id {
				return nil
			}
			return fmt.Errorf("plan %s, not %s", old, id)
		},
		Clear: []string{"parts", "shard-*"},
		Fresh: "--anew",
	}
}

func TestClaim(t *testing.T) {
	path := t.TempDir()
	d, err := claim("A").Open(path, false)
	require.NoError(t, err)
	require.NoError(t, rundir.WriteFile(d.Join("parts/1.json"), []byte("1")))
	require.NoError(t, os.MkdirAll(filepath.Join(path, "shard-0-of-2"), 0o755))
	require.NoError(t, d.Write("table.csv", nil))
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindSweep}))

	// The same work resumes: its parts are there.
	_, err = claim("A").Open(path, false)
	require.NoError(t, err)
	assert.True(t, exists(t, filepath.Join(path, "parts", "1.json")))

	// Other work is refused, and nothing is touched.
	_, err = claim("B").Open(path, false)
	assert.ErrorIs(t, err, rundir.ErrOtherWork)
	assert.ErrorContains(t, err, "plan A, not B; use --anew to discard it")
	assert.True(t, exists(t, filepath.Join(path, "parts", "1.json")))

	// Fresh clears the identity, the result and the parts, then claims.
	require.NoError(t, os.WriteFile(filepath.Join(path, "notes.txt"), nil, 0o644))
	_, err = claim("B").Open(path, true)
	require.NoError(t, err)
	for _, gone := range []string{"parts", "shard-0-of-2", "table.csv", rundir.ManifestName} {
		assert.False(t, exists(t, filepath.Join(path, gone)), gone)
	}
	assert.True(t, exists(t, filepath.Join(path, "notes.txt")))
	b, err := os.ReadFile(filepath.Join(path, "plan.json"))
	require.NoError(t, err)
	assert.Equal(t, "B", string(b))
}

// TestClaimRace: two works that claim one empty directory at once (two
// sweeps started together on one --out): the first identity file stays,
// and the other work is refused as if it had come later, or resumes when
// it is the same work (shards of one sweep).
func TestClaimRace(t *testing.T) {
	for _, tc := range []struct {
		meanwhile, id string
		err           error
	}{
		{meanwhile: "A", id: "B", err: rundir.ErrOtherWork},
		{meanwhile: "A", id: "A"},
	} {
		path := filepath.Join(t.TempDir(), "d")
		rundir.SetBeforeClaim(t, func() {
			require.NoError(t, os.WriteFile(filepath.Join(path, "plan.json"), []byte(tc.meanwhile), 0o644))
		})
		_, err := claim(tc.id).Open(path, false)
		if tc.err != nil {
			assert.ErrorIs(t, err, tc.err, "%+v", tc)
			assert.ErrorContains(t, err, "plan "+tc.meanwhile+", not "+tc.id)
		} else {
			assert.NoError(t, err, "%+v", tc)
		}
		b, err := os.ReadFile(filepath.Join(path, "plan.json"))
		require.NoError(t, err)
		assert.Equal(t, tc.meanwhile, string(b), "the first claim stays")
		entries, err := os.ReadDir(path)
		require.NoError(t, err)
		assert.Len(t, entries, 1, "no temporary file is left")
	}
}

// TestAbortSoleClaim: a failed Sole work that wrote no part leaves no
// directory behind, not even its identity file, which would mark it as
// resumable with nothing to resume; one with a part, a resumed one and a
// shared one (a sweep's shards) keep it.
func TestAbortSoleClaim(t *testing.T) {
	sole := func() *rundir.Claim { c := claim("A"); c.Sole = true; return c }
	for _, tc := range []struct {
		name    string
		claim   func() *rundir.Claim
		part    string // written under the claim before Abort, if not ""
		resumed bool   // the identity file is there before Open
		kept    bool
	}{
		{"sole, no part", sole, "", false, false},
		{"sole, an empty part directory", sole, "parts/", false, false},
		{"sole, a part", sole, "parts/1.json", false, true},
		{"sole, a part matched by a pattern", sole, "shard-0-of-2/x", false, true},
		{"sole, resumed", sole, "", true, true},
		{"shared, no part", func() *rundir.Claim { return claim("A") }, "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out", "w")
			if tc.resumed {
				require.NoError(t, rundir.WriteFile(filepath.Join(path, "plan.json"), []byte("A")))
			}
			d, err := tc.claim().Open(path, false)
			require.NoError(t, err)
			switch {
			case strings.HasSuffix(tc.part, "/"):
				require.NoError(t, os.MkdirAll(d.Join(tc.part), 0o755))
			case tc.part != "":
				require.NoError(t, rundir.WriteFile(d.Join(tc.part), []byte("1")))
			}
			d.Abort()
			assert.Equal(t, tc.kept, exists(t, filepath.Join(path, "plan.json")))
			if !tc.kept && tc.part == "" {
				assert.False(t, exists(t, filepath.Dir(path)), "the directories Open made are removed")
			}
		})
	}
}

// TestSoleClaimBusy: while a Sole claim (a training) is open, another
// Open of its directory, to resume it or to start it afresh, is refused
// with ErrBusy and changes nothing: else one training's Abort would
// remove the tables the other is about to commit. Commit and Abort free
// the directory, as a process's end does.
func TestSoleClaimBusy(t *testing.T) {
	sole := func() *rundir.Claim { c := claim("A"); c.Sole = true; return c }
	for _, tc := range []struct {
		name     string
		existing bool // the directory is there before the first Open
		fresh    bool // the second Open's
		end      func(d *rundir.Dir)
	}{
		{"new directory, resume", false, false, func(d *rundir.Dir) { d.Abort() }},
		{"new directory, fresh", false, true, func(d *rundir.Dir) { d.Abort() }},
		{"existing directory, resume", true, false, func(d *rundir.Dir) { d.Abort() }},
		{"existing directory, fresh", true, true, func(d *rundir.Dir) { d.Abort() }},
		{"committed", true, false, func(d *rundir.Dir) {
			require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindTrain}))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "train")
			if tc.existing {
				require.NoError(t, os.Mkdir(path, 0o755))
			}
			d, err := sole().Open(path, false)
			require.NoError(t, err)
			require.NoError(t, rundir.WriteFile(d.Join("parts/1.json"), []byte("1")))
			require.NoError(t, d.Write("table.csv", []byte("x")))
			_, err = sole().Open(path, tc.fresh)
			assert.ErrorIs(t, err, rundir.ErrBusy)
			assert.ErrorContains(t, err, "wait for it to end, or choose another --out")
			assert.True(t, exists(t, filepath.Join(path, "parts", "1.json")), "the live claim's parts stay")
			assert.True(t, exists(t, filepath.Join(path, "table.csv")), "the live claim's tables stay")
			tc.end(d)
			d, err = sole().Open(path, tc.fresh)
			require.NoError(t, err, "free once the first has ended")
			d.Abort()
		})
	}
}

func TestClaimRefusesACompleteRun(t *testing.T) {
	path := t.TempDir()
	d, err := rundir.Create(path, false)
	require.NoError(t, err)
	require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun}))
	for _, fresh := range []bool{false, true} {
		_, err := claim("A").Open(path, fresh)
		assert.ErrorContains(t, err, "holds a complete run without plan.json")
	}
}

func TestReadManifestErrors(t *testing.T) {
	for _, tc := range []struct{ name, manifest, want string }{
		{"not json", "{", "manifest.json: unexpected end"},
		{"bad kind", `{"kind": "walk"}`, `kind "walk": want run, train, sweep, fit, compare or replay`},
		{"no kind, no tables", `{"files": ["x.txt"]}`, `kind "": want run, train, sweep, fit, compare or replay`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, rundir.ManifestName), []byte(tc.manifest), 0o644))
			_, err := rundir.ReadManifest(dir)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestReadManifestOfNoDirectory: a path that is a file, or nothing, is
// said to be one, not reported as a manifest that does not open.
func TestReadManifestOfNoDirectory(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "summary.csv")
	require.NoError(t, os.WriteFile(file, []byte("x\n"), 0o644))
	for _, tc := range []struct{ path, want string }{
		{file, file + " is a file, not a directory: want a directory that simulate wrote"},
		{filepath.Join(root, "missing"), filepath.Join(root, "missing") + " does not exist: want a directory that simulate wrote"},
	} {
		_, err := rundir.ReadManifest(tc.path)
		assert.EqualError(t, err, tc.want)
		assert.NotErrorIs(t, err, rundir.ErrIncomplete)
		_, err = rundir.Open(tc.path)
		assert.EqualError(t, err, tc.want)
	}
}

func TestList(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a", "b/c", "b/c/shard-0-of-2"} {
		d, err := rundir.Create(filepath.Join(root, p), false)
		require.NoError(t, err)
		require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindSweep}))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "incomplete"), 0o755))
	got, err := rundir.List(root)
	require.NoError(t, err)
	want := []string{filepath.Join(root, "a"), filepath.Join(root, "b/c"), filepath.Join(root, "b/c/shard-0-of-2")}
	assert.Equal(t, want, got)

	// Opening the root, which is no run, names the runs below it.
	_, err = rundir.Open(root)
	assert.ErrorIs(t, err, rundir.ErrIncomplete)
	assert.ErrorContains(t, err, "complete directories below it: "+filepath.Join(root, "a")+", ")
	_, err = rundir.Open(filepath.Join(root, "incomplete"))
	assert.NotContains(t, err.Error(), "below it")
}

func TestParseTableErrors(t *testing.T) {
	_, err := rundir.ParseTable("t.csv", nil)
	assert.ErrorContains(t, err, "t.csv: empty")
	_, err = rundir.ParseTable("t.csv", []byte("a,b\n1\n"))
	assert.ErrorContains(t, err, "t.csv")
	tab, err := rundir.ParseTable("t.csv", []byte("a,b\nx,true\n"))
	require.NoError(t, err)
	_, err = tab.Float(0, 0)
	assert.ErrorContains(t, err, `t.csv:2: column a: "x" is not a number`)
	v, err := tab.Bool(0, 1)
	require.NoError(t, err)
	assert.True(t, v)
	_, err = tab.Bool(0, 0)
	assert.ErrorContains(t, err, `t.csv:2: column a: "x" is not true or false`)
}

// TestKeys: the columns that name a tidy summary's rows are those before
// metric, and a training summary's policy column after it where it tells
// rows apart.
func TestKeys(t *testing.T) {
	for _, tt := range []struct {
		header, rows string
		policy       int
		keys         []int
		key          string // of the first row
	}{
		{"variant,metric,iqm", "a,reward,1", -1, []int{0}, "a"},
		{"variant,seed,metric,iqm", "a,3,reward,1", -1, []int{0, 1}, "a 3"},
		{"variant,metric,iqm,interval,policy", "a,reward,1,x,learned\na,reward,2,x,fixed", 4, []int{0, 4}, "a learned"},
		{"variant,metric,iqm,interval,policy", "a,reward,1,x,learned\nb,reward,2,x,learned", 4, []int{0}, "a"},
		{"policy,metric,iqm", "p,reward,1\nq,reward,1", -1, []int{0}, "p"},
		{"metric,iqm", "reward,1", -1, []int{}, ""},
		{"metric,iqm,policy", "reward,1,learned\nreward,2,fixed", 2, []int{2}, "learned"},
	} {
		tab, err := rundir.ParseTable("t.csv", []byte(tt.header+"\n"+tt.rows+"\n"))
		require.NoError(t, err)
		assert.Equal(t, tt.policy, tab.PolicyCol(), tt.header)
		keys, err := tab.Keys()
		require.NoError(t, err, tt.header)
		assert.Equal(t, tt.keys, keys, "%s\n%s", tt.header, tt.rows)
		assert.Equal(t, tt.key, strings.Join(rundir.Key(tab.Rows[0], keys), " "), tt.header)
	}
	tab, err := rundir.ParseTable("t.csv", []byte("variant,iqm\na,1\n"))
	require.NoError(t, err)
	_, err = tab.Keys()
	assert.ErrorContains(t, err, `t.csv: no column "metric"`)
	assert.Equal(t, -1, tab.PolicyCol())
}

func TestClaimEdges(t *testing.T) {
	// Fresh on a directory with parts but no identity (an interrupted
	// start) clears the parts.
	path := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(path, "parts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(path, "parts", "1.json"), nil, 0o644))
	_, err := claim("A").Open(path, true)
	require.NoError(t, err)
	assert.False(t, exists(t, filepath.Join(path, "parts")))
	b, err := os.ReadFile(filepath.Join(path, "plan.json"))
	require.NoError(t, err, "the cleared directory is claimed")
	assert.Equal(t, "A", string(b))

	// An identity that cannot be read is other work, unless fresh.
	path = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(path, "plan.json"), 0o755))
	_, err = claim("A").Open(path, false)
	assert.ErrorIs(t, err, rundir.ErrOtherWork)
	assert.ErrorContains(t, err, "an unreadable plan.json")
}

func TestOpenNamesWhatIsBelow(t *testing.T) {
	root := t.TempDir()
	for i := range 7 {
		d, err := rundir.Create(filepath.Join(root, fmt.Sprintf("run%d", i)), false)
		require.NoError(t, err)
		require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun}))
	}
	deep, err := rundir.Create(filepath.Join(root, "x", "y", "z"), false)
	require.NoError(t, err)
	require.NoError(t, deep.Commit(&rundir.Manifest{Kind: rundir.KindRun}))

	_, err = rundir.Open(root)
	assert.ErrorContains(t, err, filepath.Join(root, "run4")+" and 2 more", "five named, the rest counted; x/y/z is too deep")
	all, err := rundir.List(root)
	require.NoError(t, err)
	assert.Len(t, all, 8, "List goes all the way down")

	tab, err := rundir.ParseTable("t.csv", []byte("a,b\n1,2\n"))
	require.NoError(t, err)
	c, err := tab.Col("a")
	require.NoError(t, err)
	assert.Equal(t, 0, c)
}

// TestOpenNamesFiveBelow: up to five runs below are all named, with no
// count of more.
func TestOpenNamesFiveBelow(t *testing.T) {
	for _, tt := range []struct {
		n    int
		more string
	}{
		{5, ""},
		{6, " and 1 more"},
	} {
		root := t.TempDir()
		var names []string
		for i := range tt.n {
			p := filepath.Join(root, fmt.Sprintf("run%d", i))
			d, err := rundir.Create(p, false)
			require.NoError(t, err)
			require.NoError(t, d.Commit(&rundir.Manifest{Kind: rundir.KindRun}))
			names = append(names, p)
		}
		_, err := rundir.Open(root)
		assert.EqualError(t, err, root+": "+rundir.ErrIncomplete.Error()+"; complete directories below it: "+
			strings.Join(names[:5], ", ")+tt.more, "%d runs", tt.n)
	}
}

// TestOpenStartedWork: a directory that holds files but no manifest (an
// interrupted training: its identity file and checkpoints; or no output
// at all) is named with its first entries and how interrupted work
// finishes; an empty one is only incomplete.
func TestOpenStartedWork(t *testing.T) {
	root := t.TempDir()
	_, err := rundir.Open(root)
	assert.EqualError(t, err, root+": "+rundir.ErrIncomplete.Error())
	require.NoError(t, os.Mkdir(filepath.Join(root, "checkpoints"), 0o755))
	for _, name := range []string{"a", "b", "c"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), nil, 0o644))
	}
	_, err = rundir.Open(root)
	assert.EqualError(t, err, root+": "+rundir.ErrIncomplete.Error()+"; it holds a, b, c, checkpoints/, "+
		"but no manifest.json (an interrupted training or sweep finishes when the command that started it is run again)", "four entries, all named")
	require.NoError(t, os.WriteFile(filepath.Join(root, "train.json"), nil, 0o644))
	_, err = rundir.Open(root)
	assert.ErrorIs(t, err, rundir.ErrIncomplete)
	assert.EqualError(t, err, root+": "+rundir.ErrIncomplete.Error()+"; it holds a, b, c, checkpoints/ and 1 more, "+
		"but no manifest.json (an interrupted training or sweep finishes when the command that started it is run again)")
}

// TestCheckDir: a file standing at the path, or at any folder above it,
// is named before anything is written.
func TestCheckDir(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "summary.csv")
	require.NoError(t, os.WriteFile(file, []byte("x\n"), 0o644))
	for _, tt := range []struct{ path, want string }{
		{root, ""},
		{filepath.Join(root, "new", "run"), ""},
		{file, file + " is a file, not a directory: the results are a directory of files; choose another --out"},
		{filepath.Join(file, "run"), filepath.Join(file, "run") + " cannot be made: " + file + " is a file, not a directory; choose another --out"},
		{filepath.Join(file, "a", "run"), filepath.Join(file, "a", "run") + " cannot be made: " + file + " is a file, not a directory; choose another --out"},
	} {
		err := rundir.CheckDir(tt.path)
		if tt.want == "" {
			assert.NoError(t, err, tt.path)
			continue
		}
		assert.EqualError(t, err, tt.want)
		assert.ErrorIs(t, err, rundir.ErrNotDir)
		_, err = rundir.Create(tt.path, false)
		assert.EqualError(t, err, tt.want, "Create checks first")
	}
	assert.False(t, exists(t, filepath.Join(root, "new")), "CheckDir writes nothing")
}

func TestShortHash(t *testing.T) {
	long := "sha256:0123456789abcdef0123456789abcdef"
	tests := []struct{ name, hash, cut, want string }{
		{"cut", long, "", "sha256:0123456789ab"},
		{"cut and marked", long, "…", "sha256:0123456789ab…"},
		{"nothing cut, no mark", "sha256:0123456789ab", "…", "sha256:0123456789ab"},
		{"empty", "", "…", ""},
		// FuzzParsePlan's 1720bd8fc6a75d1d: the 19th byte is the first of µ's two.
		{"not hex, a character across the cut", "00000\b000000000000µ0", "…", "00000\b000000000000…"},
		{"not hex, a character ending at the cut", "00000\b00000000000µ0", "…", "00000\b00000000000µ…"},
		// No character starts in the first 20 bytes: nothing of them is kept.
		{"not UTF-8, no character start", strings.Repeat("\x80", 25), "…", "…"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, rundir.ShortHash(tt.hash, tt.cut), tt.name)
	}
}

// CSV writes what ParseTable reads back, quoting where it must, and makes
// its buffer once at the table's size instead of growing it.
func TestCSV(t *testing.T) {
	header := []string{"variant", "seed", "value"}
	rows := [][]string{{"a, b", "1", "0.5"}, {`say "hi"`, "2", "line\nbreak"}}
	for i := range 1000 {
		rows = append(rows, []string{"team", fmt.Sprint(i), fmt.Sprint(float64(i) / 7)})
	}
	b := rundir.CSV(header, rows)
	table, err := rundir.ParseTable("t.csv", b)
	require.NoError(t, err)
	assert.Equal(t, header, table.Header)
	assert.Equal(t, rows, table.Rows)
	if race.Enabled {
		return // the race detector allocates
	}
	// The buffer, the csv.Writer and its bufio.Writer: 3 (the buffer
	// grown as it filled made 6 for these 25 KB).
	assert.LessOrEqual(t, testing.AllocsPerRun(10, func() { rundir.CSV(header, rows) }), 3.0)
}

// BenchmarkWriteCommit writes the files a one-seed training writes
// through Dir.Write (two tables, four policies) and commits them: the
// syncs are most of its time. (Its report, claim file and charts are
// synced as they are written, as before.)
func BenchmarkWriteCommit(b *testing.B) {
	data := make([]byte, 16<<10)
	for b.Loop() {
		d, err := rundir.Create(b.TempDir(), false)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"iterations.csv", "summary.csv", "policies/a.json", "policies/b.json", "policies/c.json", "policies/d.json"} {
			if err := d.Write(name, data); err != nil {
				b.Fatal(err)
			}
		}
		if err := d.Commit(&rundir.Manifest{Kind: rundir.KindTrain}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCreateNamesThePathGiven: a directory that cannot be made is named
// as the caller gave it, not only by the parent that failed.
func TestCreateNamesThePathGiven(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc, where no folder can be made")
	}
	path := "/proc/swarmsim-none/run"
	_, err := rundir.Create(path, false)
	require.ErrorContains(t, err, "making the directory "+path+": mkdir /proc/swarmsim-none: ")
}
