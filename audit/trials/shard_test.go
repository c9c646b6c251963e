package trials

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"pgregory.net/rapid"
)

// The parts of any count cover every trial exactly once, and Trials counts each part's.
func TestShardsPartitionTrials(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 500).Draw(t, "trials")
		count := rapid.IntRange(1, 40).Draw(t, "parts")
		owners := make([]int, n)
		for p := range count {
			sh, err := ParseShard(Shard{Index: p, Count: count}.String())
			if err != nil || sh != (Shard{Index: p, Count: count}) {
				t.Fatalf("%d/%d does not read back: %v %v", p, count, sh, err)
			}
			got := 0
			for i := range n {
				if sh.Owns(i) {
					owners[i]++
					got++
				}
			}
			if got != sh.Trials(n) {
				t.Fatalf("part %s owns %d of %d trials, Trials says %d", sh, got, n, sh.Trials(n))
			}
		}
		for i, k := range owners {
			if k != 1 {
				t.Fatalf("trial %d in %d parts", i, k)
			}
		}
	})
}

func TestParseShardRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"3":         "want I/N",
		"a/4":       "with integers",
		"4/4":       "numbered 0 to 3",
		"-1/4":      "numbered 0 to 3",
		"0/0":       "want 1 to 100000",
		"0/1e6":     "with integers",
		"0/2000000": "want 1 to 100000",
	} {
		if _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error with %q", in, err, want)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	for _, c := range []struct {
		env        map[string]string
		want       Shard
		from, fail string
	}{
		{env: nil},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, want: Shard{2, 4}, from: EnvSlurmTaskID},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, want: Shard{2, 4}, from: EnvSlurmTaskID},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2"}, want: Shard{3, 4}, from: EnvSlurmTaskID},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "8"}, want: Shard{0, 8}, from: EnvJobIndex},
		// Slurm first: a Slurm job inside a pod is a Slurm task
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2", "JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "8"}, want: Shard{1, 2}, from: EnvSlurmTaskID},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, fail: "SLURM_ARRAY_TASK_COUNT is not"},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"}, fail: `SLURM_ARRAY_TASK_ID="x": not an integer`},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "3"}, fail: "sparse --array"},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "2"}, fail: "not a task of a regular array"},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "1"}, fail: "JOB_COMPLETIONS is not"},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "5", "JOB_COMPLETIONS": "5"}, fail: "numbered 0 to 4"},
		// values are bounded before any arithmetic: a message echoes them as set, never
		// a difference that overflowed ("part 9223372036854775807 of 4")
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "-9223372036854775808", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, fail: "SLURM_ARRAY_TASK_ID=-9223372036854775808: want an integer from 0 to 2147483648"},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "9223372036854775807", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "-1"}, fail: "SLURM_ARRAY_TASK_ID=9223372036854775807: want an integer from 0 to 2147483648"},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "-9223372036854775808"}, fail: "SLURM_ARRAY_TASK_MIN=-9223372036854775808: want"},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "99999999999999999999", "SLURM_ARRAY_TASK_COUNT": "4"}, fail: "SLURM_ARRAY_TASK_ID=99999999999999999999: want an integer from 0 to"},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "99999999999999999999", "JOB_COMPLETIONS": "4"}, fail: "JOB_COMPLETION_INDEX=99999999999999999999: want an integer from 0 to"},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "x"}, fail: `JOB_COMPLETIONS="x": not an integer`},
	} {
		sh, from, err := ShardFromEnv(func(k string) string { return c.env[k] })
		switch {
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
			t.Errorf("%v: %v, want an error with %q", c.env, err, c.fail)
		case c.fail == "" && (err != nil || sh != c.want || from != c.from):
			t.Errorf("%v: %v from %q (%v), want %v from %q", c.env, sh, from, err, c.want, c.from)
		}
	}
}

// A sharded Run runs only its part's trials, into its checkpoint; the parts' trials are
// the whole run's (merged from their parent folder or from the parts named one by one),
// and a ResumeOnly run over the merged file runs nothing and returns them.
// ResumeOnly with a trial missing refuses, naming it.
func TestEngineShardsAndResumeOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	whole, err := Engine{Workers: 2}.Run(ctx, gausstest.NewCounting(-1), 7, 11)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for p := range 3 {
		sub := gausstest.NewCounting(-1)
		d := filepath.Join(dir, Shard{p, 3}.Name())
		os.MkdirAll(filepath.Join(d, "trials"), 0o755)
		file := "trials/" + filepath.Base(CheckpointPath("", sub, 7))
		res, err := Engine{Workers: 2, Shard: Shard{p, 3}, Checkpoint: filepath.Join(d, file)}.Run(ctx, sub, 7, 11)
		if err != nil || res != nil {
			t.Fatalf("part %d: %v, %d results returned", p, err, len(res))
		}
		if got, want := int(sub.Runs.Load()), (Shard{p, 3}).Trials(11); got != want {
			t.Fatalf("part %d ran %d trials, want %d", p, got, want)
		}
		subj := []ShardSubject{{Name: sub.Name(), Fingerprint: Fingerprint(sub), File: file, Params: ParamsOf(sub)}}
		m := ShardManifest{Tool: "test", Shard: Shard{p, 3}.String(), Args: []string{"--x=1"}, Seed: 7, Trials: 11, Subjects: subj, Complete: true}
		m.Fingerprint = RunFingerprint(m.Tool, m.Args, "", 7, 11, subj)
		if err := WriteShardManifest(d, m, nil); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	if _, err := (Engine{Shard: Shard{0, 3}}).Run(ctx, gausstest.NewCounting(-1), 7, 11); err == nil {
		t.Error("a sharded run without a checkpoint was accepted")
	}
	// The parts merge alike whether given as their parent folder or one by one, out of
	// order (merging puts them in part order).
	slices.Reverse(dirs)
	var out string
	for _, given := range [][]string{{dir}, dirs} {
		set, err := MergeShards(context.Background(), given, nil)
		if err != nil {
			t.Fatalf("merge %v: %v", given, err)
		}
		if len(set.Shards) != 3 {
			t.Fatalf("merge %v: %d parts, want 3", given, len(set.Shards))
		}
		for i, f := range set.Shards {
			if want := (Shard{i, 3}); f.Shard != want || f.Dir != filepath.Join(dir, want.Name()) {
				t.Errorf("merge %v: part %d is %s from %s", given, i, f.Shard, f.Dir)
			}
		}
		out = t.TempDir()
		if err := set.WriteCheckpoints(nil, out); err != nil {
			t.Fatal(err)
		}
		sub := gausstest.NewCounting(-1)
		got, err := Engine{ResumeOnly: true, Checkpoint: CheckpointPath(out, sub, 7)}.Run(ctx, sub, 7, 11)
		if err != nil {
			t.Fatal(err)
		}
		if sub.Runs.Load() != 0 {
			t.Errorf("merge %v: the resumed run ran %d trials", given, sub.Runs.Load())
		}
		if diff := cmp.Diff(whole, got); diff != "" {
			t.Errorf("merge %v: merged parts differ from the whole run:\n%s", given, diff)
		}
	}
	sub := gausstest.NewCounting(-1)
	if _, err := (Engine{ResumeOnly: true, Checkpoint: CheckpointPath(out, sub, 7)}).Run(ctx, sub, 7, 13); err == nil || !strings.Contains(err.Error(), "trials 11, 12") {
		t.Errorf("ResumeOnly with trials 11 and 12 missing: %v", err)
	}
}

// A manifest that is not one this tool wrote is refused with the file and the field.
func TestReadShardManifestRefuses(t *testing.T) {
	dir := t.TempDir()
	fp := RunFingerprint("t", []string{}, "", 1, 4, []ShardSubject{{Name: "s", Fingerprint: "g", File: "trials/s.jsonl", Params: 3}})
	good := `{"schema":"unlearnaudit/shard/v1","tool":"t","shard":"0/2","from":"--shard","fingerprint":"` + fp + `","dir":"/","args":[],"seed":1,"trials":4,"subjects":[{"name":"s","fingerprint":"g","file":"trials/s.jsonl","params":3}],"complete":true}`
	for _, c := range []struct{ body, want string }{
		{good, ""},
		// an edited manifest is named: its fingerprint is no longer its settings'
		{strings.Replace(good, `"seed":1`, `"seed":2`, 1), "edited: its fingerprint"},
		{strings.Replace(good, `"args":[]`, `"args":["--trials=9"]`, 1), "edited: its fingerprint"},
		{strings.Replace(good, `"fingerprint":"g"`, `"fingerprint":"h"`, 1), "edited: its fingerprint"},
		{strings.Replace(good, `"0/2"`, `"2/2"`, 1), "field shard"},
		{strings.Replace(good, `"trials":4`, `"trials":0`, 1), "field trials"},
		{strings.Replace(good, `trials/s.jsonl`, `../../etc/passwd`, 1), "subjects[0].file"},
		{strings.Replace(good, `"complete":true`, `"complete":true,"extra":1`, 1), "unknown field"},
		// the dimension bounds the checkpoint's lines: an older manifest without it is
		// refused, naming the field and what to do
		{strings.Replace(good, `,"params":3`, ``, 1), "subjects[0].params: missing (an older version's manifest"},
		{strings.Replace(good, `"params":3`, `"params":-1`, 1), "subjects[0].params: -1, want 1 to 2147483648"},
		{strings.Replace(good, `"params":3`, `"params":2147483649`, 1), "subjects[0].params: 2147483649, want 1 to"},
		{strings.Replace(good, `"params":3`, `"params":4`, 1), "edited: its fingerprint"},
		{strings.Replace(good, `shard/v1`, `shard/v0`, 1), "schema"},
		{strings.Repeat(" ", maxManifestBytes+1), "larger than"},
		// decoding errors in the file's terms, not "EOF" or Go's type names
		{"", "empty: no JSON in it"},
		{good[:len(good)/2], "the file ends inside a value"},
		{strings.Replace(good, `"seed":1`, `"seed":-1`, 1), "field seed: a JSON number -1 where a whole number from 0 to"},
	} {
		p := filepath.Join(dir, "shard.json")
		os.WriteFile(p, []byte(c.body), 0o644)
		_, err := ReadShardManifest(p, nil)
		if (c.want == "") != (err == nil) || (err != nil && (!strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p))) {
			t.Errorf("%.60s: %v, want %q naming the file", c.body, err, c.want)
		}
	}
}

// FuzzReadShardManifest: any bytes are read or refused, never a panic, and a manifest
// read names only files inside its folder.
func FuzzReadShardManifest(f *testing.F) {
	f.Add([]byte(`{"schema":"unlearnaudit/shard/v1","shard":"0/2","trials":4,"subjects":[{"name":"s","file":"trials/s.jsonl"}]}`))
	f.Add([]byte(`{"schema":"unlearnaudit/shard/v1","shard":"1/2","trials":4,"subjects":[{"name":"s","file":"/abs"}]}`))
	f.Add([]byte(`null`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte) {
		p := filepath.Join(dir, "shard.json")
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadShardManifest(p, nil)
		if err != nil {
			return
		}
		for _, s := range m.Subjects {
			if filepath.IsAbs(s.File) || strings.Contains(s.File, "..") {
				t.Fatalf("accepted file %q outside the folder", s.File)
			}
		}
	})
}

// batchSubject runs trials in batches through the Gaussian subject's own runs (so its
// results are the same bits batched or not) and records the batches it was given.
type batchSubject struct {
	gausstest.Counting
	k       int
	mu      sync.Mutex
	batches [][]int
}

func (b *batchSubject) BatchSize() int { return b.k }

func (b *batchSubject) RunTrials(ctx context.Context, seed uint64, indices []int) ([]TrialResult, error) {
	b.mu.Lock()
	b.batches = append(b.batches, append([]int(nil), indices...))
	b.mu.Unlock()
	out := make([]TrialResult, len(indices))
	for k, i := range indices {
		st := reference.Streams{Seed: seed, Trial: i}
		u, _ := b.Counting.Unlearned(ctx, st)
		r, _ := b.Counting.Retrained(ctx, st)
		out[k] = TrialResult{Index: i, Unlearned: u, Retrained: r}
	}
	return out, nil
}

// The engine hands a BatchSubject batches aligned on multiples of its size (so a trial's
// companions do not depend on what was resumed), and its results equal the one-by-one
// run's whatever the workers and resumes.
func TestEngineBatches(t *testing.T) {
	ctx := context.Background()
	one, err := Engine{Workers: 1}.Run(ctx, gausstest.NewCounting(-1), 5, 23)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		bs := &batchSubject{Counting: gausstest.NewCounting(-1), k: 8}
		path := filepath.Join(t.TempDir(), "trials.jsonl")
		// a first run stopped after 11 trials (a shard of them), then the rest
		if _, err := (Engine{Workers: workers, Checkpoint: path, Shard: Shard{Index: 0, Count: 2}}).Run(ctx, bs, 5, 23); err != nil {
			t.Fatal(err)
		}
		got, err := Engine{Workers: workers, Checkpoint: path}.Run(ctx, bs, 5, 23)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(one, got); diff != "" {
			t.Fatalf("%d workers: batched results differ from one by one:\n%s", workers, diff)
		}
		for _, b := range bs.batches {
			if len(b) > 8 || b[0]/8 != b[len(b)-1]/8 {
				t.Errorf("%d workers: batch %v is not within one aligned block of 8", workers, b)
			}
		}
		if len(bs.batches) != 6 { // evens of 0–7, 8–15, 16–22, then the odds of each
			t.Errorf("%d workers: %d batches %v, want 6", workers, len(bs.batches), bs.batches)
		}
	}
}

// readLine returns lines whole across the reader's buffer, the last one without its
// newline with io.EOF, and refuses a line past its bound before holding it.
func TestReadLineBound(t *testing.T) {
	long := strings.Repeat("x", 100)
	r := bufio.NewReaderSize(strings.NewReader("short\n"+long+"\n"+long+"\ntail"), 16)
	for k, want := range []string{"short\n", long + "\n"} {
		got, err := readLine(r, 101)
		if err != nil || string(got) != want {
			t.Fatalf("line %d: %q, %v; want %q", k+1, got, err, want)
		}
	}
	if _, err := readLine(r, 100); !errors.Is(err, errLineTooLong) {
		t.Fatalf("a 101-byte line under a bound of 100: %v, want errLineTooLong", err)
	}
	r = bufio.NewReaderSize(strings.NewReader("tail"), 16)
	if got, err := readLine(r, 100); string(got) != "tail" || !errors.Is(err, io.EOF) {
		t.Fatalf("last line: %q, %v; want \"tail\", EOF", got, err)
	}
	if _, err := MergeShards(context.Background(), nil, nil); err == nil {
		t.Fatal("MergeShards of no folders: no error")
	}
}
