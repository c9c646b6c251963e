package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// toyMethod is a method the CLI has never heard of: registered by the test alone, it must
// appear in help and demo -h, be selectable with --variants, take its own setting as a
// flag, be audited end to end, have its certificate computed by "audit bounds" and its
// experiment run by "audit reproduce", with no line of cmd/audit naming it.
type toyMethod struct{}

func (toyMethod) Name() string    { return "toy" }
func (toyMethod) Summary() string { return "a toy method that publishes its noise alone" }
func (toyMethod) DemoVariants() []audit.Variant {
	return []audit.Variant{{Name: "toy-one", Summary: "the only toy variant"}}
}
func (toyMethod) DemoParams() []audit.Param {
	return []audit.Param{{Name: "toy-noise", Usage: "toy: noise scale", Default: "1"}}
}
func (toyMethod) Demo(_ context.Context, s audit.DemoSetup, variants []string, args audit.Args) ([]audit.Audited, error) {
	sigma, err := args.Float("toy-noise")
	if err != nil {
		return nil, err
	}
	if !(sigma > 0) {
		return nil, fmt.Errorf("--toy-noise %v: want σ > 0", sigma)
	}
	var out []audit.Audited
	for range variants {
		sub := toySubject{sigma: sigma, claim: verdict.Claim{Method: "toy", Guarantee: "(ε, δ)-unlearning", Epsilon: s.Epsilon, Delta: s.Delta}}
		out = append(out, audit.Audited{Subject: sub, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
			return []verdict.Finding{verdict.Deterministic("toy/certificate", "σ used against σ = 0.5 needed", verdict.Certificate, 0.5, sigma, len(r), "")}, nil
		}})
	}
	return out, nil
}

// Bounds: the toy's certificate is σ = Δ/ε with its sensitivity Δ declared.
func (toyMethod) Bounds() audit.Bounds {
	return audit.Bounds{About: "The toy method's certificate.", Variants: []audit.Variant{{Name: "plain", Summary: "the toy theorem"}},
		Params: []audit.Param{{Name: "toy-sensitivity", Usage: "sensitivity Δ (required)", Default: "0"}, {Name: "epsilon", Usage: "target ε", Default: "1"}},
		Compute: func(_ context.Context, variant string, args audit.Args) ([]verdict.Row, error) {
			r := audit.ArgReader{Args: args}
			r.Require("--variant "+variant, "toy-sensitivity")
			d, e := r.Float("toy-sensitivity"), r.Float("epsilon")
			if err := r.Err(); err != nil {
				return nil, err
			}
			return []verdict.Row{{Key: "variant", Value: variant, Note: "toy"}, {Key: "sigma", Value: d / e, Note: "σ = Δ/ε"}}, nil
		}}
}

// Experiments: one table whose verdict follows --toy-verdict.
func (toyMethod) Experiments() []audit.Experiment {
	return []audit.Experiment{{Name: "toy-table", Summary: "a toy table", About: "Writes one toy table.",
		Params: []audit.Param{{Name: "toy-verdict", Usage: "the check's verdict", Default: "PASS"}},
		Run: func(ctx context.Context, env audit.ExperimentEnv, args audit.Args) (*reports.Reproduction, error) {
			rep := reports.NewReproduction(env.Version, "toy-table", "A toy table")
			f := verdict.Finding{Check: "toy", Title: "toy check", Kind: verdict.Certificate, Verdict: verdict.Verdict(args.String("toy-verdict"))}
			rep.Tables = []reports.Table{{Name: "toy", Columns: []string{"x"}, Rows: []table.Row{{Label: "row", Cells: []table.Cell{{Value: 1}}}},
				Findings: []reports.Finding{reports.NewFinding(f)}}}
			rep.Plot("toy", reports.Figure{Title: "toy", Series: []reports.Series{{Name: "x", X: []float64{0, 1}, Y: []float64{1, 2}}}}, []string{"svg"})
			return rep, nil
		}}}
}

type toySubject struct {
	sigma float64
	claim verdict.Claim
}

func (t toySubject) Name() string         { return "toy/one" }
func (t toySubject) Claim() verdict.Claim { return t.claim }
func (t toySubject) Unlearned(ctx context.Context, s reference.Streams) (reference.Release, error) {
	return reference.Release{Published: []float64{t.sigma * s.Rand("u").NormFloat64()}}, nil
}
func (t toySubject) Retrained(ctx context.Context, s reference.Streams) (reference.Release, error) {
	return reference.Release{Published: []float64{t.sigma * s.Rand("r").NormFloat64()}}, nil
}

func TestToyMethodJoinsThroughTheContract(t *testing.T) {
	audit.Register(toyMethod{})
	t.Cleanup(func() { audit.Deregister("toy") })

	help, _, _ := runCLI(t, "help")
	_, demoHelp, _ := runCLI(t, "demo", "-h")
	for _, c := range []struct{ where, text, want string }{
		{"help", help, "toy       a toy method that publishes its noise alone"},
		{"help", help, "toy-one"},
		{"demo -h", demoHelp, "toy-one"},
		{"demo -h", demoHelp, "-toy-noise"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.where, c.want, c.text)
		}
	}
	out := t.TempDir()
	stdout, stderr, code := runCLI(t, "demo", "--out", out, "--variants", "toy-one", "--trials", "8", "--toy-noise", "2")
	if code != exitPass || !strings.Contains(stdout, "toy/one") {
		t.Fatalf("demo --variants toy-one: exit %d\n%s%s", code, stdout, stderr)
	}
	rep, _ := readReport(t, out)
	if len(rep.Subjects) != 1 || rep.Subjects[0].Name != "toy/one" || rep.Subjects[0].Findings[0].Bound != 2 {
		t.Fatalf("report %+v; want the toy subject with its --toy-noise", rep.Subjects)
	}
	if _, stderr, code := runCLI(t, "demo", "--out", t.TempDir(), "--variants", "toy-one", "--toy-noise", "0"); code != exitUsage || !strings.Contains(stderr, "toy: --toy-noise 0") {
		t.Errorf("a bad toy setting: exit %d, %q", code, stderr)
	}

	// bounds: listed, its flags and variants in -h, computed, refused without its
	// required constant
	_, boundsHelp, _ := runCLI(t, "bounds", "-h")
	_, toyHelp, _ := runCLI(t, "bounds", "toy", "-h")
	stdout, _, code = runCLI(t, "bounds", "toy", "--toy-sensitivity", "3", "--epsilon", "2", "--json")
	if !strings.Contains(boundsHelp, "toy") || !strings.Contains(toyHelp, "-toy-sensitivity") || !strings.Contains(toyHelp, "plain (the toy theorem)") {
		t.Errorf("bounds help lacks the toy:\n%s\n%s", boundsHelp, toyHelp)
	}
	if code != exitPass || stdout != `{"variant":"plain","sigma":1.5}`+"\n" {
		t.Errorf("bounds toy: exit %d, %q", code, stdout)
	}
	if _, stderr, code := runCLI(t, "bounds", "toy"); code != exitUsage || !strings.Contains(stderr, "--toy-sensitivity is required for --variant plain") {
		t.Errorf("bounds toy without Δ: exit %d, %q", code, stderr)
	}

	// reproduce: listed, run, its files written, its verdict the exit code
	reproHelp, _, _ := runCLI(t, "reproduce", "help")
	if !regexp.MustCompile(`(?m)^  toy-table +a toy table$`).MatchString(reproHelp) {
		t.Errorf("reproduce help lacks the toy experiment:\n%s", reproHelp)
	}
	dir := filepath.Join(t.TempDir(), "toy")
	stdout, stderr, code = runCLI(t, "reproduce", "toy-table", "--out", dir)
	if code != exitPass || !strings.Contains(stdout, "overall: PASS") {
		t.Errorf("reproduce toy-table: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{"toy-table.json", "toy-table.md", "toy.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("reproduce toy-table did not write %s: %v", name, err)
		}
	}
	if _, _, code := runCLI(t, "reproduce", "toy-table", "--out", t.TempDir(), "--toy-verdict", "FAIL"); code != exitFail {
		t.Errorf("a failing toy experiment: exit %d, want %d", code, exitFail)
	}
	// a judged INCONCLUSIVE is not a PASS: exit 3
	if stdout, _, code := runCLI(t, "reproduce", "toy-table", "--out", t.TempDir(), "--toy-verdict", "INCONCLUSIVE"); code != exitInconclusive || !strings.Contains(stdout, "overall: INCONCLUSIVE") {
		t.Errorf("an inconclusive toy experiment: exit %d, want %d\n%s", code, exitInconclusive, stdout)
	}
}
