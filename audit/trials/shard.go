package trials

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// A Shard is one of Count parts of an audit's trials: part Index runs trials Index,
// Index+Count, Index+2·Count, … . Trials are pure functions of (configuration, seed,
// index), so the parts can run anywhere, in any order, and merge into exactly the trials
// one machine would have run. The zero Shard is the whole audit.
type Shard struct {
	Index, Count int
}

// MaxShards bounds a shard count: more parts than trials is never useful, and the bound
// keeps a mistyped count from naming a million empty parts.
const MaxShards = 100_000

// Whole reports whether s is the whole audit (no sharding).
func (s Shard) Whole() bool { return s.Count == 0 }

// Owns reports whether trial i belongs to s.
func (s Shard) Owns(i int) bool { return s.Whole() || i%s.Count == s.Index }

// Trials is how many of trials 0..n−1 belong to s.
func (s Shard) Trials(n int) int {
	if s.Whole() {
		return n
	}
	if n <= s.Index {
		return 0
	}
	return (n-s.Index-1)/s.Count + 1
}

// String is "I/N", as ParseShard reads it ("" for the whole audit).
func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Name is the folder a shard's files go in: "shard-I-of-N".
func (s Shard) Name() string { return fmt.Sprintf("shard-%d-of-%d", s.Index, s.Count) }

// ParseShard reads "I/N": part I (from 0) of N.
func ParseShard(text string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(text), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %s: want I/N, part I (from 0) of N, such as 0/4", clip.Quote(text))
	}
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %s: want I/N with integers, such as 0/4", clip.Quote(text))
	}
	return newShard(index, count, fmt.Sprintf("shard %s", clip.Quote(text)))
}

func newShard(index, count int, what string) (Shard, error) {
	switch {
	case count < 1 || count > MaxShards:
		return Shard{}, fmt.Errorf("%s: %d parts; want 1 to %d", what, count, MaxShards)
	case index < 0 || index >= count:
		return Shard{}, fmt.Errorf("%s: part %d of %d; parts are numbered 0 to %d", what, index, count, count-1)
	}
	return Shard{Index: index, Count: count}, nil
}

// The environment variables ShardFromEnv reads.
const (
	EnvSlurmTaskID    = "SLURM_ARRAY_TASK_ID"    // Slurm job arrays: this task's index
	EnvSlurmTaskCount = "SLURM_ARRAY_TASK_COUNT" // the array's number of tasks
	EnvSlurmTaskMin   = "SLURM_ARRAY_TASK_MIN"   // its first index (--array=1-4 starts at 1)
	EnvSlurmTaskStep  = "SLURM_ARRAY_TASK_STEP"  // its stride (--array=0-6:2)
	EnvJobIndex       = "JOB_COMPLETION_INDEX"   // Kubernetes Indexed Jobs: this pod's index
	// EnvJobCompletions is the Indexed Job's spec.completions. Kubernetes does not set it:
	// the Job's manifest must (deploy/kubernetes/audit-trials.yaml does).
	EnvJobCompletions = "JOB_COMPLETIONS"
)

// ShardFromEnv finds the shard a batch system assigned this process: a Slurm job array
// (SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT, counted from SLURM_ARRAY_TASK_MIN in
// steps of SLURM_ARRAY_TASK_STEP) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX of
// JOB_COMPLETIONS). It returns the zero Shard and "" when neither is set, and the name
// of the variable it used otherwise. A set but unusable variable is an error naming it: a
// task that guessed its part would leave trials unrun or run them twice.
func ShardFromEnv(getenv func(string) string) (Shard, string, error) {
	if id := getenv(EnvSlurmTaskID); id != "" {
		vals := map[string]int{EnvSlurmTaskMin: 0, EnvSlurmTaskStep: 1}
		for _, name := range []string{EnvSlurmTaskID, EnvSlurmTaskCount, EnvSlurmTaskMin, EnvSlurmTaskStep} {
			v := getenv(name)
			if v == "" {
				if name == EnvSlurmTaskCount {
					return Shard{}, "", fmt.Errorf("%s=%s is set but %s is not (Slurm sets both for a job array since 18.08); pass --shard I/N", EnvSlurmTaskID, id, name)
				}
				continue
			}
			n, err := envInt(name, v)
			if err != nil {
				return Shard{}, "", err
			}
			vals[name] = n
		}
		offset, step := vals[EnvSlurmTaskID]-vals[EnvSlurmTaskMin], vals[EnvSlurmTaskStep]
		if step < 1 || offset < 0 || offset%step != 0 {
			return Shard{}, "", fmt.Errorf("%s=%d with %s=%d and %s=%d: not a task of a regular array; use --array=0-(N-1) or pass --shard I/N",
				EnvSlurmTaskID, vals[EnvSlurmTaskID], EnvSlurmTaskMin, vals[EnvSlurmTaskMin], EnvSlurmTaskStep, step)
		}
		sh, err := newShard(offset/step, vals[EnvSlurmTaskCount], fmt.Sprintf("%s=%d of %s=%d", EnvSlurmTaskID, vals[EnvSlurmTaskID], EnvSlurmTaskCount, vals[EnvSlurmTaskCount]))
		if err != nil {
			return Shard{}, "", fmt.Errorf("%w (a sparse --array list cannot be mapped to parts; use --array=0-(N-1) or pass --shard I/N)", err)
		}
		return sh, EnvSlurmTaskID, nil
	}
	if idx := getenv(EnvJobIndex); idx != "" {
		total := getenv(EnvJobCompletions)
		if total == "" {
			return Shard{}, "", fmt.Errorf("%s=%s is set but %s is not: set it in the Job's env to its spec.completions, or pass --shard I/N", EnvJobIndex, idx, EnvJobCompletions)
		}
		i, err := envInt(EnvJobIndex, idx)
		if err != nil {
			return Shard{}, "", err
		}
		n, err := envInt(EnvJobCompletions, total)
		if err != nil {
			return Shard{}, "", err
		}
		sh, err := newShard(i, n, fmt.Sprintf("%s=%d of %s=%d", EnvJobIndex, i, EnvJobCompletions, n))
		if err != nil {
			return Shard{}, "", err
		}
		return sh, EnvJobIndex, nil
	}
	return Shard{}, "", nil
}

// maxEnvIndex bounds the batch systems' indices and counts ShardFromEnv reads: past any
// array a scheduler runs (Slurm's MaxArraySize is at most 4,000,001), and small enough
// that differences and quotients of them cannot overflow, so a message prints the values
// as the variables hold them.
const maxEnvIndex = 1 << 31

// envInt reads a batch system's variable: a non-negative integer up to maxEnvIndex, or an
// error naming the variable and echoing its value as set.
func envInt(name, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case errors.Is(err, strconv.ErrRange), err == nil && (n < 0 || int64(n) > maxEnvIndex):
		return 0, fmt.Errorf("%s=%s: want an integer from 0 to %d", name, clip.Text(v), int64(maxEnvIndex))
	case err != nil:
		return 0, fmt.Errorf("%s=%s: not an integer", name, clip.Quote(v))
	}
	return n, nil
}
