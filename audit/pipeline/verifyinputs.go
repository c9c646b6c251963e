package pipeline

import (
	"errors"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
)

// SpecSettings are the settings audit verify's command line gives over its spec's, each
// nil when not given, so that the spec's own value (or, without a spec file,
// spec.DefaultSpec's) stands.
type SpecSettings struct {
	Epsilon, Delta *float64 // the claim (spec.Spec.SetClaim: δ alone is a measurement's δ)
	Name           *string  // the audited subject's name in the report (SetName)
	RankP          *string  // the rank check's p-value, one of spec.RankPChoices
}

// ApplyTo sets st over s, the spec read from specPath ("" for none): the claim, the name,
// then the rank p-value. A spec's half claim that st does not complete is refused, as is
// an empty name or an unknown p-value; the errors name the spec's field or the flag.
func (st SpecSettings) ApplyTo(s *spec.Spec, specPath string) error {
	if err := s.SetClaim(specPath, st.Epsilon, st.Delta); err != nil {
		if se := (*audit.SpecError)(nil); errors.As(err, &se) {
			return err // it names the file and the field
		}
		return fmt.Errorf("verify: %w", err)
	}
	if st.Name != nil {
		if err := s.SetName(*st.Name); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
	}
	if st.RankP != nil {
		r, err := spec.ParseRankP(*st.RankP)
		if err != nil {
			return fmt.Errorf("verify: --rank-p: %w", err)
		}
		s.RandomisedRank = r
	}
	return nil
}

// Inputs are the files verify reads, each with the flag or spec field that names it
// (none given: an empty Path): what its output folder may neither be nor replace
// (outdir.CheckOut). Its Spec must be set.
func (in *VerifyInputs) Inputs() []outdir.Input {
	return []outdir.Input{{Flag: "--spec", Path: in.SpecPath}, {Flag: "--unlearned", Path: in.Unlearned}, {Flag: "--retrained", Path: in.Retrained},
		{Flag: "--references", Path: in.References}, {Flag: "--holdout", Path: in.Holdout}, {Flag: "--one-run", Path: in.OneRun},
		{Flag: "--prenoise-unlearned", Path: in.PrenoiseUnlearned}, {Flag: "--prenoise-retrained", Path: in.PrenoiseRetrained}, {Flag: "--utility", Path: in.Utility},
		{Flag: "data.file", Path: in.Spec.Data.File}, {Flag: "data.labels", Path: in.Spec.Data.Labels}}
}
