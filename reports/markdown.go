package reports

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports/table"
)

// num formats a number for tables (table.Format).
func num(n table.Number) string { return table.Format(n) }

// Markdown renders the report for people, the verdict first (see verdictfirst.go): title,
// date and verdict, the verdict table, each subject's findings, the negative controls, the
// claims with their derivations, and an appendix of the inputs.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Unlearning audit report — %s\n\n", text(r.Summary.Verdict))
	fmt.Fprintf(&b, "%s · %s · confidence %s\n\n", text(dateText(r.Date)), trialsPerSubject(r.Command, r.Trials), num(r.Confidence))
	fmt.Fprintf(&b, "**Overall verdict: %s** (%d pass, %d fail, %d inconclusive)\n\n", text(r.Summary.Verdict), r.Summary.Pass, r.Summary.Fail, r.Summary.Inconclusive)

	b.WriteString("## Verdicts\n\n")
	b.WriteString("A subject's verdict comes from the findings its claim requires; the others are supporting evidence, " +
		"which cannot make it PASS but fail it when they show a violation. " +
		"PASS means no violation was shown and the check could have shown one: a deterministic check by construction, " +
		"an empirical game only if it would have caught the named violation (a Gaussian pair at F× the claimed ε) with 80 % power.\n\n")
	b.WriteString("| subject | verdict | pass | fail | inconclusive | empirical game | would catch F× with 80 % power |\n|---|---|---|---|---|---|---|\n")
	for _, s := range r.Subjects {
		p, f, i := CountFindings(s.Findings)
		game, power := "—", "—"
		if x := GameFinding(s.Findings); x != nil { // the distinguishing game on the published models
			game = cell(x.Verdict)
			if !x.Required {
				game += " (supporting)"
			}
			power = GamePower(x)
		}
		fmt.Fprintf(&b, "| %s | **%s** | %d | %d | %d | %s | %s |\n", cell(s.Name), cell(s.Verdict), p, f, i, game, power)
	}
	b.WriteString("\n")

	for _, s := range r.Subjects {
		fmt.Fprintf(&b, "## %s — %s\n\n", text(s.Name), text(s.Verdict))
		fmt.Fprintf(&b, "%s\n\n", verdictMeaning(s.Verdict))
		b.WriteString("| verdict | decides | kind | check | measured | interval | bound | confidence | trials |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, f := range s.Findings {
			iv := "—"
			if f.Interval != nil {
				iv = fmt.Sprintf("[%s, %s]", num(f.Interval.Lower), num(f.Interval.Upper))
			}
			trials := "—"
			if f.Trials > 0 {
				trials = fmt.Sprint(f.Trials)
				if c := f.counts(); c != "" {
					trials += " " + cell(c)
				}
			}
			if f.TrialsNeeded > 0 {
				trials += fmt.Sprintf(" (need %d)", f.TrialsNeeded)
			}
			decides := "required"
			if !f.Required {
				decides = "supporting"
			}
			fmt.Fprintf(&b, "| **%s** | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				cell(findingVerdict(s, f)), decides, cell(f.Kind), cell(f.Title), num(f.Measured), iv, cell(boundText(f.Comparison, f.Bound)), num(f.Confidence), trials)
		}
		b.WriteString("\n")
		for _, f := range s.Findings {
			if f.Detail != "" {
				fmt.Fprintf(&b, "- %s: %s\n", code(f.Check), text(f.Detail))
			}
			if f.Power != nil {
				fmt.Fprintf(&b, "  - power: %s\n", text(powerDetail(f)))
			}
			for _, e := range f.Estimates {
				iv := ""
				if e.Interval != nil {
					iv = fmt.Sprintf(" [%s, %s]", num(e.Interval.Lower), num(e.Interval.Upper))
				}
				fmt.Fprintf(&b, "  - estimate (not a bound): %s = %s%s", text(e.Name), num(e.Value), iv)
				if e.Note != "" {
					fmt.Fprintf(&b, " — %s", text(e.Note))
				}
				b.WriteString("\n")
			}
			for _, t := range f.Traces {
				fmt.Fprintf(&b, "  - per request, %s against %s: %s\n", text(t.Name), text(t.BoundName), traceCells(t))
			}
		}
		b.WriteString("\n")
		for _, f := range s.Findings {
			if m := f.Membership; m != nil {
				fmt.Fprintf(&b, "**Membership on one model** (%s): %d deleted records against %d held-out records; a measurement, not an ε bound.\n\n", code(f.Check), m.Forget, m.Holdout)
				fmt.Fprintf(&b, "| measure | value | %s interval |\n|---|---|---|\n", num(m.Confidence))
				for _, r := range membershipRows(m) {
					fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(r[0]), r[1], r[2])
				}
				b.WriteString("\n")
			}
		}
		if s.Utility != nil {
			utilityMarkdown(&b, s.Utility)
		}
	}
	if len(r.Controls) > 0 {
		b.WriteString("## Negative controls\n\n")
		b.WriteString("The same audit on mutants of the method with a known bug, which it must FAIL: they show which real bugs it catches on this data and trial count. A control not caught is a limit of the audit, not of the method; the check that came closest to failing it says which: far inside its bound, the bug does not break the claim on this data and no sound audit could fail it.\n\n")
		b.WriteString("| subject | control | bug | verdict | caught by |\n|---|---|---|---|---|\n")
		for _, c := range r.Controls {
			by := "**not caught**; closest: " + cell(c.Closest)
			if c.Caught {
				checks := make([]string, len(c.CaughtBy))
				for i, x := range c.CaughtBy {
					checks[i] = codeCell(x)
				}
				by = strings.Join(checks, ", ")
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(c.Subject), cell(c.Name), cell(c.Bug), cell(c.Verdict), by)
		}
		b.WriteString("\n")
		for _, m := range r.DetectionMatrices() {
			if len(m.Checks) == 0 {
				continue
			}
			fmt.Fprintf(&b, "**Detection matrix, %s**: each check's verdict on each planted bug; a FAIL gives the trials (or runs) it used.\n\n| check |", cell(m.Subject))
			for _, c := range m.Rows {
				fmt.Fprintf(&b, " %s |", cell(c.Name))
			}
			b.WriteString("\n|---|" + strings.Repeat("---|", len(m.Rows)) + "\n")
			for j, c := range m.Checks {
				fmt.Fprintf(&b, "| %s |", codeCell(c))
				for i := range m.Rows {
					v := m.Cells[i][j]
					if strings.HasPrefix(v, "FAIL") {
						v = "**" + v + "**"
					}
					fmt.Fprintf(&b, " %s |", v)
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
	}

	b.WriteString("## Claims and derivations\n\n")
	for _, s := range r.Subjects {
		c := s.Claim
		fmt.Fprintf(&b, "### %s\n\n", text(s.Name))
		fmt.Fprintf(&b, "**Claim.** %s", claimText(s, text))
		if c.Rho != nil {
			fmt.Fprintf(&b, " (and the Rényi curve D_α ≤ α·%s)", num(*c.Rho))
		}
		fmt.Fprintf(&b, ".\n\n- Method: %s\n- Source: %s\n- Neighbouring relation: %s\n", text(c.Method), text(c.Source), text(c.Relation))
		if s.Noise != "" {
			fmt.Fprintf(&b, "- Noise stream: %s\n", text(s.Noise))
		}
		if len(c.Assumptions) > 0 {
			b.WriteString("\n**Assumptions.**\n\n")
			for _, a := range c.Assumptions {
				fmt.Fprintf(&b, "- %s\n", text(a))
			}
		}
		if len(c.Constants) > 0 {
			b.WriteString("\n**Constants.** ")
			var cs []string
			for _, v := range c.Constants {
				cs = append(cs, fmt.Sprintf("%s = %s", text(v.Name), num(v.Value)))
			}
			b.WriteString(strings.Join(cs, ", ") + ".\n")
		}
		b.WriteString("\n")
		if len(c.Derivation) > 0 {
			b.WriteString("**Derivation.**\n\n| quantity | formula | value |\n|---|---|---|\n")
			for _, st := range c.Derivation {
				fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(st.Quantity), cell(st.Formula), num(st.Value))
			}
			b.WriteString("\n")
		}
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "> %s\n\n", text(n))
		}
	}

	b.WriteString("## Appendix: inputs\n\n")
	if r.Data.hasData() {
		fmt.Fprintf(&b, "%s: %d rows × %d features.\n\n", text(r.Data.Description), r.Data.Rows, r.Data.Features)
	} else {
		fmt.Fprintf(&b, "%s.\n\n%s\n\n", text(strings.TrimSuffix(r.Data.Description, ".")), noDataText)
	}
	for _, p := range r.Data.Preprocessing {
		fmt.Fprintf(&b, "- %s\n", text(p))
	}
	if len(r.Data.Preprocessing) > 0 {
		b.WriteString("\n")
	}
	if len(r.Data.Requests) > 0 {
		fmt.Fprintf(&b, "Requests served, in order: %s.\n\n", text(strings.Join(r.Data.Requests, ", ")))
	}
	if len(r.Inputs) > 0 {
		b.WriteString("| input | path | SHA-256 | bytes |\n|---|---|---|---|\n")
		for _, in := range r.Inputs {
			fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", cell(in.Role), codeCell(in.Path), codeCell(in.SHA256), in.Bytes)
		}
		b.WriteString("\n")
	}
	if len(r.CommandLine) > 0 {
		fmt.Fprintf(&b, "Command line (flags that only place or show the output left out): %s\n\n", code(ShellLine(r.CommandLine)))
	}
	fmt.Fprintf(&b, "%s %s · schema %s · command %s · seed %d\n\n", text(r.Tool.Name), cell(r.Tool.Version), code(r.Schema), code(r.Command), r.Seed)
	if t := evidenceText(r.TrialEvidence, cell); t != "" {
		fmt.Fprintf(&b, "%s\n\n", t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// trialsPerSubject is the header's count of a report's samples: "200 trials per subject"
// (or "1 trial per subject") where the toolkit ran them; for verify (command "verify"),
// whose samples are models trained elsewhere (their parameters or their scores), "64
// unlearned models" (or "1 unlearned model") — they are not trials the toolkit ran.
func trialsPerSubject(command string, n int) string {
	if command == "verify" {
		if n == 1 {
			return "1 unlearned model"
		}
		return fmt.Sprintf("%d unlearned models", n)
	}
	if n == 1 {
		return "1 trial per subject"
	}
	return fmt.Sprintf("%d trials per subject", n)
}

// counts is what a finding's trials count when they are not trials (its power's Counts,
// e.g. "deleted records"), or "".
func (f Finding) counts() string {
	if f.Power != nil {
		return f.Power.Counts
	}
	return ""
}

// PowerVerdict says in a few words whether an empirical check had the power a PASS needs:
// "yes (≥ 1.6×)" or "no (power 0.03; ≈ 210000 trials needed)".
func PowerVerdict(p *Power) string {
	if p == nil {
		return "—"
	}
	if float64(p.Power) >= 0.8 {
		return fmt.Sprintf("yes (catches ≥ %s×)", num(table.Number(verdict.RoundUp3(float64(p.SmallestFactor)))))
	}
	return "no (" + powerShortfall(p) + ")"
}

// powerShortfall is why an empirical check lacks the power a PASS needs: its power
// against the violation it was asked to catch, and the trials that would give it.
func powerShortfall(p *Power) string {
	out := fmt.Sprintf("power %.2f against %s×", float64(p.Power), num(p.Against))
	if p.TrialsNeeded > 0 {
		out += fmt.Sprintf("; ≈ %d %s needed", p.TrialsNeeded, cmp.Or(p.Counts, "trials per side"))
	}
	return out
}

// traceCells writes a trace's points as "request: value ≤ bound", separated by " · ",
// with ">" where the value is past its bound.
func traceCells(t Trace) string {
	cells := make([]string, len(t.Values))
	for i, v := range t.Values {
		op := "≤"
		if !verdict.FloatTolerance(float64(v), float64(t.Bound[i])) {
			op = ">"
		}
		cells[i] = fmt.Sprintf("%d: %s %s %s", t.Requests[i], num(v), op, num(t.Bound[i]))
	}
	return strings.Join(cells, " · ")
}

// membershipRows are the rows of a membership measurement's table — measure, value,
// interval — shared by every format: the AUC with its method, and each TPR at low FPR with
// its Clopper–Pearson interval and what its threshold flagged.
func membershipRows(m *Membership) [][3]string {
	rows := [][3]string{{"AUC (½ is chance; " + m.AUCMethod + ")", num(m.AUC), fmt.Sprintf("[%s, %s]", num(m.AUCLimits.Lower), num(m.AUCLimits.Upper))}}
	for _, t := range m.TPR {
		rows = append(rows, [3]string{
			fmt.Sprintf("TPR at FPR %s %% (%d of %d deleted and %d of %d held-out records flagged)", num(100*t.FPR), t.TP, m.Forget, t.FP, m.Holdout),
			num(t.TPR), fmt.Sprintf("[%s, %s] (Clopper–Pearson)", num(t.Interval.Lower), num(t.Interval.Upper))})
	}
	return rows
}

// membershipCaption says what a membership measurement's plots show and what it is not.
func membershipCaption(m *Membership) string {
	return fmt.Sprintf("the model's scores on %d deleted records against %d held-out records it never trained on. "+
		"The ROC is on log–log axes from FPR 1/%d, the smallest nonzero rate %d held-out records can show; "+
		"each dot of the per-record plot is a deleted record's score, the holdout's 95th and 99th percentiles dashed: "+
		"a model that forgot the records leaves about 5 %% and 1 %% of them above. "+
		"A membership measurement, not an ε bound: it becomes one only through a one-run audit.", m.Forget, m.Holdout, m.Holdout, m.Holdout)
}
