package portable

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const module = "github.com/swarmsim/swarmsim"

// fused matches arm64's fused multiply-add instructions in the compiler's
// assembly listing.
var fused = regexp.MustCompile(`\tF(N)?M(ADD|SUB)[DS]\t`)

// position finds the source position in a listing line.
var position = regexp.MustCompile(`\(([^()]+\.go):(\d+)\)`)

func TestNoFusedMultiplyAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the module for arm64 (about 10 s)")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	// The build cache keeps no listing: a flag of no effect that differs
	// every time (-D, the directory of local imports, which the module's
	// packages have none of) makes the compiler run again on the
	// module's packages, and on them only.
	flags := fmt.Sprintf("%s/...=-S -D=/portable-%d", module, time.Now().UnixNano())
	cmd := exec.Command("go", "build", "-gcflags="+flags, "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.CloseWithError(io.EOF)
		done <- err
	}()

	listed := map[string]bool{} // packages whose listing came
	var sites []string
	var tail []string // the last lines, for an error
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if pkg, ok := strings.CutPrefix(line, "# "); ok {
			listed[pkg] = true
		}
		if len(tail) == 20 {
			tail = tail[1:]
		}
		tail = append(tail, line)
		if !fused.MatchString(line) {
			continue
		}
		m := position.FindStringSubmatch(line)
		require.NotNil(t, m, "a fused instruction without a position: %s", line)
		rel, err := filepath.Rel(root, m[1])
		if err != nil || strings.HasPrefix(rel, "..") || strings.HasPrefix(rel, "plots"+string(filepath.Separator)) {
			continue // inlined from outside the module, or a chart's geometry
		}
		sites = append(sites, rel+":"+m[2])
	}
	require.NoError(t, sc.Err())
	require.NoError(t, <-done, "go build for arm64 failed:\n%s", strings.Join(tail, "\n"))

	// A listing must have come for the packages that compute results, or
	// the check checked nothing (a build served from the cache).
	for _, pkg := range []string{"sim", "models/collective", "models/policy", "models/rlcr", "stats", "calibrate"} {
		require.True(t, listed[module+"/"+pkg], "no assembly listing for %s: the compiler did not run on it", pkg)
	}
	slices.Sort(sites)
	sites = slices.Compact(sites)
	require.Empty(t, sites, "fused multiply-adds on arm64: write float64(x*y) + z where x*y + z is meant, so that every architecture rounds the product")
}
