// Package sweep runs the trials of a scenario's sweep section on a pool of
// workers, resumably and in shards, and merges the results.
//
// A sweep lives in one directory:
//
//	sweep.json        the Plan (results.Plan): the scenario as resolved, the seed, and the
//	                  enumerated trials with their IDs and parameters; its
//	                  Hash identifies the sweep
//	trials/<id>.json  one Record per finished trial, written atomically: the
//	                  trial's parameters and final metrics. Its presence is
//	                  the record of completion.
//
// Run skips the trials whose record exists and is valid, so a sweep that
// was interrupted (even killed) resumes where it stopped, and several
// processes (shards of a cluster job array) may share the directory: trial
// files are per ID and every process writes the same sweep.json. Trial j
// (in enumeration order) belongs to shard j mod n. Merge reads the records
// of one or more directories of the same sweep, and Table writes them as
// CSV in enumeration order: the bytes depend only on the plan and the
// records, never on the number of workers, the sharding or interruptions,
// because each trial's result depends only on its parameters and seed.
package sweep
