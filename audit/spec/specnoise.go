package spec

import (
	"encoding/json"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// NoiseCertificate is what a pipeline that publishes with Gaussian noise (output
// perturbation, as Guo et al., D2D and HF do) declares in its spec ("noise"): the L2
// sensitivity Δ its proof bounds — the largest distance between the unlearned and the
// retrained parameters before the noise, pair by pair as the proof couples them — and the
// σ of the isotropic Gaussian noise it adds to every published parameter.
type NoiseCertificate struct {
	Sensitivity float64 // Δ
	Sigma       float64 // σ
}

// The declared certificate's fields: finite and positive (Δ = 0 would need no noise, and
// σ = 0 publishes the models as they are).
var (
	sensitivityParam = audit.Param{Name: "sensitivity", Usage: "the L2 sensitivity Δ the proof bounds", Kind: audit.Number, Range: "(0, inf)"}
	sigmaParam       = audit.Param{Name: "sigma", Usage: "the σ of the Gaussian noise added to every parameter", Kind: audit.Number, Range: "(0, inf)"}
)

// noise reads the spec's "noise": {"sensitivity": Δ, "sigma": σ}, both required.
func (p specParser) noise(path string, v json.RawMessage, s *Spec) error {
	obj, err := p.object(path, v)
	if err != nil {
		return err
	}
	c := &NoiseCertificate{}
	if err := p.fields(path, obj, map[string]func(string, json.RawMessage) error{
		"sensitivity": p.param(sensitivityParam, &c.Sensitivity),
		"sigma":       p.param(sigmaParam, &c.Sigma),
	}); err != nil {
		return err
	}
	for _, f := range []string{"sensitivity", "sigma"} {
		if _, ok := obj[f]; !ok {
			return p.fail(join(path, f), "missing; the noise certificate is the L2 sensitivity Δ its proof bounds and the σ it adds: {\"sensitivity\": Δ, \"sigma\": σ}")
		}
	}
	s.Noise = c
	return nil
}
