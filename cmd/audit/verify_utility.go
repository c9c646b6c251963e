package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"gonum.org/v1/gonum/mat"
)

// utilityFlags are verify's utility flags: where the per-record values of the forget,
// retain and test sets come from. The utility is measured beside the verdict, never a
// part of it (audit.MeasureUtility).
type utilityFlags struct {
	file     string
	fromData bool
	values   []audit.UtilityInput // the file's arrays, read and checked by check
}

func (u *utilityFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&u.file, "utility", "", "an .npz of per-record values on the forget, retain and test sets, arrays named SIDE_SET_loss or SIDE_SET_correct (SIDE unlearned or retrained, SET forget, retain or test; models × records, the models in --unlearned's and --retrained's order; correct is 1 or 0): the report gives both sides' loss and accuracy, a measurement with no verdict")
	fs.BoolVar(&u.fromData, "utility-from-data", false, "with the spec's data and deletes and linear models: their logistic loss and accuracy on the deleted records (forget) and the others (retain), computed from the weights; a measurement with no verdict")
}

// check refuses the flags where they cannot be measured, and reads and checks the
// --utility file before the audit's long work (its model counts are checked after, against
// the models read).
func (u *utilityFlags) check(scores bool, oneRun string, s *audit.Spec, specPath string) error {
	if u.file != "" {
		var err error
		if u.values, err = audit.LoadUtility(u.file); err != nil {
			return usageError{fmt.Errorf("verify: --utility: %w", err)}
		}
		if _, err := audit.MeasureUtility("", u.values, 0, 0); err != nil {
			return usageError{fmt.Errorf("verify: --utility %s: %w", u.file, err)}
		}
	}
	switch {
	case !u.fromData:
		return nil
	case scores || oneRun != "":
		return usagef("verify: --utility-from-data computes losses from model weights; --scores and --one-run give scores (give the values with --utility instead)")
	case s.Data.File == "" || len(s.Deletes) == 0:
		return usagef("verify: --utility-from-data needs the spec's data and deletes (%s: data.file, deletes): the forget set is the deleted records, the retain set the others", specPath)
	}
	return nil
}

// measure is the subject's utility from the flags' sources, with the files read as report
// inputs; nil when no flag asked for it. unlearned and retrained are the audited models
// (retrained nil when none were read; one-run is one model); ds is the spec's data, when
// verify loaded it.
func (u *utilityFlags) measure(unlearned, retrained *mat.Dense, oneRun bool, ds *pipeline.Data, s *audit.Spec) (*reports.Utility, []reports.Input, error) {
	if u.file == "" && !u.fromData {
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
		in      []audit.UtilityInput
		sources []string
		inputs  []reports.Input
	)
	if u.fromData {
		if ds == nil {
			return nil, nil, usagef("verify: --utility-from-data: this route reads no data set; give the spec's data with model weights")
		}
		got, err := audit.LinearUtility(unlearned, retrained, ds.Set, s.Deletes, s.Intercept)
		if err != nil {
			return nil, nil, usageError{fmt.Errorf("verify: --utility-from-data: %w", err)}
		}
		in = append(in, got...)
		sources = append(sources, fmt.Sprintf("the spec's data (%s; %d records deleted, %d kept) and the linear models' weights: logistic loss, and accuracy by the sign of the margin", ds.Description, len(s.Deletes), ds.Set.Len()-len(s.Deletes)))
	}
	if u.file != "" {
		in = append(in, u.values...)
		sources = append(sources, "the per-record values in "+u.file)
		h, err := reports.HashFile("utility values", u.file)
		if err != nil {
			return nil, nil, usageError{fmt.Errorf("verify: %w", err)}
		}
		inputs = append(inputs, h)
	}
	source := sources[0]
	if len(sources) == 2 {
		source += "; " + sources[1]
	}
	util, err := audit.MeasureUtility(source, in, nu, nr)
	if err != nil {
		flag := "--utility-from-data"
		if u.file != "" {
			flag = "--utility " + u.file
		}
		return nil, nil, usageError{fmt.Errorf("verify: %s: %w", flag, err)}
	}
	return reports.NewUtility(util), inputs, nil
}

// printUtility prints the subjects' utility after the summary: a measurement, said to be
// no verdict.
func printUtility(w io.Writer, rep *reports.Report) {
	for _, s := range rep.Subjects {
		if s.Utility == nil {
			continue
		}
		fmt.Fprintf(w, "utility of %s (a measurement, no verdict; mean ± SD over models, models × records):\n", s.Name)
		for _, l := range s.Utility.Lines() {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}
