package main

import (
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNumberFlagsAreDecimal: every number flag reads decimal only, so that
// a padded 010 is ten rather than Go's octal eight, and prefixes, signs
// out of range and junk are refused by name.
func TestNumberFlagsAreDecimal(t *testing.T) {
	var (
		seed     seedFlag
		episodes countFlag
		seeds    = 3
	)
	newSet := func() *flag.FlagSet {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&seed, "seed", "")
		fs.Var(&episodes, "episodes", "")
		fs.Var(intFlag{&seeds}, "seeds", "")
		return fs
	}
	require.NoError(t, newSet().Parse([]string{"--seed", "010", "--episodes", "010", "--seeds", "010"}))
	assert.Equal(t, seedFlag{v: 10, set: true}, seed)
	assert.Equal(t, countFlag(10), episodes)
	assert.Equal(t, 10, seeds)

	for _, tt := range []struct{ flag, value, want string }{
		{"seed", "0x10", `invalid value "0x10" for flag -seed: want a whole number from 0 to 18446744073709551615 in decimal`},
		{"seed", "-1", "in decimal"},
		{"episodes", "0o10", "want a whole number of 1 or more in decimal"},
		{"episodes", "0", "1 or more"},
		{"seeds", "0b11", `want a whole number in decimal`},
		{"seeds", "1_000", "in decimal"},
		{"seeds", "99999999999999999999", "want a whole number from -9223372036854775808 to 9223372036854775807"},
		{"episodes", "99999999999999999999", "want a whole number of 1 or more, at most 9223372036854775807"},
		{"episodes", "-99999999999999999999", "want a whole number of 1 or more in decimal"},
	} {
		err := newSet().Parse([]string{"--" + tt.flag, tt.value})
		require.Error(t, err, "--%s %s", tt.flag, tt.value)
		assert.Contains(t, err.Error(), tt.want)
	}
	assert.Equal(t, "0", intFlag{}.String(), "the zero value prints as flag's help expects of a default")
}

// TestFlagStrings: a number flag prints the value it holds, as
// flag.Value's String must (flag.Lookup, the defaults in help); one not
// given prints what its zero value does.
func TestFlagStrings(t *testing.T) {
	n := 3
	for _, tc := range []struct {
		name string
		v    flag.Value
		want string
	}{
		{"seed not given", &seedFlag{}, ""},
		{"seed nil", (*seedFlag)(nil), ""},
		{"seed 0", &seedFlag{v: 0, set: true}, "0"},
		{"seed 7", &seedFlag{v: 7, set: true}, "7"},
		{"count not given", new(countFlag), ""},
		{"count 5", new(countFlag(5)), "5"},
		{"int 3", intFlag{&n}, "3"},
		// The help's default: every format, as a command draws them.
		{"formats not given", &formatsFlag{}, "svg,pdf,png"},
		{"formats nil", (*formatsFlag)(nil), ""},
	} {
		assert.Equal(t, tc.want, tc.v.String(), tc.name)
	}
}

// TestFlagErrorWording: a value a flag refused is said as the commands'
// own checks say it, "--NAME VALUE: why", whatever kind of flag refused
// it; the flag package's other messages keep their words, with two
// dashes.
func TestFlagErrorWording(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`invalid value "0" for flag -episodes: want 1 or more`, "--episodes 0: want 1 or more"},
		{`invalid value "" for flag -variants: want A,B`, `--variants "": want A,B`},
		{`invalid value "a b" for flag -set: want PATH=VALUE`, `--set "a b": want PATH=VALUE`},
		{`invalid value "say \"hi\"" for flag -set: want PATH=VALUE`, `--set "say \"hi\"": want PATH=VALUE`},
		{`invalid value "x" for flag -max-memory: want a size`, "--max-memory x: want a size"},
		{`invalid boolean value "maybe" for -charts: parse error`, "--charts maybe: want true or false"},
		// What the flag package escaped stays quoted: a terminal would
		// obey an escape sequence, and a space that is no space hides.
		{`invalid value "\x1b[31mred" for flag -episodes: want 1 or more`, `--episodes "\x1b[31mred": want 1 or more`},
		{`invalid value "1\u00a0" for flag -episodes: want 1 or more`, `--episodes "1\u00a0": want 1 or more`},
		{`invalid value "1\n2" for flag -episodes: want 1 or more`, `--episodes "1\n2": want 1 or more`},
		{`invalid value "é" for flag -variant: want A`, `--variant é: want A`},
		// The value is the user's: its dashes are not a flag's.
		{`invalid value "x: -y" for flag -set: want PATH=VALUE`, `--set "x: -y": want PATH=VALUE`},
		{`invalid value "for -x" for flag -set: want PATH=VALUE`, `--set "for -x": want PATH=VALUE`},
		{"flag provided but not defined: -seeed", "flag provided but not defined: --seeed"},
		{"flag needs an argument: -out", "flag needs an argument: --out"},
	} {
		assert.Equal(t, tc.want, (&flagError{errors.New(tc.raw)}).Error(), tc.raw)
	}
}
