package pipeline

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/names"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"github.com/unlearnaudit/unlearnaudit/reports/table"
)

// Formats reads --formats (or a spec's outputs.formats, joined): the renderings to
// write beside report.json, md always first — the README's promise is that --formats
// html,pdf adds HTML and PDF to the Markdown report, not that it replaces it.
// The list is checked as the spec's outputs.formats is: a format named twice is an error.
func Formats(s string) ([]string, error) {
	fs, err := names.Parse(s, verdict.OutputFormats, "format", "a comma-separated list of md, html, pdf")
	if err != nil {
		return nil, fmt.Errorf("--formats: %v", err)
	}
	out := []string{"md"} // report.json is always written too, by WriteReport
	for _, f := range fs {
		if f != "json" && f != "md" {
			out = append(out, f)
		}
	}
	return out, nil
}

// WriteReport writes DIR/report.json and DIR/report.EXT for each other format asked for
// (reports.ReportFormats) into the opened folder, and with a signer report.json.dsse,
// report.json signed. Every rendering is made before any file is written, so a failure
// leaves no report that looks complete.
func WriteReport(d *outdir.Dir, rep *reports.Report, formats []string, signer ed25519.PrivateKey) error {
	files := map[string][]byte{}
	for _, f := range append([]string{"json"}, formats...) {
		body, err := rep.Render(f)
		if err != nil {
			return err
		}
		files["report."+f] = body
	}
	if signer != nil {
		env, err := reports.Sign(files["report.json"], signer)
		if err != nil {
			return err
		}
		files["report.json"+reports.SignedSuffix] = env
	}
	return d.WriteFiles(files)
}

// WriteSummary prints a report's summary as demo, run and verify do without --json: a
// table of the subjects, the required findings not passed, the controls and the overall
// verdict with the report files written to dir.
func WriteSummary(w io.Writer, rep *reports.Report, dir string, formats []string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "subject\tverdict\tpass\tfail\tinconclusive\tclaim\tempirical game\twould catch F× with 80 % power")
	// a "no" points to its shortfall, stated once under the table however many rows share
	// it (the demo's eleven subjects share one)
	var shortfalls []string
	for _, s := range rep.Subjects {
		p, f, i := reports.CountFindings(s.Findings)
		game, power := "—", "—"
		if x := reports.GameFinding(s.Findings); x != nil {
			game = x.Verdict + " (required)"
			if !x.Required {
				game = x.Verdict + " (supporting)"
			}
			answer, shortfall := reports.GamePowerParts(x)
			power = answer
			if shortfall != "" {
				k := slices.Index(shortfalls, shortfall)
				if k < 0 {
					shortfalls, k = append(shortfalls, shortfall), len(shortfalls)
				}
				power = fmt.Sprintf("%s [%d]", answer, k+1)
			}
		}
		claim := fmt.Sprintf("(ε=%g, δ=%g)", s.Claim.Epsilon, s.Claim.Delta)
		if s.Verdict == reports.MeasurementVerdict {
			claim = "none (measured)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", s.Name, s.Verdict, p, f, i, claim, game, power)
	}
	tw.Flush()
	for k, s := range shortfalls {
		fmt.Fprintf(w, "[%d] %s\n", k+1, s)
	}
	for _, s := range rep.Subjects {
		for _, f := range s.Findings {
			if s.Verdict == reports.MeasurementVerdict {
				fmt.Fprintf(w, "  measurement %s: %s: measured %s\n", s.Name, f.Title, table.G10(float64(f.Measured)))
				continue
			}
			if f.Verdict != "PASS" && f.Required {
				why := ""
				if f.Verdict == string(verdict.Inconclusive) && f.Kind != string(verdict.Empirical) && f.Power == nil && f.TrialsNeeded == 0 {
					// a deterministic check that cannot decide: the game's count above is not its
					// (an empirical one without power, a one-run audit, may decide with more canaries)
					why = " (no number of trials decides it; its detail says why)"
				}
				fmt.Fprintf(w, "  %s %s: %s: measured %s, bound %s %s%s\n", f.Verdict, s.Name, f.Title, table.G10(float64(f.Measured)), f.Comparison, table.G10(float64(f.Bound)), why)
			}
		}
	}
	if len(rep.Controls) > 0 {
		caught := 0
		for _, c := range rep.Controls {
			if c.Caught {
				caught++
				continue
			}
			fmt.Fprintf(w, "  control %s of %s NOT CAUGHT (%s): a limit of this audit at %d trials; closest to failing it: %s\n", c.Name, c.Subject, c.Bug, rep.Trials, c.Closest)
		}
		fmt.Fprintf(w, "controls: %d of %d caught (mutants with a known bug; they do not enter the verdict)\n", caught, len(rep.Controls))
	}
	if rep.Summary.Verdict == reports.MeasurementVerdict {
		fmt.Fprintln(w, "measured: no claim was given, so nothing was judged; each figure is a lower bound or an estimate of what the models show")
	} else {
		fmt.Fprintln(w, "verdict: from the findings each claim requires; PASS means consistent, and every empirical PASS would have caught its F× violation with 80 % power")
	}
	files := []string{filepath.Join(dir, "report.json")}
	for _, f := range formats {
		files = append(files, filepath.Join(dir, "report."+f))
	}
	overall := rep.Summary.Verdict
	if overall == reports.MeasurementVerdict {
		overall += " (no claim, no verdict)"
	}
	fmt.Fprintf(w, "overall: %s; report: %s\n", overall, ShownPath(strings.Join(files, ", ")))
}

// Emit prints the summary table, or with asJSON the report's JSON (what report.json holds).
func Emit(w io.Writer, rep *reports.Report, dir string, formats []string, asJSON bool) error {
	if !asJSON {
		WriteSummary(w, rep, dir, formats)
		return nil
	}
	b, err := rep.JSON()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteOneRun prints the one-run table: each subject and control, the m that refuted it
// (or the cap), the one-run bound at the largest m run, 2ε, the AUROC and the per-canary
// μ the run reads; then why each control not refuted was not, and what the claim allows
// and a typical run needs per canary.
func WriteOneRun(w io.Writer, all []canary.OneRunResult, ladder []int, skipped []string, rep *reports.Report, dir string, took time.Duration) {
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
	fmt.Fprintf(w, "overall: %s; report: %s\n", rep.Summary.Verdict, ShownPath(filepath.Join(dir, "report.json")))
}

// WriteUtility prints the subjects' utility after the summary: a measurement, said to be
// no verdict.
func WriteUtility(w io.Writer, rep *reports.Report) {
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

// ShownPath is a path as a line on stdout shows it: as it is, or Go-quoted (strconv.Quote)
// when it holds a character that is not printable, so that a folder named with ESC[31m or
// an OSC title sequence is shown, not obeyed, by the terminal. Not clipped: CheckOut has
// bounded an output path to MaxPath bytes already.
func ShownPath(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return !strconv.IsPrint(r) }) || !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	return p
}
