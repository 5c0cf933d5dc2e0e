// Package spelling suggests the word a user most likely meant: the
// "did you mean" of every error that names a word outside a fixed set (a
// scenario's key, an embedded scenario, a command of simulate).
package spelling
