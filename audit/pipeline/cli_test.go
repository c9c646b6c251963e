package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	_ "github.com/unlearnaudit/unlearnaudit/audit/methods" // the methods NewSubjects asks
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
)

// cli builds the audit command once per test and returns its path and its version (the
// second word of `audit version`), which its reports record.
func cli(t *testing.T) (bin, version string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the audit command")
	}
	// go test caches a result by the files a test reads: reading the command's sources
	// makes an edit to them run this test again, as it changes the binary built below
	srcs, err := filepath.Glob("../../cmd/audit/*.go")
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no sources of the audit command beside this package (%v)", err)
	}
	for _, f := range srcs {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	bin = filepath.Join(t.TempDir(), "audit")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/audit").CombinedOutput(); err != nil {
		t.Fatalf("go build ../../cmd/audit: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("audit version: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || f[0] != "audit" {
		t.Fatalf("audit version printed %q", out)
	}
	return bin, f[1]
}

// runCLI runs the command with args and returns the report.json it wrote into out (its exit
// code is the verdict's and is not asked for here).
func runCLI(t *testing.T, bin, out string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--out", out, "--quiet")...)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=") // the date is the flag's
	if b, err := cmd.CombinedOutput(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("audit %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatalf("audit %s wrote no report: %v", strings.Join(args, " "), err)
	}
	return b
}

// sameBytes fails unless the library's report renders to the CLI's report.json, byte for
// byte, naming the first line that differs.
func sameBytes(t *testing.T, what string, lib, cli []byte) {
	t.Helper()
	if bytes.Equal(lib, cli) {
		return
	}
	ll, cl := strings.Split(string(lib), "\n"), strings.Split(string(cli), "\n")
	for i := range min(len(ll), len(cl)) {
		if ll[i] != cl[i] {
			t.Fatalf("%s: the library's report differs from the CLI's at line %d:\nlibrary: %s\nCLI:     %s", what, i+1, ll[i], cl[i])
		}
	}
	t.Fatalf("%s: the library's report has %d lines, the CLI's %d", what, len(ll), len(cl))
}

// Run, given the plan audit demo makes of its flags, gives the report the demo writes,
// byte for byte: no step of the demo's pipeline is left in the command.
func TestRunIsTheDemosReport(t *testing.T) {
	bin, version := cli(t)
	const date = "2026-01-01"
	args := []string{"demo", "--variants", "perfect", "--trials", "16", "--seed", "3", "--date", date, "--controls",
		"--lambda", "0.05", "--epsilon", "1", "--delta", "1e-6", "--confidence", "0.95", "--power-against", "2", "--attacks", "game,membership"}
	want := runCLI(t, bin, t.TempDir(), args...)

	ctx := context.Background()
	var src pipeline.DataSource // the built-in synthetic set
	data, err := src.Load(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	attacks, err := audit.ParseAttacks("game,membership")
	if err != nil {
		t.Fatal(err)
	}
	subjects, requests, err := pipeline.NewSubjects(context.Background(), data.Set, pipeline.Setup{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 3,
		Confidence: 0.95, PowerAgainst: 2, Attacks: attacks, Variants: "perfect", MethodArgs: audit.DefaultArgs(pipeline.DemoParams())})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := pipeline.Run(ctx, pipeline.Plan{Command: "demo", Version: version, Date: date,
		// the flags given, as --name=value in name order (what the CLI records)
		CommandLine: []string{"audit", "demo", "--attacks=game,membership", "--confidence=0.95", "--controls=true", "--date=" + date, "--delta=1e-6",
			"--epsilon=1", "--lambda=0.05", "--power-against=2", "--seed=3", "--trials=16", "--variants=perfect"},
		Seed: 3, Trials: 16, Confidence: 0.95, Data: data, Requests: requests, Subjects: subjects, Controls: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Subjects) == 0 || len(rep.Controls) == 0 {
		t.Fatalf("the plan ran %d subjects and %d controls; want some of each", len(rep.Subjects), len(rep.Controls))
	}
	got, err := rep.Render("json")
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "demo", got, want)
}

// Verify, given verify's inputs, gives the report audit verify writes, byte for byte.
func TestVerifyIsTheCommandsReport(t *testing.T) {
	bin, version := cli(t)
	const date = "2026-01-01"
	specPath := filepath.Join(t.TempDir(), "claim.json")
	if err := os.WriteFile(specPath, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const unlearned, retrained = "../../cmd/audit/testdata/verify/good", "../../cmd/audit/testdata/verify/retrained"
	want := runCLI(t, bin, t.TempDir(), "verify", "--spec", specPath, "--unlearned", unlearned, "--retrained", retrained, "--date", date)

	s, err := spec.LoadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetClaim(specPath, nil, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := pipeline.Verify(context.Background(), pipeline.VerifyInputs{Spec: s, SpecPath: specPath, Unlearned: unlearned, Retrained: retrained,
		CommandLine: []string{"audit", "verify", "--date=" + date, "--retrained=" + retrained, "--spec=" + specPath, "--unlearned=" + unlearned},
		Version:     version, Date: date})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Subjects) != 1 || len(rep.Inputs) < 3 {
		t.Fatalf("%d subjects and %d inputs; want one subject and the spec and models among the inputs", len(rep.Subjects), len(rep.Inputs))
	}
	got, err := rep.Render("json")
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "verify", got, want)
}
