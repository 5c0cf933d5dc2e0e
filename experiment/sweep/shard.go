package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of a sweep: the trials j (in enumeration order) with
// j mod Count == Index. The zero Shard is treated as the whole sweep.
type Shard struct {
	Index, Count int
}

// All is the whole sweep as one shard.
var All = Shard{0, 1}

// Owns reports whether trial j belongs to s.
func (s Shard) Owns(j int) bool {
	if s.Count <= 1 {
		return true
	}
	return j%s.Count == s.Index
}

// Sharded reports whether s is a proper part of a sweep.
func (s Shard) Sharded() bool { return s.Count > 1 }

// String writes s as "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, max(1, s.Count)) }

// maxShards bounds the number of shards.
const maxShards = 1_000_000

func newShard(i, n int, what string) (Shard, error) {
	if n < 1 || n > maxShards {
		return Shard{}, fmt.Errorf("%s: %d shards is out of range (1 to %d)", what, n, maxShards)
	}
	if i < 0 || i >= n {
		return Shard{}, fmt.Errorf("%s: shard %d is out of range (0 to %d for %d shards)", what, i, n-1, n)
	}
	return Shard{i, n}, nil
}

// parseShard reads "i/n": shard i (from 0) of n.
func parseShard(s string) (Shard, error) {
	// Quoted, as the spaces around the numbers that are allowed would
	// otherwise run into the message, and a newline break it.
	what := fmt.Sprintf("--shard %q", s)
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("%s: want i/n, such as 0/4 (shard i, from 0, of n)", what)
	}
	return newShard(i, n, what)
}

// Environment variables that select a shard.
const (
	EnvSlurmID    = "SLURM_ARRAY_TASK_ID"
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	EnvSlurmStep  = "SLURM_ARRAY_TASK_STEP"
	EnvSlurmMax   = "SLURM_ARRAY_TASK_MAX"
	EnvK8sIndex   = "JOB_COMPLETION_INDEX"
)

// ResolveShard chooses the shard of a process, and says where it came
// from:
//
//   - flag, when not "" ("i/n", from --shard);
//   - else SLURM_ARRAY_TASK_ID, as the array index minus
//     SLURM_ARRAY_TASK_MIN (divided by SLURM_ARRAY_TASK_STEP when the array
//     has a step), of SLURM_ARRAY_TASK_COUNT shards (or shards, when > 0);
//     an array whose SLURM_ARRAY_TASK_MAX says it is not whole (a
//     resubmitted subset) is an error;
//   - else JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) of shards
//     shards, which must then be given: the Job's completions are not
//     visible to the pod;
//   - else the whole sweep (shards must then be 0 or 1).
//
// A variable set but blank is an error, not the whole sweep: a job
// script's SLURM_ARRAY_TASK_ID=$ID with ID unset would otherwise run
// every trial in every task. lookup reads the environment (os.LookupEnv).
func ResolveShard(flag string, shards int, lookup func(string) (string, bool)) (Shard, string, error) {
	if shards < 0 {
		return Shard{}, "", fmt.Errorf("--shards %d: want 1 or more", shards)
	}
	if flag != "" {
		s, err := parseShard(flag)
		if err != nil {
			return Shard{}, "", err
		}
		if shards > 0 && shards != s.Count {
			return Shard{}, "", fmt.Errorf("--shard %q and --shards %d disagree on the number of shards", flag, shards)
		}
		return s, "--shard", nil
	}
	envInt := func(name string) (int, bool, error) {
		v, ok := lookup(name)
		if !ok {
			return 0, false, nil
		}
		v = strings.TrimSpace(v)
		if v == "" {
			return 0, true, fmt.Errorf("%s is set but blank: want an integer, or leave it unset", name)
		}
		x, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("%s=%q is not an integer", name, v)
		}
		return x, true, nil
	}
	if id, ok, err := envInt(EnvSlurmID); ok || err != nil {
		if err != nil {
			return Shard{}, "", err
		}
		lo, _, err := envInt(EnvSlurmMin)
		if err != nil {
			return Shard{}, "", err
		}
		step, hasStep, err := envInt(EnvSlurmStep)
		if err != nil {
			return Shard{}, "", err
		}
		if !hasStep || step < 1 {
			step = 1
		}
		n, hasCount, err := envInt(EnvSlurmCount)
		if err != nil {
			return Shard{}, "", err
		}
		switch {
		case !hasCount && shards == 0:
			return Shard{}, "", fmt.Errorf("%s is set but %s is not: give the number of shards with --shards N", EnvSlurmID, EnvSlurmCount)
		case !hasCount:
			n = shards
		case shards > 0 && shards != n:
			return Shard{}, "", fmt.Errorf("--shards %d disagrees with %s=%d", shards, EnvSlurmCount, n)
		}
		// A resubmitted subset (--array=3,7 of 0-15) reports COUNT=2 and
		// MIN=3: its first task would pass for shard 0 of 2 and run
		// another sharding's trials, the others fail. MAX tells it from a
		// whole array.
		hi, hasMax, err := envInt(EnvSlurmMax)
		if err != nil {
			return Shard{}, "", err
		}
		if hasMax && n >= 1 && hi != lo+step*(n-1) {
			return Shard{}, "", fmt.Errorf("%s=%d, %s=%d, %s=%d and %s=%d are not a whole array (a subset, such as --array=3,7?): resubmit the whole array, whose tasks skip the trials they finished, or run single shards with --shard i/n",
				EnvSlurmMin, lo, EnvSlurmMax, hi, EnvSlurmStep, step, EnvSlurmCount, n)
		}
		if (id-lo)%step != 0 {
			return Shard{}, "", fmt.Errorf("%s=%d is not on the array's step %d from %d", EnvSlurmID, id, step, lo)
		}
		what := fmt.Sprintf("%s=%d (%s=%d, %s=%d)", EnvSlurmID, id, EnvSlurmMin, lo, EnvSlurmCount, n)
		s, err := newShard((id-lo)/step, n, what)
		if err != nil && n >= 1 {
			return Shard{}, "", fmt.Errorf("%w: submit the array as --array=0-%d", err, n-1)
		}
		if err != nil {
			return Shard{}, "", err
		}
		return s, EnvSlurmID, nil
	}
	if idx, ok, err := envInt(EnvK8sIndex); ok || err != nil {
		if err != nil {
			return Shard{}, "", err
		}
		if shards == 0 {
			return Shard{}, "", fmt.Errorf("%s is set: give the Job's completions with --shards N (the pod cannot see them)", EnvK8sIndex)
		}
		s, err := newShard(idx, shards, fmt.Sprintf("%s=%d with --shards %d", EnvK8sIndex, idx, shards))
		return s, EnvK8sIndex, err
	}
	if shards > 1 {
		return Shard{}, "", fmt.Errorf("--shards %d needs the shard's index: --shard i/%d, or %s or %s in the environment", shards, shards, EnvSlurmID, EnvK8sIndex)
	}
	return All, "", nil
}
