package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// runVerify audits models trained elsewhere (audit.VerifySamples) and writes a report.
func runVerify(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var specPath, unlearnedPath, retrainedPath, out string
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&specPath, "spec", "", "the audit spec: the claim, confidence, power target and seed (required)")
	fs.StringVar(&unlearnedPath, "unlearned", "", "unlearned models: a folder of model files (.npy, .npz, .safetensors, .csv) or one matrix, a model a row (required)")
	fs.StringVar(&retrainedPath, "retrained", "", "models retrained without the deleted records, as --unlearned (required)")
	fs.StringVar(&out, "out", "audit-report", "directory for report.json and report.md")
	asJSON := fs.Bool("json", false, "print the report's JSON on stdout instead of the summary table")
	scores := fs.Bool("scores", false, "--unlearned and --retrained are per-example scores (a matrix of models × examples: losses, logits or confidences), the route for deep models")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit verify --unlearned DIR|FILE --retrained DIR|FILE --spec FILE [--scores] [--out DIR]\n\nAudits models produced elsewhere against the spec's claim with the distinguishing game on\nthe published models, stating its power. Every model of both samples must have the same\nparameters; supply as many unlearned as retrained models, at least 8 of each. With\n--scores the two files are per-example scores (models × examples, .npy, .npz or CSV),\none game per example.\n\nExamples:\n  audit verify --spec claim.json --unlearned unlearned/ --retrained retrained/\n  audit verify --spec claim.json --scores --unlearned scores_u.npz --retrained scores_r.npz\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case specPath == "":
		return usagef("verify: --spec is required")
	case unlearnedPath == "":
		return usagef("verify: --unlearned is required")
	case retrainedPath == "":
		return usagef("verify: --retrained is required (retraining from the spec's recipe is not supported yet)")
	}
	s, err := audit.LoadSpec(specPath)
	if err != nil {
		var se *audit.SpecError
		if errors.As(err, &se) {
			return usageError{err}
		}
		return usageError{fmt.Errorf("verify: %w", err)}
	}
	unlearned, uFiles, err := artifact.LoadSample(unlearnedPath)
	if err != nil {
		return usageError{fmt.Errorf("verify: --unlearned: %w", err)}
	}
	retrained, rFiles, err := artifact.LoadSample(retrainedPath)
	if err != nil {
		return usageError{fmt.Errorf("verify: --retrained: %w", err)}
	}
	verify := audit.VerifySamples
	if *scores {
		verify = audit.VerifyScores
	}
	claim, findings, err := verify(unlearned, retrained, s)
	if err != nil {
		return usageError{err}
	}
	inputs := []reports.Input{}
	for _, f := range append([]string{specPath}, append(uFiles, rFiles...)...) {
		role := "unlearned model"
		switch {
		case f == specPath:
			role = "spec"
		case slices.Contains(rFiles, f):
			role = "retrained model"
		}
		in, err := reports.HashFile(role, f)
		if err != nil {
			return usageError{fmt.Errorf("verify: %w", err)}
		}
		inputs = append(inputs, in)
	}
	n, d := unlearned.Dims()
	what := fmt.Sprintf("%d unlearned and %d retrained models of %d parameters, trained elsewhere", n, n, d)
	if *scores {
		what = fmt.Sprintf("per-example scores of %d unlearned and %d retrained models on %d examples, computed elsewhere", n, n, d)
	}
	rep := &reports.Report{
		Schema: reports.Schema, Tool: reports.Tool{Name: "unlearnaudit", Version: version}, Command: "verify",
		Seed: s.Seed, Trials: n, Confidence: reports.Number(s.Confidence), Inputs: inputs,
		Data: reports.Data{Description: what},
	}
	rep.Subjects = append(rep.Subjects, reports.NewSubject("verify/"+s.Method.Name(), claim, findings))
	if _, err := mkdirs(out); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	rep.Summarize()
	if err := writeReport(rep, out); err != nil {
		return err
	}
	if err := emit(stdout, rep, out, *asJSON); err != nil {
		return err
	}
	return verdictErr(audit.Verdict(rep.Summary.Verdict))
}
