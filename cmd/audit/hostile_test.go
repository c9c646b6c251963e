package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// hostileCase is one input a hostile (or careless) user gives: the CLI must refuse it as
// bad usage (exit 2), name what is wrong, and write nothing.
type hostileCase struct {
	name string
	args []string // {out} stands for a fresh output folder
	want []string // every one must be in the message
}

// runHostile runs each case and checks the exit code, the message, and that the output
// folder it names was not created.
func runHostile(t *testing.T, cases []hostileCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "{out}", out)
			}
			var (
				stderr string
				code   int
			)
			// every refusal comes before the work: well under the 100 MB
			if got := testenv.Allocated(func() { _, stderr, code = runCLI(t, args...) }); got > 100<<20 {
				t.Errorf("%v allocated %d MB before refusing", args, got>>20)
			}
			if code != exitUsage {
				t.Fatalf("%v: exit %d, want %d (bad usage); stderr: %s", args, code, exitUsage, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("message %q lacks %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was created (%v)", out, err)
			}
		})
	}
}

// The inputs issue 11 found crashing, exhausting memory or accepted silently; each is
// now refused before any work, naming the flag, file or setting.
func TestHostileFlagsAndData(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var spread, flat, oneClass strings.Builder
	for i := range 30 {
		fmt.Fprintf(&spread, "%d.%d,%d\n", i%7, (i*37)%11, (i*13)%5)
		fmt.Fprintln(&flat, "1,2")
		fmt.Fprintf(&oneClass, "%d,%d,1\n", i, (i*7)%5)
	}
	a, b, f := write("a.csv", spread.String()), write("b.csv", spread.String()), write("flat.csv", flat.String())
	one := write("oneclass.csv", oneClass.String())
	var huge strings.Builder // the 3.3 KB file: 256 rows with the one feature 1,048,576
	for i := range 256 {
		fmt.Fprintf(&huge, "%s 1048576:1\n", []string{"-1", "+1"}[i%2])
	}
	wide := write("huge.svm", huge.String())
	weak := []string{"bounds", "d2d", "--variant", "convex-weak", "--lipschitz", "1", "--smoothness", "4", "--n", "1000",
		"--iterations", "10", "--epsilon", "1", "--delta", "1e-6", "--dimension", "10", "--radius", "5"}
	dist := []string{"bounds", "d2d", "--variant", "distributed", "--lipschitz", "1", "--smoothness", "4", "--strong-convexity", "1",
		"--n", "1000", "--iterations", "10", "--epsilon", "1", "--delta", "1e-6", "--dimension", "10", "--radius", "5", "--xi", "1.2"}
	runHostile(t, []hostileCase{
		{"knn with a negative rank", []string{"estimate", "--a", a, "--b", b, "--method", "knn", "--k", "-1"}, []string{"--k -1: want an integer in [0, 1000000]"}},
		{"projected on a sample without spread", []string{"estimate", "--a", f, "--b", b, "--method", "projected"}, []string{"projected: sample A has no spread"}},
		{"a billion demo trials", []string{"demo", "--out", "{out}", "--trials", "1000000000"}, []string{"--trials 1000000000: want an integer in [8, 1000000]"}},
		{"negative workers", []string{"demo", "--out", "{out}", "--workers", "-1"}, []string{"--workers -1: want an integer in [0, 1024]"}},
		{"negative SGLU epochs", []string{"demo", "--out", "{out}", "--sglu-epochs", "-5"}, []string{"--sglu-epochs -5: want an integer in [0, 1e5]"}},
		{"a schedule that does not apply", []string{"bounds", "d2d", "--variant", "strongly-convex", "--schedule", "bogus"}, []string{`--schedule "bogus": want paper or fixed`}},
		{"a huge distributed update index", append(dist, "--update-index", "1000000000"), []string{"--update-index 1000000000: want an integer in [1, 1e6]"}},
		{"an update index whose T_i overflows", append(weak, "--xi", "2", "--update-index", "1000000"), []string{"T_1000000", "beyond 2^53"}},
		{"an overflowing number", []string{"demo", "--out", "{out}", "--epsilon", "1e400"}, []string{"--epsilon 1e400: overflows float64"}},
		{"a million features times 200 trials", []string{"demo", "--out", "{out}", "--data", wide, "--format", "libsvm"},
			[]string{"--trials 200", "1200 × 1048576 values exceed the cap of 134217728", "--max-values", "lower --trials"}},
		{"one class after --classes", []string{"demo", "--out", "{out}", "--data", one, "--format", "csv", "--classes", "1,0"}, []string{"--classes", "0 labelled 0", "want both classes"}},
		{"a plan whose claim no trials can show", []string{"plan", "--trials", "10", "--delta", "0.5", "--claim-epsilon", "100", "--factor", "1000"}, []string{"plan: no trial count up to 10⁹ suffices"}},
	})
}

// An interrupted run exits 130, not 2, leaves no empty output folder when no trial
// finished, and leaves no earlier report of its own beside it. A report it did not write
// is the user's: the run is refused before any work, and the file kept.
func TestInterruptedRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"demo", "--out", out, "--trials", "8", "--variants", "strongly-convex"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // interrupted before the first trial finished
	var o, e bytes.Buffer
	err := run(ctx, args, strings.NewReader(""), &o, &e)
	if code := exitCode(err); code != exitInterrupted {
		t.Fatalf("exit %d (%v), want %d", code, err, exitInterrupted)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an interrupted run left %s (%v)", out, err)
	}
	// a folder holding an earlier report of the tool's: the failed run removes the
	// report, keeps the folder
	if _, stderr, code := runCLI(t, append(args, "--delta", "0.01")...); code == exitUsage {
		t.Fatal(stderr)
	}
	stale := filepath.Join(out, "report.json")
	err = run(ctx, args, strings.NewReader(""), &o, &e)
	if exitCode(err) != exitInterrupted {
		t.Fatalf("second run: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("an earlier report was left beside a failed run (%v)", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the user's folder was removed: %v", err)
	}
	// a report the tool did not write is not removed: the run is refused
	os.WriteFile(stale, []byte("{}"), 0o644)
	err = run(ctx, args, strings.NewReader(""), &o, &e)
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), stale) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("third run: %v; want exit 2 naming %s and --force", err, stale)
	}
	if b, err := os.ReadFile(stale); err != nil || string(b) != "{}" {
		t.Errorf("the user's report.json: %q, %v", b, err)
	}
}

// A damaged checkpoint is bad input: exit 2, naming the file and line, with the way out.
func TestDamagedCheckpoint(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"demo", "--out", out, "--trials", "8", "--variants", "strongly-convex"}
	if _, stderr, code := runCLI(t, args...); code == exitUsage {
		t.Fatalf("first run: %s", stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "trials", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("checkpoints %v; want one", files)
	}
	b, _ := os.ReadFile(files[0])
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(files[0], []byte(lines[0]+lines[1]+"{}\n"+strings.Join(lines[2:], "")), 0o644)
	_, stderr, code := runCLI(t, args...)
	if code != exitUsage || !strings.Contains(stderr, files[0]+":3: trial line without its checksum") || !strings.Contains(stderr, "--fresh") {
		t.Fatalf("exit %d: %s; want 2 naming %s:3 and --fresh", code, stderr, files[0])
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); !os.IsNotExist(err) {
		t.Errorf("the earlier report was left beside the refusal (%v)", err)
	}
	if _, stderr, code := runCLI(t, append(args, "--fresh")...); code == exitUsage {
		t.Fatalf("--fresh: %s", stderr)
	}
}

// A 2.4 KB LIBSVM file of 40 rows with 60,000 features once took the machine's memory (a
// 60,000 × 60,000 Hessian). The demo now runs on it: exact ERM without a dense Hessian,
// the empirical direction fitted without a d × d covariance. (δ = 0.01 keeps the run short:
// at the default δ = 1e-6 most of its time goes to planning the trials the empirical game
// would need, which is the same on any data.)
func TestWideLIBSVMDemoRuns(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "%s 1:0.%d 60000:0.5\n", []string{"-1", "+1"}[i%2], i)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "w.svm")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := runCLI(t, "demo", "--out", out, "--data", path, "--format", "libsvm", "--variants", "strongly-convex", "--trials", "8", "--delta", "0.01")
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if !strings.Contains(stdout, "d2d/strongly-convex") {
		t.Errorf("the summary lacks the subject: %s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); err != nil {
		t.Error(err)
	}
}
