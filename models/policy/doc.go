// Package policy holds the policies that decide for the agents of a
// collective: the fixed organizations (sequential, independent attempts
// with selection, split, team), which are fixed rules over the shared
// action set, and the learnable softmax policies that the RLCR learner
// trains.
//
// A Softmax policy (Linear, or MLP with one tanh hidden layer) maps the
// normalised Features of an observation to a masked softmax over the valid
// actions; AddGrad gives the gradient of log π and of the entropy for
// policy-gradient updates, Value is a learned baseline, and Save and Load
// read and write the policy files that `simulate run --policy` evaluates.
// See ExampleNewLinear.
//
// A product added to or subtracted from another number is written
// float64(x*y) + z: the conversion rounds the product, so that no
// architecture fuses the two into one multiply-add and every machine
// computes the same bits (internal/portable checks it).
package policy
