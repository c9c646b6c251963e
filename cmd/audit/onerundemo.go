package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
)

// runOneRunDemo is demo --one-run: canary.OneRunDemo for every method with wanted
// variants, a table of the canary count at which each subject and control is refuted,
// and a report whose subjects are the honest variants' one-run findings and whose
// controls are the controls' (which do not enter the verdict).
func runOneRunDemo(ctx context.Context, c demoConfig, stdout, stderr io.Writer) error {
	start := time.Now()
	if c.oneRunMax < 32 || c.oneRunMax > canary.MaxCanaries {
		return usagef("--one-run-max %d: want 32 to %d", c.oneRunMax, canary.MaxCanaries)
	}
	var ladder []int
	for m := 32; m <= c.oneRunMax; m *= 2 {
		ladder = append(ladder, m)
	}
	formats, err := pipeline.Formats(c.formats)
	if err != nil {
		return err
	}
	if c.date, err = auditDate(c.command, c.dateFlag); err != nil {
		return err
	}
	if c.attackList, err = audit.ParseAttacks(c.attacks); err != nil {
		return usagef("--attacks: %v", err)
	}
	if c.deletes != "" {
		return usagef("--one-run: the requests delete the included canaries; --delete does not apply")
	}
	if err := checkOut(c.command, c.out, reportNames(), c.inputs()...); err != nil {
		return err
	}
	data, err := c.data.Load(ctx, c.seed)
	if err != nil {
		return err
	}
	d, err := openOut(c.command, c.out, c.force)
	if err != nil {
		return err
	}
	defer d.Close()
	// an earlier report must not sit beside this run's failure as if it were its result
	if err := d.Remove(reportNames()...); err != nil {
		return outErr(c.command, err)
	}
	res, err := pipeline.OneRun(ctx, pipeline.OneRunPlan{Command: c.command, CommandLine: c.commandLine, Version: version, Date: c.date, Data: data,
		Setup: pipeline.Setup{Lambda: c.lambda, Epsilon: c.epsilon, Delta: c.delta, Seed: c.seed, Confidence: c.confidence, PowerAgainst: c.powerAgainst,
			Attacks: c.attackList, Variants: c.variants, MethodArgs: c.methodArgs},
		VariantsGiven: c.variantsSet, Ladder: ladder,
		Progress: func(method string, mc int) {
			if !c.quiet && isTerminal(stderr) {
				fmt.Fprintf(stderr, "one-run %s: m = %d (%s)\n", method, mc, time.Since(start).Round(time.Second))
			}
		}})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return usageError{err}
	}
	rep, all, skipped := res.Report, res.Results, res.Skipped
	if err := pipeline.WriteReport(d, rep, formats, nil); err != nil {
		return outErr(c.command, err)
	}
	if c.json {
		if err := pipeline.Emit(stdout, rep, c.out, formats, true); err != nil {
			return err
		}
	} else {
		pipeline.WriteOneRun(stdout, all, ladder, skipped, rep, c.out, time.Since(start))
	}
	return verdictErr(verdict.Verdict(rep.Summary.Verdict))
}
