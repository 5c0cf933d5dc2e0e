package portable

import (
	"bufio"
	"fmt"
	"io"
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

// canary is the multiply-add in testdata that the check must report: it
// proves that the listing came, was read, and names fused instructions as
// this check expects.
const canary = "internal/portable/testdata/fused/fused.go:6"

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
	root, err = filepath.EvalSymlinks(root) // the compiler names files by their real path
	require.NoError(t, err)

	// The build cache keeps no listing: a flag of no effect that differs
	// every time (-D, the directory of local imports, which the module's
	// packages have none of) makes the compiler run again on the
	// module's packages, and on them only.
	flags := fmt.Sprintf("%s/...=-S -D=/portable-%d", module, time.Now().UnixNano())
	cmd := exec.Command("go", "build", "-gcflags="+flags, "./...", "./internal/portable/testdata/fused")
	cmd.Dir = root
	cmd.Env = append(cmd.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0") // Environ sets PWD to Dir
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		done <- err
	}()

	listed := map[string]bool{} // packages whose listing came
	positioned := 0             // listing lines at a position in the module
	var sites, odd, tail []string
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
		m := position.FindStringSubmatch(line)
		if m == nil {
			if fused.MatchString(line) {
				odd = append(odd, line)
			}
			continue
		}
		rel, ok := inModule(root, m[1])
		if !ok {
			continue // inlined from outside the module
		}
		positioned++
		if fused.MatchString(line) && !strings.HasPrefix(rel, "plots/") { // a chart's geometry is rounded when drawn
			sites = append(sites, rel+":"+m[2])
		}
	}
	require.NoError(t, sc.Err())
	require.NoError(t, <-done, "go build for arm64 failed:\n%s", strings.Join(tail, "\n"))

	require.Empty(t, odd, "fused instructions without a source position")
	// Listings must have come for the packages that compute results, or
	// the check checked nothing (a build served from the cache).
	for _, pkg := range []string{"sim", "models/collective", "models/policy", "models/rlcr", "stats", "calibrate"} {
		require.True(t, listed[module+"/"+pkg], "no assembly listing for %s: the compiler did not run on it", pkg)
	}
	require.Positive(t, positioned, "no listing line named a file of the module under %s", root)
	slices.Sort(sites)
	sites = slices.Compact(sites)
	i := slices.Index(sites, canary)
	require.GreaterOrEqual(t, i, 0, "the canary %s was not reported: the check finds nothing", canary)
	sites = slices.Delete(sites, i, i+1)
	require.Empty(t, sites, "fused multiply-adds on arm64: write float64(x*y) + z where x*y + z is meant, so that every architecture rounds the product")
}

// inModule returns the module-relative, slash-separated path of a file
// that a listing names, and whether it is in the module: the listing
// names files by absolute path, or by import path under -trimpath.
func inModule(root, file string) (string, bool) {
	if rel, ok := strings.CutPrefix(file, module+"/"); ok {
		return rel, true
	}
	if !filepath.IsAbs(file) {
		return "", false
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
