// Package pool runs independent jobs on a fixed number of goroutines. It is
// the one worker pool of swarmsim: rollouts in a training iteration,
// episodes of an evaluation, training jobs of many seeds and the trials of
// a sweep all go through Run, so that what a failure or a cancellation does
// is decided in one place.
package pool
