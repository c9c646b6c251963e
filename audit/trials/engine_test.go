package trials

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
)

func TestEngineIndependentOfWorkers(t *testing.T) {
	ctx := context.Background()
	one, err := Engine{Workers: 1}.Run(ctx, gausstest.NewCounting(-1), 9, 30)
	if err != nil {
		t.Fatal(err)
	}
	four, err := Engine{Workers: 4}.Run(ctx, gausstest.NewCounting(-1), 9, 30)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(one, four); diff != "" {
		t.Fatalf("results depend on the worker count:\n%s", diff)
	}
	other, _ := Engine{Workers: 4}.Run(ctx, gausstest.NewCounting(-1), 10, 30)
	if cmp.Equal(one, other) {
		t.Fatal("a different seed gave the same trials")
	}
}

func TestEngineResumesFromCheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	fresh, err := Engine{Workers: 2}.Run(ctx, gausstest.NewCounting(-1), 3, 20)
	if err != nil {
		t.Fatal(err)
	}
	// An audit dies at trial 12: the run fails, but the finished trials are on disk.
	broken := gausstest.NewCounting(12)
	if _, err := (Engine{Workers: 1, Checkpoint: path}).Run(ctx, broken, 3, 20); err == nil || !strings.Contains(err.Error(), "trial 12") {
		t.Fatalf("got %v; want the error of trial 12", err)
	}
	if n := broken.Runs.Load(); n != 12 {
		t.Fatalf("%d trials ran before the failure, want 12", n)
	}
	// Resume: only the 8 missing trials run, and the results equal a fresh run.
	again := gausstest.NewCounting(-1)
	got, err := Engine{Workers: 2, Checkpoint: path}.Run(ctx, again, 3, 20)
	if err != nil {
		t.Fatal(err)
	}
	if n := again.Runs.Load(); n != 8 {
		t.Fatalf("resume ran %d trials, want 8", n)
	}
	if diff := cmp.Diff(fresh, got); diff != "" {
		t.Fatalf("resumed results differ from a fresh run:\n%s", diff)
	}
	// A third run reads everything back and runs nothing.
	idle := gausstest.NewCounting(-1)
	if _, err := (Engine{Checkpoint: path}).Run(ctx, idle, 3, 20); err != nil || idle.Runs.Load() != 0 {
		t.Fatalf("complete checkpoint: err %v, %d trials ran", err, idle.Runs.Load())
	}
}

func TestEngineDropsTornLastLine(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	if _, err := (Engine{Checkpoint: path}).Run(ctx, gausstest.NewCounting(-1), 5, 6); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(b), "\n")
	// keep the header and trials 0..3 whole, then half of trial 4's line: an interrupted write
	torn := strings.Join(lines[:5], "") + lines[5][:len(lines[5])/2]
	os.WriteFile(path, []byte(torn), 0o644)
	c := gausstest.NewCounting(-1)
	got, err := Engine{Checkpoint: path}.Run(ctx, c, 5, 6)
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs.Load() != 2 {
		t.Fatalf("after a torn line %d trials reran, want 2", c.Runs.Load())
	}
	want, _ := Engine{}.Run(ctx, gausstest.NewCounting(-1), 5, 6)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
	b, _ = os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n != 7 {
		t.Fatalf("checkpoint has %d lines, want header + 6", n)
	}
}

func TestEngineRefusesForeignCheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	if _, err := (Engine{Checkpoint: path}).Run(ctx, gausstest.NewCounting(-1), 5, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := (Engine{Checkpoint: path}).Run(ctx, gausstest.NewCounting(-1), 6, 3); err == nil || !strings.Contains(err.Error(), "another audit: seed 5, not 6") {
		t.Fatalf("another seed: %v; want a refusal naming the seeds", err)
	}
	otherClaim := gausstest.NewCounting(-1)
	otherClaim.Rho *= 2 // the same ε and δ, another ρ
	if _, err := (Engine{Checkpoint: path}).Run(ctx, otherClaim, 5, 3); err == nil || !strings.Contains(err.Error(), "another audit: the claim's constants or derivation") {
		t.Fatalf("another claim: %v", err)
	}
	os.WriteFile(path, []byte("{\"schema\":\"x\"}\n"), 0o644)
	if _, err := (Engine{Checkpoint: path}).Run(ctx, gausstest.NewCounting(-1), 5, 3); err == nil || !strings.Contains(err.Error(), path+":1") {
		t.Fatalf("bad header: %v", err)
	}
}

func TestEngineStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := gausstest.NewCounting(-1)
	c.Cancel, c.CancelAt = cancel, 3
	_, err := Engine{Workers: 1}.Run(ctx, c, 1, 1000)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want context.Canceled", err)
	}
	if n := c.Runs.Load(); n > 10 {
		t.Fatalf("%d trials ran after cancellation", n)
	}
}

// Every trial line is verified: a line whose index was edited, one copied from another
// configuration's file, a duplicate, an index out of range and an empty object are each
// refused with the file and line, and nothing of the file is read into results.
func TestEngineVerifiesCheckpointLines(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	if _, err := (Engine{Checkpoint: good}).Run(ctx, gausstest.NewCounting(-1), 5, 4); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.jsonl") // another configuration: another noise scale
	otherSubject := gausstest.NewCounting(-1)
	otherSubject.Rho *= 2 // another claim: another fingerprint
	if _, err := (Engine{Checkpoint: other}).Run(ctx, otherSubject, 5, 4); err != nil {
		t.Fatal(err)
	}
	read := func(p string) []string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return strings.SplitAfter(string(b), "\n")
	}
	lines, foreign := read(good), read(other)
	index := func(line string) int {
		var r TrialResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		return r.Index
	}
	i1 := index(lines[1])
	edited := strings.Replace(lines[1], fmt.Sprintf(`"index":%d`, i1), fmt.Sprintf(`"index":%d`, i1+50), 1)
	for _, c := range []struct {
		name  string
		lines []string // header first
		want  string
	}{
		{"index edited", []string{lines[0], lines[2], edited}, ":3: checksum does not match"},
		{"line from another configuration", []string{lines[0], lines[1], foreign[2]}, ":3: checksum does not match"},
		{"duplicate", []string{lines[0], lines[2], lines[1], lines[1]}, fmt.Sprintf(":4: trial %d again (first at line 3)", i1)},
		{"empty object", []string{lines[0], "{}\n", lines[2]}, ":2: trial line without its checksum"},
		{"not JSON in the middle", []string{lines[0], lines[1], "garbage\n", lines[2]}, ":3: not a trial line"},
		{"unknown field", []string{lines[0], strings.Replace(lines[1], `{`, `{"extra":1,`, 1)}, ":2: not a trial line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trials.jsonl")
			if err := os.WriteFile(path, []byte(strings.Join(c.lines, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			_, err := Engine{Checkpoint: path}.Run(ctx, gausstest.NewCounting(-1), 5, 4)
			var ce *CheckpointError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), path+c.want) {
				t.Fatalf("error %v; want a CheckpointError with %q", err, path+c.want)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("a refused checkpoint was modified")
			}
		})
	}
	// an index out of range needs a valid checksum to get that far: forge one
	var r TrialResult
	if err := json.Unmarshal([]byte(lines[1]), &r); err != nil {
		t.Fatal(err)
	}
	r.Index = MaxTrials
	sum, _ := trialSum(Fingerprint(gausstest.NewCounting(-1)), r)
	forged, _ := json.Marshal(trialLine{TrialResult: r, Sum: sum})
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	os.WriteFile(path, []byte(lines[0]+string(forged)+"\n"), 0o644)
	if _, err := (Engine{Checkpoint: path}).Run(ctx, gausstest.NewCounting(-1), 5, 4); err == nil || !strings.Contains(err.Error(), path+":2: trial index 1000000 out of range") {
		t.Fatalf("index out of range: %v", err)
	}
}

// Progress counts from the trials resumed from the checkpoint up to all of them, one step
// per finished trial.
func TestEngineReportsProgress(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	if _, err := (Engine{Workers: 1, Checkpoint: path}).Run(ctx, gausstest.NewCounting(5), 3, 12); err == nil {
		t.Fatal("trial 5 did not fail")
	}
	var seen []int
	eng := Engine{Workers: 2, Checkpoint: path, Progress: func(name string, done, total int) {
		if total != 12 || name == "" {
			t.Errorf("progress %q %d/%d", name, done, total)
		}
		seen = append(seen, done)
	}}
	if _, err := eng.Run(ctx, gausstest.NewCounting(-1), 3, 12); err != nil {
		t.Fatal(err)
	}
	if want := []int{5, 6, 7, 8, 9, 10, 11, 12}; !slices.Equal(seen, want) {
		t.Errorf("progress %v, want %v", seen, want)
	}
}
