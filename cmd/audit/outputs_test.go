package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
)

// proc is the audit binary running in its own process: this test binary, which
// testscript.Main (TestMain) put on $PATH as "audit".
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func startAudit(t *testing.T, dir string, args ...string) *proc {
	t.Helper()
	path, err := exec.LookPath("audit")
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: exec.Command(path, args...)}
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	return p
}

// wait waits for the process and returns its exit code.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// waitFor polls until cond holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// lockHolder is the pid a folder's lock file names, 0 if none.
func lockHolder(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, outdir.LockFile))
	var h struct{ PID int }
	if err != nil || json.Unmarshal(b, &h) != nil {
		return 0
	}
	return h.PID
}

// snapshot is every file under dir with its hash, but the tool's bookkeeping.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	m := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		m[path] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameSnapshot(t *testing.T, before, after map[string][32]byte) {
	t.Helper()
	for p, h := range before {
		if g, ok := after[p]; !ok || g != h {
			t.Errorf("%s was changed or removed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was written", p)
		}
	}
}

// userFiles fills dir with files a user keeps there, report-named ones among them.
func userFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("the user's own "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// slowSpec is an audit that takes a second or more: long enough for a second process,
// a signal or a kill to arrive while it runs.
const slowSpec = `{"schema": "unlearnaudit/spec/v1",
 "method": {"name": "d2d", "variants": ["perfect"]},
 "claim": {"epsilon": 1, "delta": 0.01}, "attacks": ["game"], "trials": 600, "seed": 3}
`

func writeSpec(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The first report: a run removed report.{json,md,html,pdf} from its folder,
// whoever wrote them, even when SIGINT stopped it 0.4 s in. Now a folder holding report
// files the tool did not write is refused at once (exit 2, naming them and --force), and
// nothing in it changes, for every command that writes reports.
func TestUserReportsSurvive(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "spec.json", slowSpec)
	out := filepath.Join(dir, "out")
	userFiles(t, out, "report.json", "report.md", "report.html", "report.pdf", "notes.txt")
	verifySpec := writeSpec(t, dir, "claim.json", `{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-3}}`)
	before := snapshot(t, dir)

	// No signal is sent: the refusal comes before any work, and a run that wrongly
	// started would end with its report written (exit 0 or 1), not 2. (A SIGINT sent
	// after a fixed sleep, "it has exited already", reached a process a loaded machine
	// had not yet started: exit -1, a flake.)
	p := startAudit(t, dir, "run", "--spec", spec, "--out", out, "--quiet", "--controls=false")
	if code := p.wait(t); code != exitUsage {
		t.Fatalf("run into a folder of the user's reports: exit %d, want 2; stderr: %s", code, &p.stderr)
	}
	for _, w := range []string{filepath.Join(out, "report.json"), filepath.Join(out, "report.pdf"), "not written by this tool", "--force"} {
		if !strings.Contains(p.stderr.String(), w) {
			t.Errorf("message %q lacks %q", &p.stderr, w)
		}
	}
	sameSnapshot(t, before, snapshot(t, dir))

	models := filepath.Join("testdata", "verify")
	for _, args := range [][]string{
		{"demo", "--out", out, "--trials", "8", "--variants", "strongly-convex"},
		{"demo", "--one-run", "--out", out, "--variants", "strongly-convex"},
		{"verify", "--spec", verifySpec, "--unlearned", filepath.Join(models, "good"), "--retrained", filepath.Join(models, "retrained"), "--out", out},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, filepath.Join(out, "report.json")) || !strings.Contains(stderr, "--force") {
			t.Errorf("%v: exit %d, %q; want 2 naming report.json and --force", args[0], code, stderr)
		}
		sameSnapshot(t, before, snapshot(t, dir))
	}

	userFiles(t, out, "d2d-accuracy.json")
	before = snapshot(t, dir)
	if _, stderr, code := runCLI(t, "reproduce", "d2d-accuracy", "--out", out); code != exitUsage || !strings.Contains(stderr, filepath.Join(out, "d2d-accuracy.json")) {
		t.Errorf("reproduce over the user's d2d-accuracy.json: exit %d, %q; want 2 naming it", code, stderr)
	}
	sameSnapshot(t, before, snapshot(t, dir))

	// --force takes the folder over: the reports are the run's, the notes stay
	if _, stderr, code := runCLI(t, "demo", "--out", out, "--trials", "8", "--variants", "strongly-convex", "--delta", "0.01", "--force"); code == exitUsage {
		t.Fatalf("--force: %s", stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "the user's own notes.txt\n" {
		t.Errorf("notes.txt after --force: %q", b)
	}
	for _, f := range []string{"report.html", "report.pdf"} { // not among this run's formats
		if _, err := os.Stat(filepath.Join(out, f)); !os.IsNotExist(err) {
			t.Errorf("--force left the old %s (%v)", f, err)
		}
	}
	if _, _, code := runCLI(t, "demo", "--out", out, "--trials", "8", "--variants", "strongly-convex", "--delta", "0.01"); code == exitUsage {
		t.Error("the run after --force was refused: the folder is the tool's now")
	}
}

// A run that fails or is interrupted (SIGINT after its start, in its own process) keeps
// the user's files; it removes its own earlier report (it must not sit beside the failure
// as this run's result), and the run after it resumes.
func TestFailedAndInterruptedRunsKeepUserFiles(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "spec.json", slowSpec)
	out := filepath.Join(dir, "out")
	args := []string{"run", "--spec", spec, "--out", out, "--quiet", "--controls=false", "--workers", "1"}
	if _, stderr, code := runCLI(t, append(args, "--trials", "16")...); code == exitUsage {
		t.Fatalf("first run: %s", stderr)
	}
	userFiles(t, out, "notes.txt", "data.csv")
	userFiles(t, filepath.Join(out, "trials"), "mine.jsonl")
	keep := func() {
		t.Helper()
		for _, f := range []string{"notes.txt", "data.csv", filepath.Join("trials", "mine.jsonl")} {
			if b, err := os.ReadFile(filepath.Join(out, f)); err != nil || !strings.HasPrefix(string(b), "the user's own") {
				t.Errorf("%s: %q, %v", f, b, err)
			}
		}
		if _, err := os.Stat(filepath.Join(out, "report.json")); !os.IsNotExist(err) {
			t.Errorf("the earlier report is left beside the failure (%v)", err)
		}
	}

	p := startAudit(t, dir, args...)
	checkpoint := func() int {
		files, _ := filepath.Glob(filepath.Join(out, "trials", "d2d-perfect-*.jsonl"))
		if len(files) != 1 {
			return 0
		}
		b, _ := os.ReadFile(files[0])
		return bytes.Count(b, []byte("\n"))
	}
	waitFor(t, "the run to hold the folder and add trials", func() bool { return lockHolder(out) == p.cmd.Process.Pid && checkpoint() > 18 })
	p.cmd.Process.Signal(os.Interrupt)
	if code := p.wait(t); code != exitInterrupted {
		t.Fatalf("interrupted run: exit %d, want 130; stderr: %s", code, &p.stderr)
	}
	keep()
	if _, err := os.Stat(filepath.Join(out, outdir.LockFile)); !os.IsNotExist(err) {
		t.Errorf("the interrupted run left its lock file (%v)", err)
	}

	// a failure: the checkpoint damaged by hand
	files, _ := filepath.Glob(filepath.Join(out, "trials", "d2d-perfect-*.jsonl"))
	b, _ := os.ReadFile(files[0])
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(files[0], []byte(lines[0]+"{}\n"+strings.Join(lines[2:], "")), 0o644)
	if _, stderr, code := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, "--fresh") {
		t.Fatalf("damaged checkpoint: exit %d, %s", code, stderr)
	}
	keep()
	if _, stderr, code := runCLI(t, append(args, "--fresh", "--trials", "16")...); code == exitUsage {
		t.Fatalf("--fresh: %s", stderr)
	}
	left := snapshot(t, filepath.Join(out, "trials"))
	if _, ok := left[filepath.Join(out, "trials", "mine.jsonl")]; !ok {
		t.Error("--fresh removed the user's trial file")
	}
}

// The second report: two runs resuming one part at once (a requeued Slurm task
// beside its old copy) tore its checkpoint. Now the second, in its own process, exits 2
// naming the first's pid and host; the first finishes, its checkpoint whole; the part then
// merges with the other into the one-machine run's report.
func TestRequeuedShard(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "spec.json", slowSpec)
	part := []string{"run", "--spec", spec, "--shard", "0/2", "--out", "shards", "--quiet", "--controls=false", "--workers", "1"}
	a, b := startAudit(t, dir, part...), startAudit(t, dir, part...)
	codeA, codeB := a.wait(t), b.wait(t)
	if codeA == exitUsage {
		a, b, codeA, codeB = b, a, codeB, codeA
	}
	host, _ := os.Hostname()
	if codeA != exitPass || codeB != exitUsage {
		t.Fatalf("two writers of one part: exits %d and %d, want 0 and 2; stderr: %s / %s", codeA, codeB, &a.stderr, &b.stderr)
	}
	want := fmt.Sprintf("in use by process %d on host %s", a.cmd.Process.Pid, host)
	if !strings.Contains(b.stderr.String(), want) || !strings.Contains(b.stderr.String(), filepath.Join("shards", "shard-0-of-2")) {
		t.Errorf("the refused writer says %q; want %q and the part's folder", &b.stderr, want)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "shards", "shard-0-of-2", "trials", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("checkpoints %v", files)
	}
	text, _ := os.ReadFile(files[0])
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	for k, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("%s:%d is torn: %.80q", files[0], k+1, l)
		}
	}
	if len(lines) != 1+300 {
		t.Errorf("%s holds %d lines; want the header and 300 trials, each once", files[0], len(lines))
	}
	// the requeued task, now alone, resumes: nothing to do
	if p := startAudit(t, dir, part...); p.wait(t) != exitPass {
		t.Fatalf("the rerun of the part: %s", &p.stderr)
	}
	if p := startAudit(t, dir, append(part[:4:4], "1/2", "--out", "shards", "--quiet", "--controls=false")...); p.wait(t) != exitPass {
		t.Fatalf("part 1: %s", &p.stderr)
	}
	if _, stderr, code := runCLI(t, "merge", filepath.Join(dir, "shards"), "--out", filepath.Join(dir, "merged"), "--quiet"); code == exitUsage {
		t.Fatalf("merge: %s", stderr)
	}
}

// A process killed with SIGKILL while it runs leaves its lock file and a torn last line;
// the next run takes the folder over and finishes with the report an uninterrupted run
// writes, byte for byte.
func TestKilledRunIsTakenOver(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "spec.json", slowSpec)
	args := func(out string) []string {
		return []string{"run", "--spec", spec, "--out", out, "--quiet", "--controls=false", "--trials", "200"}
	}
	out := filepath.Join(dir, "out")
	p := startAudit(t, dir, args(out)...)
	waitFor(t, "the run to hold the folder and add trials", func() bool {
		files, _ := filepath.Glob(filepath.Join(out, "trials", "*.jsonl"))
		if len(files) != 1 || lockHolder(out) != p.cmd.Process.Pid {
			return false
		}
		b, _ := os.ReadFile(files[0])
		return bytes.Count(b, []byte("\n")) > 10
	})
	// a second run into the folder meanwhile (a resume beside its old copy): refused
	host, _ := os.Hostname()
	if _, stderr, code := runCLI(t, args(out)...); code != exitUsage || !strings.Contains(stderr, fmt.Sprintf("process %d on host %s", p.cmd.Process.Pid, host)) {
		t.Errorf("a second writer: exit %d, %q; want 2 naming the holder", code, stderr)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t)
	if lockHolder(out) != p.cmd.Process.Pid {
		t.Fatal("the killed run's lock file is gone: nothing was taken over")
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); !os.IsNotExist(err) {
		t.Fatalf("a killed run wrote a report? %v", err)
	}
	q := startAudit(t, dir, args(out)...)
	if code := q.wait(t); code == exitUsage {
		t.Fatalf("the run after the kill: exit 2: %s", &q.stderr)
	}
	if _, _, code := runCLI(t, args(filepath.Join(dir, "whole"))...); code == exitUsage {
		t.Fatal("the uninterrupted run was refused")
	}
	_, got := readReport(t, out)
	if _, want := readReport(t, filepath.Join(dir, "whole")); !bytes.Equal(got, want) {
		t.Error("the run that took over a killed one wrote another report than an uninterrupted run")
	}
}

// A failed verify leaves no earlier report in its folder that would read as its result.
func TestFailedVerifyRemovesItsEarlierReport(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "claim.json", `{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-3}}`)
	out := filepath.Join(dir, "out")
	models := filepath.Join("testdata", "verify")
	good := []string{"verify", "--spec", spec, "--unlearned", filepath.Join(models, "good"), "--retrained", filepath.Join(models, "retrained"), "--out", out}
	if _, stderr, code := runCLI(t, good...); code != exitInconclusive {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	userFiles(t, out, "notes.txt")
	bad := writeSpec(t, dir, "bad.npy", "not a matrix")
	_, stderr, code := runCLI(t, "verify", "--spec", spec, "--unlearned", bad, "--retrained", filepath.Join(models, "retrained"), "--out", out)
	if code != exitUsage || !strings.Contains(stderr, bad) {
		t.Fatalf("exit %d, %s; want 2 naming %s", code, stderr, bad)
	}
	for _, f := range pipeline.ReportNames() {
		if _, err := os.Stat(filepath.Join(out, f)); !os.IsNotExist(err) {
			t.Errorf("the failed verify left the earlier %s (%v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "notes.txt")); err != nil {
		t.Errorf("the failed verify removed the user's notes: %v", err)
	}
}

// Output paths that would replace an input, lie inside a shard part that merge reads, or
// are empty are refused, naming both, before anything is written.
func TestRefusedOutputPaths(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "spec.json", `{"schema": "unlearnaudit/spec/v1", "method": {"name": "d2d", "variants": ["strongly-convex"]},
 "claim": {"epsilon": 1, "delta": 0.01}, "trials": 8, "seed": 2}`)
	if _, stderr, code := runCLI(t, "run", "--spec", spec, "--out", filepath.Join(dir, "r"), "--controls=false"); code == exitUsage {
		t.Fatal(stderr)
	}
	rep := filepath.Join(dir, "r", "report.json")
	for _, sh := range []string{"0/2", "1/2"} {
		if _, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", sh, "--out", filepath.Join(dir, "shards"), "--controls=false"); code != exitPass {
			t.Fatal(stderr)
		}
	}
	part := filepath.Join(dir, "shards", "shard-0-of-2")
	data := writeSpec(t, dir, "d.csv", "1,2,1\n")
	specIn := func(name string) string { // a spec that is itself report.json in its --out
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		b, _ := os.ReadFile(spec)
		return writeSpec(t, filepath.Join(dir, name), "report.json", string(b))
	}
	outSpec := func(outDir string) string {
		return writeSpec(t, dir, "out-"+fmt.Sprint(len(outDir))+".json", `{"schema": "unlearnaudit/spec/v1", "method": {"name": "d2d", "variants": ["strongly-convex"]},
 "claim": {"epsilon": 1, "delta": 0.01}, "trials": 8, "outputs": {"dir": `+fmt.Sprintf("%q", outDir)+`}}`)
	}
	absolute := filepath.Join(t.TempDir(), "elsewhere")
	users := filepath.Join(dir, "users")
	userFiles(t, users, "report.json")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"demo into an empty --out", []string{"demo", "--out="}, []string{"--out: empty"}},
		{"run into an empty --out", []string{"run", "--spec", spec, "--out="}, []string{"--out: empty"}},
		{"verify into an empty --out", []string{"verify", "--spec", spec, "--unlearned", data, "--out="}, []string{"--out: empty"}},
		{"reproduce into an empty --out", []string{"reproduce", "d2d-accuracy", "--out="}, []string{"--out: empty"}},
		{"canaries into an empty --out", []string{"canaries", "--seed", "1", "--out="}, []string{"--out: empty"}},
		{"report into an empty --out", []string{"report", "--in", rep, "--out="}, []string{"--out: empty"}},
		{"run into its spec", []string{"run", "--spec", spec, "--out", spec}, []string{"--out " + spec + " is the input --spec"}},
		{"demo into its data", []string{"demo", "--data", data, "--format", "csv", "--out", data}, []string{"is the input --data " + data}},
		{"run whose spec is the report it writes", []string{"run", "--spec", specIn("s1"), "--out", filepath.Join(dir, "s1")}, []string{filepath.Join(dir, "s1", "report.json") + " is the input --spec"}},
		{"verify into its models", []string{"verify", "--spec", spec, "--unlearned", filepath.Join("testdata", "verify", "good"), "--out", filepath.Join("testdata", "verify", "good")}, []string{"is the input --unlearned"}},
		{"report replacing its source", []string{"report", "--in", rep, "--format", "md", "--out", rep}, []string{"--out " + rep + " is the input --in " + rep}},
		{"merge into a part", []string{"merge", filepath.Join(dir, "shards"), "--out", part}, []string{"--out " + part + " is the input shard part"}},
		{"merge into the user's report", []string{"merge", filepath.Join(dir, "shards"), "--out", users}, []string{filepath.Join(users, "report.json") + " was not written by this tool", "--force"}},
		{"merge inside a part", []string{"merge", filepath.Join(dir, "shards"), "--out", filepath.Join(part, "trials")}, []string{"is inside shard part " + part}},
		{"a spec's absolute outputs.dir", []string{"run", "--spec", outSpec(absolute)}, []string{"outputs.dir", "want a folder inside the spec's own folder", "--out"}},
		{"a spec's outputs.dir climbing out", []string{"run", "--spec", outSpec("../x")}, []string{"outputs.dir", `"../x"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, dir)
			_, stderr, code := runCLI(t, c.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2; stderr %s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("message %q lacks %q", stderr, w)
				}
			}
			sameSnapshot(t, before, snapshot(t, dir))
			if _, err := os.Stat(absolute); !os.IsNotExist(err) {
				t.Errorf("%s was created", absolute)
			}
		})
	}
}
