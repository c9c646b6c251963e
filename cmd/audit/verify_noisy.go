package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"gonum.org/v1/gonum/mat"
)

// prenoiseFlags are verify's flags of the pre-noise route (audit.VerifyNoisy): the
// parameters before the noise of the published models in --unlearned and --retrained.
type prenoiseFlags struct{ unlearned, retrained string }

func (p *prenoiseFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.unlearned, "prenoise-unlearned", "", "with a spec that declares \"noise\" (Δ and σ): the unlearned models' parameters before the noise, as --unlearned and in its order; --unlearned holds the published ones")
	fs.StringVar(&p.retrained, "prenoise-retrained", "", "with --prenoise-unlearned: the retrained models' parameters before the noise, row i the retrain the proof couples with unlearned model i")
}

// set says whether the route was asked for.
func (p *prenoiseFlags) set() bool { return p.unlearned != "" || p.retrained != "" }

// check refuses the flags in combinations the route cannot read.
func (p *prenoiseFlags) check(retrained string, scores bool, oneRun string) error {
	switch {
	case !p.set():
		return nil
	case p.unlearned == "" || p.retrained == "":
		return usagef("verify: --prenoise-unlearned and --prenoise-retrained go together: the pre-noise route compares the pairs before the noise")
	case scores || oneRun != "":
		return usagef("verify: --prenoise-unlearned reads model parameters; it takes neither --scores nor --one-run")
	case retrained == "":
		return usagef("verify: --prenoise-unlearned needs --retrained: the published retrained models, whose noise the release check measures")
	}
	return nil
}

// verify reads the pre-noise parameters and runs audit.VerifyNoisy on them and the
// published models; it returns the claim, the findings, the pre-noise files read (as
// report inputs) and the report's description of the models.
func (p *prenoiseFlags) verify(ctx context.Context, load func(string) (*mat.Dense, []string, error), unlearned, retrained *mat.Dense, ds *reference.Dataset, s *spec.Spec, specPath string) (audit.Claim, []audit.Finding, []reports.Input, string, error) {
	if s.Noise == nil {
		return audit.Claim{}, nil, nil, "", &audit.SpecError{File: specPath, Path: "noise", Msg: "missing; --prenoise-unlearned audits a pipeline that publishes with Gaussian noise against its certificate: {\"sensitivity\": Δ, \"sigma\": σ}"}
	}
	preU, uFiles, err := load(p.unlearned)
	if err != nil {
		return audit.Claim{}, nil, nil, "", fmt.Errorf("verify: --prenoise-unlearned: %w", err)
	}
	preR, rFiles, err := load(p.retrained)
	if err != nil {
		return audit.Claim{}, nil, nil, "", fmt.Errorf("verify: --prenoise-retrained: %w", err)
	}
	m := verify.NoisyModels{Unlearned: unlearned, Retrained: retrained, PreUnlearned: preU, PreRetrained: preR}
	if n, _ := preU.Dims(); len(uFiles) == n && n > 1 { // a folder, a model a file: pairs are named by file
		for _, f := range uFiles {
			m.Pairs = append(m.Pairs, filepath.Base(f))
		}
	}
	claim, findings, err := verify.VerifyNoisy(ctx, m, ds, s)
	if err != nil {
		return audit.Claim{}, nil, nil, "", err
	}
	var inputs []reports.Input
	for _, f := range []struct {
		role  string
		files []string
	}{{"pre-noise unlearned model", uFiles}, {"pre-noise retrained model", rFiles}} {
		for _, path := range f.files {
			in, err := reports.HashFile(f.role, path)
			if err != nil {
				return audit.Claim{}, nil, nil, "", fmt.Errorf("verify: %w", err)
			}
			inputs = append(inputs, in)
		}
	}
	n, d := preU.Dims()
	what := fmt.Sprintf("%d pairs of unlearned and retrained models of %d parameters published with Gaussian noise, trained elsewhere, with their parameters before the noise (declared Δ = %g, σ = %g)",
		n, d, s.Noise.Sensitivity, s.Noise.Sigma)
	return claim, findings, inputs, what, nil
}
