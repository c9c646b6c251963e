package pipeline

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"gonum.org/v1/gonum/mat"
)

// checkPrenoise refuses the pre-noise inputs in combinations the route cannot read.
func (in *VerifyInputs) checkPrenoise() error {
	switch {
	case !in.prenoise():
		return nil
	case in.PrenoiseUnlearned == "" || in.PrenoiseRetrained == "":
		return fmt.Errorf("verify: --prenoise-unlearned and --prenoise-retrained go together: the pre-noise route compares the pairs before the noise")
	case in.Scores || in.OneRun != "":
		return fmt.Errorf("verify: --prenoise-unlearned reads model parameters; it takes neither --scores nor --one-run")
	case in.Retrained == "":
		return fmt.Errorf("verify: --prenoise-unlearned needs --retrained: the published retrained models, whose noise the release check measures")
	}
	return nil
}

// verifyNoisy reads the pre-noise parameters and runs verify.VerifyNoisy on them and the
// published models; it returns the claim, the findings, the pre-noise files read (as
// report inputs) and the report's description of the models.
func (in *VerifyInputs) verifyNoisy(ctx context.Context, load func(string) (*mat.Dense, []string, error), unlearned, retrained *mat.Dense, ds *reference.Dataset) (verdict.Claim, []verdict.Finding, []reports.Input, string, error) {
	s, specPath := in.Spec, in.SpecPath
	if s.Noise == nil {
		return verdict.Claim{}, nil, nil, "", &audit.SpecError{File: specPath, Path: "noise", Msg: "missing; --prenoise-unlearned audits a pipeline that publishes with Gaussian noise against its certificate: {\"sensitivity\": Δ, \"sigma\": σ}"}
	}
	preU, uFiles, err := load(in.PrenoiseUnlearned)
	if err != nil {
		return verdict.Claim{}, nil, nil, "", fmt.Errorf("verify: --prenoise-unlearned: %w", err)
	}
	preR, rFiles, err := load(in.PrenoiseRetrained)
	if err != nil {
		return verdict.Claim{}, nil, nil, "", fmt.Errorf("verify: --prenoise-retrained: %w", err)
	}
	m := verify.NoisyModels{Unlearned: unlearned, Retrained: retrained, PreUnlearned: preU, PreRetrained: preR}
	if n, _ := preU.Dims(); len(uFiles) == n && n > 1 { // a folder, a model a file: pairs are named by file
		for _, f := range uFiles {
			m.Pairs = append(m.Pairs, filepath.Base(f))
		}
	}
	claim, findings, err := verify.VerifyNoisy(ctx, m, ds, s)
	if err != nil {
		return verdict.Claim{}, nil, nil, "", err
	}
	var inputs []reports.Input
	for _, f := range []struct {
		role  string
		files []string
	}{{"pre-noise unlearned model", uFiles}, {"pre-noise retrained model", rFiles}} {
		for _, path := range f.files {
			h, err := reports.HashFile(f.role, path)
			if err != nil {
				return verdict.Claim{}, nil, nil, "", fmt.Errorf("verify: %w", err)
			}
			inputs = append(inputs, h)
		}
	}
	n, d := preU.Dims()
	what := fmt.Sprintf("%d pairs of unlearned and retrained models of %d parameters published with Gaussian noise, trained elsewhere, with their parameters before the noise (declared Δ = %g, σ = %g)",
		n, d, s.Noise.Sensitivity, s.Noise.Sigma)
	return claim, findings, inputs, what, nil
}
