// Package rundir owns swarmsim's output directories: the directory of a
// run, of a training and of a sweep. It is the one writer of their files
// and the one reader of them for the commands that come back later
// (compare, plot, merge, resume).
//
// A directory is complete when it holds manifest.json. Every file is
// written atomically (a hidden temporary file renamed into place) and
// synced to disk before the manifest is written (a part or a chart as it
// is written, a file of Dir.Write with the others at Commit), and the
// manifest last, listing every file of the result, so a reader that finds
// a manifest finds every file it names whole, and a run that was
// interrupted never leaves a directory that looks complete.
//
// Two ways in:
//
//   - Create, for work that starts over: it refuses a complete directory
//     unless told to overwrite it, and Abort removes what the run wrote if
//     it fails.
//   - Claim, for work that resumes (a sweep, a training with checkpoints):
//     the directory is marked by an identity file (sweep.json, say), and
//     the same work finds its parts again (written by WriteFile, kept by
//     Abort) while other work is refused.
//
// Open reads a complete directory back: its manifest, its kind (run,
// train or sweep) and its tables. List finds the complete directories
// below a root.
package rundir
