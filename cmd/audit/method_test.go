package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// toyMethod is a method the CLI has never heard of: registered by the test alone, it must
// appear in help and demo -h, be selectable with --variants, take its own setting as a
// flag, and be audited end to end, with no line of cmd/audit naming it.
type toyMethod struct{}

func (toyMethod) Name() string    { return "toy" }
func (toyMethod) Summary() string { return "a toy method that publishes its noise alone" }
func (toyMethod) DemoVariants() []audit.Variant {
	return []audit.Variant{{Name: "toy-one", Summary: "the only toy variant"}}
}
func (toyMethod) DemoParams() []audit.Param {
	return []audit.Param{{Name: "toy-noise", Usage: "toy: noise scale", Default: "1"}}
}
func (toyMethod) Demo(s audit.DemoSetup, variants []string, args audit.Args) ([]audit.Audited, error) {
	sigma, err := args.Float("toy-noise")
	if err != nil {
		return nil, err
	}
	if !(sigma > 0) {
		return nil, fmt.Errorf("--toy-noise %v: want σ > 0", sigma)
	}
	var out []audit.Audited
	for range variants {
		sub := toySubject{sigma: sigma, claim: audit.Claim{Method: "toy", Guarantee: "(ε, δ)-unlearning", Epsilon: s.Epsilon, Delta: s.Delta}}
		out = append(out, audit.Audited{Subject: sub, Check: func(ctx context.Context, r []audit.TrialResult) ([]audit.Finding, error) {
			return []audit.Finding{audit.Deterministic("toy/certificate", "σ used against σ = 0.5 needed", audit.Certificate, 0.5, sigma, len(r), "")}, nil
		}})
	}
	return out, nil
}

type toySubject struct {
	sigma float64
	claim audit.Claim
}

func (t toySubject) Name() string       { return "toy/one" }
func (t toySubject) Claim() audit.Claim { return t.claim }
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
}
