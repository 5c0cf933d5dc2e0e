package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidateResolvesGraphFiles validates a scenario in another folder:
// its graph file is found beside it, and a broken graph is reported at
// its own position.
func TestValidateResolvesGraphFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "study")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	write("g.dot", "digraph { a -> b; a -> c; b -> d; c -> d }")
	write("cycle.dot", "digraph {\n  a -> b\n  b -> c\n  c -> a\n}\n")
	good := write("good.yaml", "task: {shape: file, path: g.dot, work: 1m}\npolicy: {organization: split}\n")
	bad := write("bad.yaml", "task: {shape: file, path: cycle.dot, work: 1m}\npolicy: {organization: split}\n")
	missing := write("missing.yaml", "task: {shape: file, path: nowhere.dot, work: 1m}\npolicy: {organization: split}\n")

	stdout := mustSimulate(t, "validate", good)
	assert.Equal(t, "ok\t"+good+"\n", stdout)

	stdout, stderr, code := simulate(t, "validate", bad, missing)
	assert.Equal(t, exitFail, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, filepath.Join(dir, "cycle.dot")+`:4:3: task: cycle: "a" -> "b" -> "c" -> "a"`)
	assert.Contains(t, stderr, filepath.Join(dir, "nowhere.dot"))
	assert.Contains(t, stderr, "2 of 2 scenarios have problems")
}
