//go:build race

package rundir_test

const raceEnabled = true
