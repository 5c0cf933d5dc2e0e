package main

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

var cmdVersion = &command{
	Name:  "version",
	Short: "print the simulate version",
	Long: `
Version prints the version of swarmsim that simulate was built from, the
Go release that built it, and the operating system and architecture. The
same version is recorded in every run's manifest.json, so that a result
names the code that made it. A release prints its module version; a
build from a working tree prints "devel+" and its commit (from the build
information, or else from the git state of the tree 'go run' compiled),
with "+dirty" when the tree had uncommitted changes. 'simulate --version'
is the same.`,
	Examples: `
	simulate version`,
	Setup: func(fs *flag.FlagSet) action {
		return runVersion
	},
}

func runVersion(ctx context.Context, s *session, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments")
	}
	_, err := fmt.Fprintf(s.stdout, "simulate version %s %s %s/%s\n", version(), goVersion(), runtime.GOOS, runtime.GOARCH)
	return err
}

// version returns the version of swarmsim simulate was built from: the
// module version of a release, or "devel+COMMIT[+dirty]" for a build from
// a working tree ("devel" when not even git can tell).
var version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	if ok {
		var rev, modified string
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.modified":
				modified = kv.Value
			}
		}
		if rev != "" {
			return devel(rev, modified == "true")
		}
	}
	if rev, dirty, ok := gitState(); ok {
		return devel(rev, dirty)
	}
	return "devel"
})

func devel(rev string, dirty bool) string {
	v := "devel+" + rev[:min(12, len(rev))]
	if dirty {
		v += "+dirty"
	}
	return v
}

// gitState reads the commit and cleanliness of the tree this file was
// compiled from. 'go run' and builds with -buildvcs=false record no VCS
// information, but they compile a checkout that is still there.
func gitState() (rev string, dirty, ok bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", false, false // -trimpath: no source tree to ask
	}
	dir := filepath.Dir(file)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false, false
	}
	rev = strings.TrimSpace(string(out))
	status, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return "", false, false
	}
	return rev, len(strings.TrimSpace(string(status))) > 0, rev != ""
}
