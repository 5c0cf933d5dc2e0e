package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
)

var cmdVersion = &command{
	Name:  "version",
	Short: "print the simulate version",
	Long: `
Version prints the version of swarmsim that simulate was built from
("devel" for a build from a working tree), the Go release that built it,
and the operating system and architecture. The same version is recorded
in every run's manifest.json.`,
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
