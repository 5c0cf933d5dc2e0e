package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
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
binary built with 'go build' or 'go install' in a checkout prints the
version Go stamps from the commit it was built from
(v0.0.0-TIME-COMMIT, or "devel+COMMIT" where Go could not derive one),
with "+dirty" when the tree had uncommitted changes at build time; later
changes to the tree do not alter it. 'go run' stamps no commit unless
given -buildvcs=true, so through 'go run' simulate prints and records
plain "devel": build the binary to record the commit. 'simulate
--version' is the same.`,
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

// version returns the version of swarmsim simulate was built from, as the
// build stamped it (see versionFrom). It never asks git at run time: the
// tree a binary was built from may have changed, or be gone, since.
var version = sync.OnceValue(func() string {
	return versionFrom(debug.ReadBuildInfo())
})

// versionFrom returns the main module's version as the build stamped it:
// a release's, or the pseudo-version 'go build' derives in a checkout
// (with "+dirty" for uncommitted changes); else "devel+COMMIT[+dirty]"
// from the VCS settings alone, where Go stamped a commit but derived no
// version; else "devel" ('go test', -buildvcs=false and, by default,
// 'go run' stamp no VCS settings).
func versionFrom(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "devel"
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	var rev string
	var modified bool
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	v := "devel+" + rev[:min(12, len(rev))]
	if modified {
		v += "+dirty"
	}
	return v
}
