// Package policy holds the policies that decide for the agents of a
// collective: the fixed organizations (sequential, independent attempts
// with selection, split, team), which are fixed rules over the shared
// action set, and the learnable softmax policies that the RLCR learner
// trains.
package policy
