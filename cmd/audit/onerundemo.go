package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// runOneRunDemo is demo --one-run (pipeline.Job.OneRun): a table of the canary count at
// which each subject and control is refuted, and a report whose subjects are the honest
// variants' one-run findings and whose controls are the controls'.
func runOneRunDemo(ctx context.Context, c demoConfig, stdout, stderr io.Writer) error {
	start := time.Now()
	if err := c.resolve(stderr); err != nil {
		return err
	}
	prep, err := c.PrepareOneRun(ctx, c.oneRunMax)
	if err != nil {
		return err
	}
	prep.Plan.Progress = func(method string, mc int) {
		if !c.quiet && isTerminal(stderr) {
			fmt.Fprintf(stderr, "one-run %s: m = %d (%s)\n", method, mc, time.Since(start).Round(time.Second))
		}
	}
	res, err := c.OneRun(ctx, prep)
	if err != nil {
		return err
	}
	if c.json {
		if err := pipeline.Emit(stdout, res.Report, c.Out, prep.Formats, true); err != nil {
			return err
		}
	} else {
		pipeline.WriteOneRun(stdout, res.Results, prep.Plan.Ladder, res.Skipped, res.Report, c.Out, time.Since(start))
	}
	return verdictErr(verdict.Verdict(res.Report.Summary.Verdict))
}
