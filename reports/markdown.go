package reports

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// num formats a number for tables: six significant digits, ±∞ spelled out.
func num(n Number) string {
	f := float64(n)
	switch {
	case math.IsInf(f, 1):
		return "+∞"
	case math.IsInf(f, -1):
		return "−∞"
	case math.IsNaN(f):
		return "NaN"
	}
	return fmt.Sprintf("%.6g", f)
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

// Markdown renders the report for people: summary first, then each subject's claim with
// its derivation and its findings.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Unlearning audit report\n\n")
	fmt.Fprintf(&b, "%s %s · schema `%s` · command `%s` · seed %d · %d trials per subject · confidence %s\n\n",
		r.Tool.Name, r.Tool.Version, r.Schema, r.Command, r.Seed, r.Trials, num(r.Confidence))
	fmt.Fprintf(&b, "**Overall verdict: %s** (%d pass, %d fail, %d inconclusive)\n\n", r.Summary.Verdict, r.Summary.Pass, r.Summary.Fail, r.Summary.Inconclusive)

	fmt.Fprintf(&b, "## Data\n\n%s: %d rows × %d features.\n\n", r.Data.Description, r.Data.Rows, r.Data.Features)
	for _, p := range r.Data.Preprocessing {
		fmt.Fprintf(&b, "- %s\n", p)
	}
	if len(r.Data.Preprocessing) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Requests served, in order: %s.\n\n", strings.Join(r.Data.Requests, ", "))
	if len(r.Inputs) > 0 {
		b.WriteString("| input | path | SHA-256 | bytes |\n|---|---|---|---|\n")
		for _, in := range r.Inputs {
			fmt.Fprintf(&b, "| %s | `%s` | `%s` | %d |\n", in.Role, cell(in.Path), in.SHA256, in.Bytes)
		}
		b.WriteString("\n")
	}

	b.WriteString("## Summary\n\n| subject | verdict | pass | fail | inconclusive |\n|---|---|---|---|---|\n")
	for _, s := range r.Subjects {
		var p, f, i int
		for _, x := range s.Findings {
			switch x.Verdict {
			case "PASS":
				p++
			case "FAIL":
				f++
			default:
				i++
			}
		}
		fmt.Fprintf(&b, "| %s | **%s** | %d | %d | %d |\n", s.Name, s.Verdict, p, f, i)
	}
	b.WriteString("\n")

	for _, s := range r.Subjects {
		c := s.Claim
		fmt.Fprintf(&b, "## %s — %s\n\n", s.Name, s.Verdict)
		fmt.Fprintf(&b, "**Claim.** %s with ε = %s, δ = %s", c.Guarantee, num(c.Epsilon), num(c.Delta))
		if c.Rho != nil {
			fmt.Fprintf(&b, " (and the Rényi curve D_α ≤ α·%s)", num(*c.Rho))
		}
		fmt.Fprintf(&b, ".\n\n- Method: %s\n- Source: %s\n- Neighbouring relation: %s\n", c.Method, c.Source, c.Relation)
		b.WriteString("\n**Assumptions.**\n\n")
		for _, a := range c.Assumptions {
			fmt.Fprintf(&b, "- %s\n", a)
		}
		b.WriteString("\n**Constants.** ")
		var cs []string
		for _, v := range c.Constants {
			cs = append(cs, fmt.Sprintf("%s = %s", v.Name, num(v.Value)))
		}
		b.WriteString(strings.Join(cs, ", ") + ".\n\n")
		b.WriteString("**Derivation.**\n\n| quantity | formula | value |\n|---|---|---|\n")
		for _, st := range c.Derivation {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(st.Quantity), cell(st.Formula), num(st.Value))
		}
		b.WriteString("\n")
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "> %s\n\n", n)
		}
		b.WriteString("**Findings.**\n\n| verdict | kind | check | measured | interval | bound | confidence | trials |\n|---|---|---|---|---|---|---|---|\n")
		for _, f := range s.Findings {
			iv := "—"
			if f.Interval != nil {
				iv = fmt.Sprintf("[%s, %s]", num(f.Interval.Lower), num(f.Interval.Upper))
			}
			trials := "—"
			if f.Trials > 0 {
				trials = fmt.Sprint(f.Trials)
			}
			if f.TrialsNeeded > 0 {
				trials += fmt.Sprintf(" (need %d)", f.TrialsNeeded)
			}
			fmt.Fprintf(&b, "| **%s** | %s | %s | %s | %s | %s %s | %s | %s |\n",
				f.Verdict, f.Kind, cell(f.Title), num(f.Measured), iv, f.Comparison, num(f.Bound), num(f.Confidence), trials)
		}
		b.WriteString("\n")
		for _, f := range s.Findings {
			if f.Detail != "" {
				fmt.Fprintf(&b, "- `%s`: %s\n", f.Check, f.Detail)
			}
			for _, e := range f.Estimates {
				iv := ""
				if e.Interval != nil {
					iv = fmt.Sprintf(" [%s, %s]", num(e.Interval.Lower), num(e.Interval.Upper))
				}
				fmt.Fprintf(&b, "  - estimate (not a bound): %s = %s%s", e.Name, num(e.Value), iv)
				if e.Note != "" {
					fmt.Fprintf(&b, " — %s", e.Note)
				}
				b.WriteString("\n")
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
