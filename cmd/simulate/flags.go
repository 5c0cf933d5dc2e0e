package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// stringsFlag is a flag that may be repeated; each use appends a value.
type stringsFlag []string

func (f *stringsFlag) String() string { return strings.Join(*f, " ") }

func (f *stringsFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// seedFlag is a uint64 flag that remembers whether it was given, so that
// the scenario's own seed applies otherwise.
type seedFlag struct {
	v   uint64
	set bool
}

func (f *seedFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatUint(f.v, 10)
}

func (f *seedFlag) Set(s string) error {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d, not %q", uint64(math.MaxUint64), s)
	}
	f.v, f.set = v, true
	return nil
}

// countFlag is a whole number of 1 or more, such as --episodes N. Zero
// means that the flag was not given, so its default applies; given, 0
// (which would silently mean the default) and negative numbers are
// refused.
type countFlag int

func (c *countFlag) String() string {
	if c == nil || *c == 0 {
		return ""
	}
	return strconv.Itoa(int(*c))
}

func (c *countFlag) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil || v < 1 {
		return errors.New("want a whole number of 1 or more (leave the flag out for its default)")
	}
	*c = countFlag(v)
	return nil
}

// policyFlag is --policy: a policy learned by 'simulate train', which
// decides in every variant instead of the scenario's organization. It
// stands for --set policy.file=FILE, so that the scenario's loading reads
// and checks the file as it does a policy.file in the scenario.
type policyFlag struct{ file string }

func (p *policyFlag) flags(fs *flag.FlagSet) {
	fs.StringVar(&p.file, "policy", "", "decide with the learned policy in `FILE` (written by 'simulate train')\nin every variant, instead of the scenario's organization\n(it stands for --set policy.file=FILE)")
}

// sets returns the overrides that the flag stands for.
func (p *policyFlag) sets() []string {
	if p.file == "" {
		return nil
	}
	return []string{"policy.file=" + p.file}
}
