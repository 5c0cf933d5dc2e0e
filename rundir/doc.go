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
//     Abort) while other work is refused. A Sole claim (a training) holds
//     a flock on the directory itself until Commit or Abort: another
//     Open of it meanwhile is refused (ErrBusy), since two trainings in
//     one directory would remove each other's files. A file system that
//     cannot lock a directory (NFS, Lustre without flock) refuses
//     nothing: the training runs unguarded there.
//
// Overwriting keeps the old result until the new one is complete. Create
// with force, and a Sole claim opened fresh (a training with --force),
// move the complete result they replace (its manifest first, then the
// files it lists, a training's identity file, and any file named to
// Dir.SetAside, such as the result's page) into the hidden folder
// PreviousDir (.swarmsim-previous) inside the directory: renames, which
// keep every byte. The new work writes its files in place, beside nothing
// stale; Commit writes the new manifest, then removes PreviousDir; Abort
// removes what the new work wrote (for a training, its identity file and
// checkpoints too, which would describe work the restored result does
// not) and moves the old result back, byte for byte, the manifest last.
// A rerun killed before either leaves PreviousDir and no manifest: the
// next Create, or Claim.Open of other work or with fresh, first puts it
// back (Recover), and one killed after its Commit leaves a stale
// PreviousDir that they remove. The rerun holds a lock on PreviousDir
// (flock, which the kernel drops when a process ends, however it ends)
// until it commits or aborts: Recover leaves the result of a live rerun
// alone, and Create and Claim.Open (also of the same work, resuming)
// refuse its directory (ErrBusy). The same training resuming after a kill
// leaves PreviousDir for its own Commit to remove, holding its lock as
// the rerun did. PreviousDir is made under a temporary name
// (.swarmsim-previous-*) and locked before it is renamed into place; a
// rerun killed before the rename leaves that folder, which the next
// Create, Recover or Claim.Open removes unless a live process holds its
// lock. Where the system has no flock (Windows, Solaris, AIX) nothing is
// locked. No manifest lists PreviousDir, and List and Open do not look
// into it. A sweep opened fresh still removes its old result at once: its
// shards share the directory, with no single Commit to wait for.
//
// Open reads a complete directory back: its manifest, its kind (run,
// train or sweep) and its tables. List finds the complete directories
// below a root.
package rundir
