package main

import (
	"bytes"
	"context"
	"flag"

	"github.com/swarmsim/swarmsim/scenarios"
)

var cmdSchema = &command{
	Name:  "schema",
	Short: "print the JSON Schema of scenario files",
	Long: `
Schema prints the JSON Schema of the scenario file format on standard
output. Editors use it to complete keys and check values as a scenario is
written (for example the YAML language server, with a
"# yaml-language-server: $schema=scenario.schema.json" comment).`,
	Examples: `
	simulate schema >scenario.schema.json`,
	Setup: func(fs *flag.FlagSet) action {
		return runSchema
	},
}

func runSchema(ctx context.Context, s *session, args []string) error {
	if len(args) > 0 {
		return usagef("schema takes no arguments")
	}
	b, err := scenarios.JSONSchema()
	if err != nil {
		return err
	}
	if !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	_, err = s.stdout.Write(b)
	return err
}
