package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// runRun runs the audit a spec file describes (audit.Spec), with the demo's machinery:
// the same trials, checks, checkpoints and report. Flags given override the spec.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		specPath string
		c        demoConfig
	)
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&specPath, "spec", "", "the audit spec: a JSON file of schema "+audit.SpecSchema+" (required)")
	fs.StringVar(&c.out, "out", "audit-report", "directory for report.json, report.md and the trial files")
	audit.Var(fs, &c.trials, audit.TrialsParam)
	audit.Var(fs, &c.workers, audit.WorkersParam)
	audit.Var(fs, &c.data.maxValues, maxValuesParam)
	fs.BoolVar(&c.fresh, "fresh", false, "discard the finished trials kept for this configuration and run them again")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress bar on stderr (it is shown only when stderr is a terminal)")
	fs.BoolVar(&c.json, "json", false, "print the report's JSON on stdout instead of the summary table")
	fs.BoolVar(&c.controls, "controls", true, "also audit the method's negative controls (mutants with a known bug, which the audit must FAIL); --controls=false skips them")
	c.registerReportFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit run --spec FILE [flags]\n\nRuns the audit a spec file describes and writes DIR/report.json and DIR/report.md.\nThe spec names the data, the method and its settings, the deletions, the claim, the trials,\nthe attacks and the outputs; flags given override the spec's. Example spec:\n\n"+specExample+"\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c.commandLine = resultFlags(fs)
	if specPath == "" {
		return usagef("run: --spec is required (run \"audit run -h\" for an example)")
	}
	s, err := loadSpec("run", specPath)
	if err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["trials"] {
		c.trials = s.Trials
	}
	if !given["attacks"] && s.Attacks != nil {
		c.attacks = strings.Join(s.Attacks, ",")
	}
	specOutputs(given, s, &c.out, &c.formats)
	c.command, c.seed, c.confidence, c.powerAgainst = "run", s.Seed, s.Confidence, s.PowerAgainst
	c.lambda, c.epsilon, c.delta = s.Lambda, s.Epsilon, s.Delta
	c.variants = strings.Join(s.Variants, ",")
	ids := make([]string, len(s.Deletes))
	for i, id := range s.Deletes {
		ids[i] = strconv.FormatInt(id, 10)
	}
	c.deletes = strings.Join(ids, ",")
	c.data.setFromSpec(s)
	var params []audit.Param
	for _, m := range audit.Methods() {
		params = append(params, m.DemoParams()...)
	}
	c.methodArgs = audit.DefaultArgs(params)
	c.methodArgs.Merge(s.Params)
	return runAudit(ctx, c, stdout, stderr)
}

// specOutputs takes the spec's output folder and formats where the flags did not name them.
func specOutputs(given map[string]bool, s *audit.Spec, out, formats *string) {
	if !given["out"] && s.Outputs.Dir != "" {
		*out = s.Outputs.Dir
	}
	if !given["formats"] {
		*formats = strings.Join(s.Outputs.Formats, ",")
	}
}

// loadSpec reads a spec for a command; every refusal is bad input (exit 2), a SpecError
// already naming the file and field.
func loadSpec(command, path string) (*audit.Spec, error) {
	s, err := audit.LoadSpec(path)
	if err != nil {
		var se *audit.SpecError
		if errors.As(err, &se) {
			return nil, usageError{err}
		}
		return nil, usageError{fmt.Errorf("%s: %w", command, err)}
	}
	return s, nil
}

const specExample = `  {
    "schema": "unlearnaudit/spec/v1",
    "data": {"file": "heart_scale", "format": "libsvm"},
    "model": {"loss": "logistic", "lambda": 0.05},
    "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 10}},
    "deletes": [17, 42],
    "claim": {"epsilon": 1, "delta": 1e-6},
    "trials": 200,
    "power": {"against": 2},
    "confidence": 0.95,
    "seed": 1,
    "attacks": ["game", "membership"],
    "outputs": {"dir": "audit-report", "formats": ["md", "html", "pdf"]}
  }
`
