package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/reports"
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
	formats, err := parseFormats(c.formats)
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
	if err := writeReport(d, rep, formats, nil); err != nil {
		return outErr(c.command, err)
	}
	if c.json {
		if err := emit(stdout, rep, c.out, formats, true); err != nil {
			return err
		}
	} else {
		printOneRun(stdout, all, ladder, skipped, rep, c.out, time.Since(start))
	}
	return verdictErr(verdict.Verdict(rep.Summary.Verdict))
}

// printOneRun prints the one-run table: each subject and control, the m that refuted it
// (or the cap), the one-run bound at the largest m run, 2ε, the AUROC and the per-canary
// μ the run reads; then why each control not refuted was not, and what the claim allows
// and a typical run needs per canary.
func printOneRun(w io.Writer, all []canary.OneRunResult, ladder []int, skipped []string, rep *reports.Report, dir string, took time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "subject\tcontrol\trefuted\tone-run ε bound (at m)\t2ε\tAUROC\tμ per canary")
	for _, r := range all {
		ctl := "— (honest)"
		if r.Control != "" {
			ctl = r.Control
		}
		refuted := fmt.Sprintf("not refuted up to m = %d", r.Largest)
		if r.RefutedAt > 0 {
			refuted = fmt.Sprintf("REFUTED at m = %d", r.RefutedAt)
		}
		if r.Refused != "" && r.Largest == 0 {
			fmt.Fprintf(tw, "%s\t%s\tnot audited\t—\t—\t—\t—\n", r.Subject, ctl)
			continue
		}
		auc := "—"
		for _, e := range r.Finding.Estimates {
			if strings.HasPrefix(e.Name, "AUROC") {
				auc = fmt.Sprintf("%.3f", e.Value)
			}
		}
		mu := "∞"
		if !math.IsInf(r.Shift, 1) {
			mu = fmt.Sprintf("%.2f", r.Shift)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3g (m = %d)\t%.3g\t%s\t%s\n", r.Subject, ctl, refuted, r.Finding.Measured, r.Largest, r.Finding.Bound, auc, mu)
	}
	tw.Flush()
	var allowed, needed float64
	for _, r := range all {
		if r.Refused != "" {
			fmt.Fprintf(w, "  %s: %s\n", r.Subject, r.Refused)
		}
		if r.Control == "" && r.RefutedAt > 0 {
			fmt.Fprintf(w, "  FAIL %s: the honest variant is refuted by one run at m = %d (bound %.3g > 2ε = %.3g at confidence %g)\n", r.Subject, r.RefutedAt, r.Finding.Measured, r.Finding.Bound, r.Finding.Confidence)
		}
		if r.Control != "" && r.Reading() != "" {
			fmt.Fprintf(w, "  %s %s: %s\n", r.Subject, r.Control, r.Reading())
		}
		if r.Largest == ladder[len(ladder)-1] {
			allowed, needed = r.Allowed, r.Needed
		}
	}
	fmt.Fprintf(w, "one-run: one training run per subject and m = %v Dirac canaries (canary i is the data's largest norm on a zero column of its own, random label; each included with probability ½ and then deleted); a bound above 2ε refutes the claim at the stated confidence (spec §(h)); a one-run audit never shows a claim holds; controls do not enter the verdict (%s)\n",
		ladder, took.Round(time.Second))
	if mc := ladder[len(ladder)-1]; allowed > 0 {
		typical := fmt.Sprintf("a typical run of m = %d refutes it from μ ≈ %.3g", mc, needed)
		if math.IsInf(needed, 1) {
			typical = fmt.Sprintf("no typical run of m = %d can refute it, however separated", mc)
		}
		fmt.Fprintf(w, "per canary: the claim allows μ ≤ %.3g (Gaussian DP at (2ε, (1 + e^ε)δ)); %s; μ per canary is √2·Φ⁻¹(AUC), ± about %.2f near 0\n",
			allowed, typical, 2/math.Sqrt(float64(mc)))
	}
	for _, s := range skipped {
		fmt.Fprintf(w, "not run (name it in --variants): %s\n", s)
	}
	fmt.Fprintf(w, "overall: %s; report: %s\n", rep.Summary.Verdict, shownPath(filepath.Join(dir, "report.json")))
}
