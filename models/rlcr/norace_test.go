//go:build !race

package rlcr

const raceEnabled = false
