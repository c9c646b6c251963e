package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
)

// auditBinary builds the command once into a temporary folder: the signal tests need a
// real process, with main's signal handling.
var auditBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "audit-signal")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "audit")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", errors.New(string(out))
	}
	return bin, nil
})

// stopGuard is how long a command may go on after SIGTERM before the test kills it and
// fails. It is not a speed the test asserts — a command that ignored the signal shows it
// by what it does (it finishes its work, prints its result, exits 0, 1 or 3) — only a
// bound on how long a test waits for a command whose work would take minutes more.
const stopGuard = 2 * time.Minute

// interrupt starts the command, waits until ready says its phase has begun (polled every
// 20 ms with the process's pid, at most a minute), sends SIGTERM, and asserts what proves the stop: the process
// was running when the signal came, exits 130 (the cancelled status, not the result of
// work it finished), says it was interrupted, prints nothing to stdout (where every
// command prints its result), and, when out names its output folder, leaves no report
// there (nothing partial that looks complete) and no lock file (its folder was closed
// cleanly, not abandoned). It returns what the command printed to stderr.
func interrupt(t *testing.T, ready func(pid int) bool, out string, args ...string) string {
	t.Helper()
	bin, err := auditBinary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(time.Minute); !ready(cmd.Process.Pid); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("%s exited (%v) before its phase began: %s%s", args[0], err, stdout.String(), stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("%s: its phase did not begin within a minute: %s%s", args[0], stdout.String(), stderr.String())
		}
	}
	select {
	case err := <-done:
		t.Fatalf("%s exited (%v) before the signal: %s%s", args[0], err, stdout.String(), stderr.String())
	default:
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(stopGuard):
		cmd.Process.Kill()
		t.Fatalf("%s still running %v after SIGTERM: it ignored the signal: %s%s", args[0], stopGuard, stdout.String(), stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("%s: exit %d after SIGTERM, want %d: %s%s", args[0], code, exitInterrupted, stdout.String(), stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("%s printed a result after SIGTERM: %s", args[0], stdout.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("%s: stderr does not say it was interrupted: %s", args[0], stderr.String())
	}
	// only the commands that keep their finished trials say so
	keeps := slices.Contains([]string{"demo", "run", "merge"}, args[0])
	if says := strings.Contains(stderr.String(), "finished trials are kept"); says != keeps {
		t.Errorf("%s: the hint says trials are kept: %v; they are: %v: %s", args[0], says, keeps, stderr.String())
	}
	if out != "" {
		reps, _ := filepath.Glob(filepath.Join(out, "report.*"))
		if len(reps) > 0 {
			t.Errorf("%s: wrote %v after SIGTERM: a report of work it did not finish", args[0], reps)
		}
		if _, err := os.Lstat(filepath.Join(out, outdir.LockFile)); !os.IsNotExist(err) {
			t.Errorf("%s: its output folder's lock %s is left behind (%v): the folder was not closed", args[0], outdir.LockFile, err)
		}
	}
	return stderr.String()
}

// trialLines counts the lines of the checkpoint files under dir (recursively): a header
// and a line per finished trial each.
func trialLines(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			b, _ := os.ReadFile(p)
			n += bytes.Count(b, []byte("\n"))
		}
		return nil
	})
	return n
}

// cpuTime is the processor time a process has used, user and system, all its threads
// (/proc/PID/stat's utime and stime, in clock ticks of 10 ms).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// the fields after the command name, which ends at the last ')': state is the 3rd
	// field, utime the 14th and stime the 15th
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(u+s) * 10 * time.Millisecond, nil
}

// working is ready once the process has used d of processor time since when first held
// (when nil: since it started). Processor time, not the wall clock, says how far a command
// is into its work, whatever the machine's load: a signal sent 100 ms of wall time after
// the start once came, on a loaded machine, before main had installed its handler, and
// the runtime's default action killed the process (exit -1). The runtime's start uses a
// few milliseconds of processor time, so 100 ms of it is inside the command's own work.
func working(t *testing.T, d time.Duration, when func() bool) func(pid int) bool {
	since := time.Duration(-1)
	return func(pid int) bool {
		used, err := cpuTime(pid)
		if err != nil {
			t.Skipf("the processor time of a process is read from /proc: %v", err)
		}
		if since < 0 {
			if when != nil && !when() {
				return false
			}
			since = used
			if when == nil {
				since = 0
			}
		}
		return used-since >= d
	}
}

// SIGTERM stops every phase of every command, exit 130, before the work it would have
// finished: demo during its trials (not all of them are written) and run during the check
// phase after them (which once ran on for 37 s; no report), plan during its power search
// (7 minutes at δ = 4.9e-324; no answer printed), verify during its game's power (it
// ignored signals; no report), and merge during the checks of the merged trials (no
// report). What it wrote and printed proves the stop, not how soon it came.
func TestSIGTERMEndsEveryPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs it")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "audit.json")
	// 4000 trials: the trials take a tenth of a second, the checks over them seconds, most
	// of it the planner's search for the trials that would decide — at δ = 2e-6, a
	// question its table does not answer (at the table's 1e-6 the checks take half a second)
	os.WriteFile(spec, []byte(`{"schema": "unlearnaudit/spec/v1",
	  "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 12}},
	  "claim": {"epsilon": 1, "delta": 2e-6}, "deletes": [5, 9], "trials": 4000, "seed": 4}`), 0o644)

	t.Run("demo/trials", func(t *testing.T) {
		out := filepath.Join(dir, "demo")
		// the header and two trials of 4000 SGLU trials of 1000 epochs each, which take over
		// a minute on a quiet two-core machine (60 trials a second), written as they finish.
		// D2D's trials would not do: its training is deterministic, done once before the
		// trials, which only draw the noise, so all 4000 land at once in a tenth of a second
		interrupt(t, func(int) bool { return trialLines(out) >= 3 }, out,
			"demo", "--out", out, "--trials", "4000", "--variants", "sglu", "--sglu-epochs", "1000", "--quiet")
		if n := trialLines(out); n >= 4001 {
			t.Errorf("all %d trials finished: the signal came after the trials", n-1)
		}
	})
	t.Run("run/checks", func(t *testing.T) {
		out := filepath.Join(dir, "run")
		// every trial on disk, then 0.3 s of processor time into the checks
		interrupt(t, working(t, 300*time.Millisecond, func() bool { return trialLines(out) == 4001 }), out,
			"run", "--spec", spec, "--out", out, "--controls=false", "--quiet")
		if n := trialLines(out); n != 4001 {
			t.Errorf("%d checkpoint lines after the stop; the 4001 finished were kept before it", n)
		}
	})
	t.Run("plan/power-search", func(t *testing.T) {
		interrupt(t, working(t, 500*time.Millisecond, nil), "", "plan", "--trials", "1000000", "--delta", "4.9e-324", "--claim-epsilon", "1")
	})
	t.Run("verify", func(t *testing.T) {
		vspec := filepath.Join(dir, "verify.json")
		os.WriteFile(vspec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 2e-6}}`), 0o644)
		models := filepath.Join("testdata", "verify")
		// verify reads 80 models and plays its game in about a second; 0.1 s of processor
		// time is inside it
		out := filepath.Join(dir, "verify")
		interrupt(t, working(t, 100*time.Millisecond, nil), out, "verify", "--spec", vspec, "--unlearned", filepath.Join(models, "good"),
			"--retrained", filepath.Join(models, "retrained"), "--out", out)
	})
	// estimate and epsilon compute without watching a context; the command stops anyway
	csv := func(name string, rows, cols int, shift float64) string {
		var b strings.Builder
		r := rand.New(rand.NewPCG(uint64(rows), uint64(cols)))
		for range rows {
			for j := range cols {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%.6f", r.NormFloat64()+shift)
			}
			b.WriteByte('\n')
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("estimate", func(t *testing.T) {
		a, b := csv("ea.csv", 4000, 10, 0), csv("eb.csv", 4000, 10, 0.1)
		interrupt(t, working(t, 300*time.Millisecond, nil), "", "estimate", "--a", a, "--b", b, "--method", "knn", "--reps", "100000")
	})
	t.Run("epsilon", func(t *testing.T) {
		a, b := csv("pa.csv", 400, 3000, 0), csv("pb.csv", 400, 3000, 0.1)
		interrupt(t, working(t, 300*time.Millisecond, nil), "", "epsilon", "--a", a, "--b", b, "--delta", "1e-5", "--strategy", "bonferroni")
	})
	t.Run("merge/checks", func(t *testing.T) {
		shards := filepath.Join(dir, "shards")
		for _, p := range []string{"0/2", "1/2"} {
			if out, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", p, "--out", shards, "--controls=false"); code != 0 {
				t.Fatalf("part %s: exit %d: %s%s", p, code, out, stderr)
			}
		}
		out := filepath.Join(dir, "merged")
		// merged, then 0.3 s of processor time into the checks
		interrupt(t, working(t, 300*time.Millisecond, func() bool { return trialLines(filepath.Join(out, "trials")) == 4001 }), out,
			"merge", shards, "--out", out, "--quiet")
	})
}

// A second signal ends the process at once, with the signal's own default action, even
// while the first one's clean stop cannot finish: here a sharded run has written its part
// and blocks printing its summary to a stdout no one reads (a pipe that is full, as under
// a stopped pager). The first SIGTERM asks for a clean stop, which cannot complete; the
// second kills it: its status is "signal: terminated", the signal's default action, not
// the exit 130 of the clean stop it was still trying — which proves it did not wait for
// that stop, whatever the machine's load.
func TestSecondSignalEndsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs it")
	}
	bin, err := auditBinary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// fill the pipe (its writes time out once it is full): the command's first line blocks
	w.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
	for {
		if _, err := w.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	shards := filepath.Join(dir, "shards")
	cmd := exec.Command(bin, "run", "--spec", spec, "--shard", "0/2", "--out", shards, "--controls=false", "--quiet")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	alive := func(d time.Duration) bool {
		select {
		case err := <-done:
			done <- err
			return false
		case <-time.After(d):
			return true
		}
	}
	manifest := filepath.Join(shards, "shard-0-of-2", "shard.json")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(manifest); bytes.Contains(b, []byte(`"complete": true`)) {
			break
		}
		if !alive(0) || time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the part did not finish its trials: %s", stderr.String())
		}
	}
	if !alive(300 * time.Millisecond) {
		t.Fatalf("the part exited (%v) with its stdout full: the test needs it blocked: %s", <-done, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if !alive(300 * time.Millisecond) {
		t.Fatalf("the part exited (%v) on the first SIGTERM while blocked: the test needs it still stopping: %s", <-done, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Fatalf("after the second SIGTERM: %v; want killed by it (signal: terminated)", err)
		}
	case <-time.After(stopGuard):
		cmd.Process.Kill()
		t.Fatalf("still running %v after the second SIGTERM: %s", stopGuard, stderr.String())
	}
}
