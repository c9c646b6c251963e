package pipeline

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"gonum.org/v1/gonum/mat"
)

// checkUtility refuses the utility inputs where they cannot be measured, and reads and
// checks the Utility file before the audit's long work (its model counts are checked
// after, against the models read).
func (in *VerifyInputs) checkUtility() error {
	s, specPath := in.Spec, in.SpecPath
	if in.Utility != "" && in.utility == nil {
		var err error
		if in.utility, err = verify.LoadUtility(in.Utility, in.limits()); err != nil {
			return fmt.Errorf("verify: --utility: %w", err)
		}
		if _, err := verify.MeasureUtility("", in.utility, 0, 0); err != nil {
			in.utility = nil
			return fmt.Errorf("verify: --utility %s: %w", in.Utility, err)
		}
	}
	switch {
	case !in.UtilityFromData:
		return nil
	case in.Scores || in.OneRun != "":
		return fmt.Errorf("verify: --utility-from-data computes losses from model weights; --scores and --one-run give scores (give the values with --utility instead)")
	case s.Data.File == "" || len(s.Deletes) == 0:
		return fmt.Errorf("verify: --utility-from-data needs the spec's data and deletes (%s: data.file, deletes): the forget set is the deleted records, the retain set the others", specPath)
	}
	return nil
}

// measureUtility is the subject's utility from the inputs' sources, with the files read as
// report inputs; nil when none asked for it. unlearned and retrained are the audited models
// (retrained nil when none were read; one-run is one model); ds is the spec's data, when
// verify loaded it.
func (in *VerifyInputs) measureUtility(unlearned, retrained *mat.Dense, ds *Data) (*reports.Utility, []reports.Input, error) {
	s, oneRun := in.Spec, in.OneRun != ""
	if in.Utility == "" && !in.UtilityFromData {
		return nil, nil, nil
	}
	nu, _ := unlearned.Dims()
	if oneRun {
		nu = 1
	}
	var nr int
	if retrained != nil {
		nr, _ = retrained.Dims()
	}
	var (
		vals    []verify.UtilityInput
		sources []string
		inputs  []reports.Input
	)
	if in.UtilityFromData {
		if ds == nil {
			return nil, nil, fmt.Errorf("verify: --utility-from-data: this route reads no data set; give the spec's data with model weights")
		}
		got, err := verify.LinearUtility(unlearned, retrained, ds.Set, s.Deletes, s.Intercept)
		if err != nil {
			return nil, nil, fmt.Errorf("verify: --utility-from-data: %w", err)
		}
		vals = append(vals, got...)
		sources = append(sources, fmt.Sprintf("the spec's data (%s; %d records deleted, %d kept) and the linear models' weights: logistic loss, and accuracy by the sign of the margin", ds.Description, len(s.Deletes), ds.Set.Len()-len(s.Deletes)))
	}
	if in.Utility != "" {
		vals = append(vals, in.utility...)
		sources = append(sources, "the per-record values in "+in.Utility)
		h, err := reports.HashFile("utility values", in.Utility)
		if err != nil {
			return nil, nil, fmt.Errorf("verify: %w", err)
		}
		inputs = append(inputs, h)
	}
	source := sources[0]
	if len(sources) == 2 {
		source += "; " + sources[1]
	}
	util, err := verify.MeasureUtility(source, vals, nu, nr)
	if err != nil {
		flag := "--utility-from-data"
		if in.Utility != "" {
			flag = "--utility " + in.Utility
		}
		return nil, nil, fmt.Errorf("verify: %s: %w", flag, err)
	}
	return reports.NewUtility(util), inputs, nil
}
