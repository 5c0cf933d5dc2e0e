package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/scenarios"
)

// TestDocCommandsLoad loads the scenario of every command in README.md and
// docs/*.md that runs, sweeps, trains or traces an embedded scenario, with
// the command's --set values, and checks it as the command does before it
// runs: a documented command must not be refused at load, such as for a
// setting that none of its trials reads.
func TestDocCommandsLoad(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	docs = append(docs, "../../README.md")
	checked := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		require.NoError(t, err)
		for _, c := range docCommands(string(data)) {
			args := shellWords(c.line)
			if len(args) < 2 || !slices.Contains([]string{"run", "sweep", "train", "trace"}, args[0]) {
				continue
			}
			if _, ok := scenarios.Embedded(args[1]); !ok {
				continue
			}
			var sets []string
			learned := false
			for i := 2; i < len(args); i++ {
				switch {
				case args[i] == "--set" && i+1 < len(args):
					i++
					sets = append(sets, args[i])
				case strings.HasPrefix(args[i], "--set="):
					sets = append(sets, strings.TrimPrefix(args[i], "--set="))
				case args[i] == "--policy" || strings.HasPrefix(args[i], "--policy="):
					learned = true
				}
			}
			where := filepath.Base(doc) + ":" + strconv.Itoa(c.at) + ": simulate " + c.line
			checked++
			sc, err := scenarios.Load(args[1], sets)
			if !assert.NoError(t, err, where) {
				continue
			}
			switch args[0] {
			case "sweep":
				if assert.NotNil(t, sc.Sweep, where) {
					assert.NoError(t, refuseUnread(sets, sc.Sweep.Command, true), where)
				}
			case "train":
				assert.NoError(t, refuseUnread(sets, scenarios.SweepTrain, false), where)
			case "run", "trace":
				reader := scenarios.SweepRun
				if args[0] == "trace" {
					reader = scenarios.TraceCommand
				}
				assert.NoError(t, refuseUnread(sets, reader, false), where)
				if !learned {
					assert.NoError(t, sc.RunInert(), where)
				}
			}
		}
	}
	assert.Greater(t, checked, 20, "the documents' commands were found")
}

// docCommand is a command line of a document, without the program's name,
// its continuation lines joined, and the line it starts on.
type docCommand struct {
	line string
	at   int
}

// docCommands returns the lines of text that begin "simulate " or
// "go run ./cmd/simulate ", indented or not, with a shell comment cut.
func docCommands(text string) []docCommand {
	var out []docCommand
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		rest, ok := strings.CutPrefix(l, "simulate ")
		if !ok {
			rest, ok = strings.CutPrefix(l, "go run ./cmd/simulate ")
		}
		if !ok {
			continue
		}
		at := i + 1
		for strings.HasSuffix(rest, `\`) && i+1 < len(lines) {
			i++
			rest = strings.TrimSuffix(rest, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if j := strings.Index(rest, " #"); j >= 0 {
			rest = rest[:j]
		}
		out = append(out, docCommand{strings.TrimSpace(rest), at})
	}
	return out
}

// shellWords splits a command line into words as a shell does for plain
// words and single- or double-quoted ones.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}
