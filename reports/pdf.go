package reports

import (
	"cmp"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/text/unicode/norm"
)

//go:embed fonts/DejaVuSansCondensed.ttf
var fontRegular []byte

//go:embed fonts/DejaVuSansCondensed-Bold.ttf
var fontBold []byte

// PDF writes the report as an A4 document with the Markdown's content, verdict first:
// the verdict table and what each verdict means, each subject's findings with their power
// and plots, the controls, each claim and derivation, and the inputs in an appendix on the
// last pages. DejaVu Sans is embedded (subset), so the symbols of a derivation print on
// any machine; the creation date is fixed and the objects sorted, so the same report gives
// the same bytes.
func (r *Report) PDF(w io.Writer) error {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetCatalogSort(true)
	p.AddUTF8FontFromBytes("dejavu", "", fontRegular)
	p.AddUTF8FontFromBytes("dejavu", "B", fontBold)
	p.SetMargins(15, 15, 15)
	p.SetAutoPageBreak(true, 15)
	p.SetTitle("Unlearning audit report", true)
	p.SetCreator(r.Tool.Name+" "+r.Tool.Version, true)
	// the document's dates are the audit's day (midnight UTC), a function of the report
	// like every other byte; a report without a date keeps the package's fixed one
	if d, err := time.Parse(DateLayout, r.Date); err == nil {
		p.SetCreationDate(d)
		p.SetModificationDate(d)
	}
	p.AddPage()
	pageW, pageH := p.GetPageSize()
	textW := pageW - 30

	para := func(size float64, style, text string) {
		p.SetFont("dejavu", style, size)
		p.MultiCell(textW, size*0.5, pdfText(text), "", "L", false)
		p.Ln(1)
	}
	// charts draws plots two to a row, starting a page when a row would not fit, and
	// captions them.
	charts := func(cs []*chart, caption string) {
		const gap = 4.0
		w := (textW - gap) / 2
		k := w / plotW
		for i := 0; i < len(cs); i += 2 {
			h := cs[i].height() * k
			if i+1 < len(cs) {
				h = max(h, cs[i+1].height()*k)
			}
			if p.GetY()+h > pageH-15 {
				p.AddPage()
			}
			y := p.GetY()
			cs[i].pdf(p, 15, y, w)
			if i+1 < len(cs) {
				cs[i+1].pdf(p, 15+w+gap, y, w)
			}
			p.SetY(y + h + 1)
		}
		para(8, "", caption)
	}
	heading := func(text string) {
		p.Ln(3)
		para(13, "B", text)
	}
	para(17, "B", "Unlearning audit report — "+r.Summary.Verdict)
	para(10, "", fmt.Sprintf("%s · %s · confidence %s", dateText(r.Date), trialsPerSubject(r.Command, r.Trials), num(r.Confidence)))
	para(12, "B", fmt.Sprintf("Overall verdict: %s (%d pass, %d fail, %d inconclusive)", r.Summary.Verdict, r.Summary.Pass, r.Summary.Fail, r.Summary.Inconclusive))

	heading("Verdicts")
	para(10, "", "A subject's verdict comes from the findings its claim requires; the others are supporting evidence, which cannot make it PASS but fail it when they show a violation.")
	cols := []struct {
		title string
		w     float64
	}{{"subject", 0.22}, {"verdict", 0.12}, {"pass", 0.055}, {"fail", 0.055}, {"inconcl.", 0.07}, {"empirical game · would catch F× with 80 % power", 0.48}}
	p.SetFont("dejavu", "B", 8)
	for _, c := range cols {
		p.CellFormat(c.w*textW, 6, c.title, "1", 0, "L", false, 0, "")
	}
	p.Ln(-1)
	p.SetFont("dejavu", "", 8)
	for _, s := range r.Subjects {
		var n [3]int
		n[0], n[1], n[2] = CountFindings(s.Findings)
		// the game's verdict and its power on two lines: on one, the power's trials-needed
		// did not fit the column and was cut
		game := []string{"—"}
		if f := GameFinding(s.Findings); f != nil {
			game = []string{f.Verdict, GamePower(f)}
		}
		cells := []string{s.Name, s.Verdict, fmt.Sprint(n[0]), fmt.Sprint(n[1]), fmt.Sprint(n[2])}
		const line = 4.5
		rowH := line * float64(len(game))
		for i, c := range cols[:len(cols)-1] {
			p.CellFormat(c.w*textW, rowH, fit(p, pdfText(cells[i]), c.w*textW-2), "1", 0, "L", false, 0, "")
		}
		last := cols[len(cols)-1].w * textW
		for i := range game {
			game[i] = fit(p, pdfText(game[i]), last-2)
		}
		p.MultiCell(last, line, strings.Join(game, "\n"), "1", "L", false) // ends the row
	}
	p.Ln(2)
	for _, s := range r.Subjects {
		para(9, "", s.Name+" — "+s.Verdict+": "+verdictMeaning(s.Verdict))
	}

	for _, s := range r.Subjects {
		heading(s.Name + " — " + s.Verdict)
		for _, f := range s.Findings {
			decides := "required"
			if !f.Required {
				decides = "supporting"
			}
			line := fmt.Sprintf("[%s] %s, %s — %s: measured %s", findingVerdict(s, f), decides, f.Kind, f.Title, num(f.Measured))
			if f.Interval != nil {
				line += fmt.Sprintf(" in [%s, %s]", num(f.Interval.Lower), num(f.Interval.Upper))
			}
			line += fmt.Sprintf(", %s at confidence %s", boundText(f.Comparison, f.Bound), num(f.Confidence))
			if f.Trials > 0 {
				line += fmt.Sprintf(", %d %s", f.Trials, cmp.Or(f.counts(), "trials"))
			}
			if f.TrialsNeeded > 0 {
				line += fmt.Sprintf(" (need %d)", f.TrialsNeeded)
			}
			para(9, "", line+".")
			if f.Detail != "" {
				para(8, "", f.Check+": "+f.Detail)
			}
			if f.Power != nil {
				para(8, "", "Power: "+powerDetail(f))
			}
			for _, e := range f.Estimates {
				est := fmt.Sprintf("Estimate (not a bound): %s = %s", e.Name, num(e.Value))
				if e.Interval != nil {
					est += fmt.Sprintf(" [%s, %s]", num(e.Interval.Lower), num(e.Interval.Upper))
				}
				if e.Note != "" {
					est += " — " + e.Note
				}
				para(8, "", est)
			}
			if f.Scores != nil {
				charts([]*chart{histogramChart(f.Scores), rocChart(f.Scores)}, f.Check+": the attack score ("+f.Scores.Name+"), unlearned (solid) against retrained (dashed), and the ROC curve of the threshold attack in that direction on log–log axes.")
			}
			if m := f.Membership; m != nil {
				para(9, "B", fmt.Sprintf("Membership on one model: %d deleted records against %d held-out records (%s intervals)", m.Forget, m.Holdout, num(m.Confidence)))
				for _, r := range membershipRows(m) {
					para(8, "", r[0]+": "+r[1]+" "+r[2])
				}
				charts([]*chart{membershipROCChart(m), exposureChart(m)}, f.Check+": "+membershipCaption(m))
			}
			if len(f.Traces) > 0 {
				var cs []*chart
				var names []string
				for _, t := range f.Traces {
					cs = append(cs, traceChart(t))
					names = append(names, t.Name+" (solid) against "+t.BoundName+" (dashed)")
				}
				charts(cs, f.Check+", request by request: "+strings.Join(names, "; ")+".")
			}
		}
		if u := s.Utility; u != nil {
			para(9, "B", "Utility (a measurement, no verdict)")
			for _, l := range u.Lines() {
				para(8, "", l)
			}
			para(8, "", utilityCaption(u))
		}
	}
	if len(r.Controls) > 0 {
		heading("Negative controls")
		para(10, "", "The same audit on mutants of the method with a known bug, which it must FAIL: they show which real bugs it catches on this data and trial count. A control not caught is a limit of the audit, not of the method; the check that came closest to failing it says which: far inside its bound, the bug does not break the claim on this data and no sound audit could fail it.")
		for _, c := range r.Controls {
			by := "NOT CAUGHT; closest: " + c.Closest
			if c.Caught {
				by = "caught by " + strings.Join(c.CaughtBy, ", ")
			}
			para(9, "", fmt.Sprintf("%s, %s (%s): %s — %s", c.Subject, c.Name, c.Bug, c.Verdict, by))
		}
		for _, m := range r.DetectionMatrices() {
			if len(m.Checks) == 0 {
				continue
			}
			para(10, "B", "Detection matrix, "+m.Subject+": each check's verdict on each planted bug; a FAIL gives the trials (or runs) it used.")
			for i, c := range m.Rows {
				var cells []string
				for j, v := range m.Cells[i] {
					cells = append(cells, m.Checks[j]+" "+v)
				}
				para(9, "", c.Name+": "+strings.Join(cells, "; "))
			}
		}
	}

	heading("Claims and derivations")
	for _, s := range r.Subjects {
		c := s.Claim
		claim := fmt.Sprintf("%s — claim: %s", s.Name, claimText(s, func(g string) string { return g }))
		if c.Rho != nil {
			claim += fmt.Sprintf(" (and the Rényi curve D_α ≤ α·%s)", num(*c.Rho))
		}
		p.Ln(1)
		para(10, "B", claim+".")
		settings := "Method: " + c.Method + ". Source: " + c.Source + ". Neighbouring relation: " + c.Relation + "."
		if s.Noise != "" {
			settings += " Noise stream: " + s.Noise + "."
		}
		para(9, "", settings)
		for _, a := range c.Assumptions {
			para(9, "", "• "+a)
		}
		if len(c.Constants) > 0 {
			var cs []string
			for _, v := range c.Constants {
				cs = append(cs, v.Name+" = "+num(v.Value))
			}
			para(9, "", "Constants: "+strings.Join(cs, ", ")+".")
		}
		if len(c.Derivation) > 0 {
			para(9, "B", "Derivation")
			for _, st := range c.Derivation {
				para(9, "", fmt.Sprintf("%s = %s = %s", st.Quantity, st.Formula, num(st.Value)))
			}
		}
		for _, n := range c.Notes {
			para(9, "", "Note: "+n)
		}
	}

	// the inputs at the end, on a page of their own unless most of this one is free: the
	// hashes of eighty model files are what a reader checks last
	if p.GetY() > pageH/3 {
		p.AddPage()
	} else {
		p.Ln(3)
	}
	para(13, "B", "Appendix: inputs")
	if r.Data.hasData() {
		para(10, "", fmt.Sprintf("%s: %d rows × %d features.", r.Data.Description, r.Data.Rows, r.Data.Features))
	} else {
		para(10, "", strings.TrimSuffix(r.Data.Description, ".")+". "+noDataText)
	}
	for _, pr := range r.Data.Preprocessing {
		para(9, "", "• "+pr)
	}
	if len(r.Data.Requests) > 0 {
		para(9, "", "Requests served, in order: "+strings.Join(r.Data.Requests, ", ")+".")
	}
	for _, in := range r.Inputs {
		para(8, "", fmt.Sprintf("%s: %s (%d bytes, SHA-256 %s)", in.Role, in.Path, in.Bytes, in.SHA256))
	}
	if len(r.CommandLine) > 0 {
		para(9, "", "Command line (flags that only place or show the output left out): "+ShellLine(r.CommandLine))
	}
	para(9, "", fmt.Sprintf("%s %s · schema %s · command %s · seed %d", r.Tool.Name, r.Tool.Version, r.Schema, r.Command, r.Seed))
	if t := EvidenceText(r.TrialEvidence); t != "" {
		para(9, "", t)
	}
	if err := p.Error(); err != nil {
		return fmt.Errorf("render pdf: %w", err)
	}
	if err := p.Output(w); err != nil {
		return fmt.Errorf("render pdf: %w", err)
	}
	return nil
}

// pdfText maps the characters fpdf cannot encode — those outside the Basic Multilingual
// Plane, such as the script 𝒟 of the derivations — to their compatibility forms (NFKC:
// 𝒟 → D), and anything left to "?".
func pdfText(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r > 0xFFFF }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r <= 0xFFFF {
			b.WriteRune(r)
			continue
		}
		alt := norm.NFKC.String(string(r))
		if strings.ContainsFunc(alt, func(r rune) bool { return r > 0xFFFF }) {
			alt = "?"
		}
		b.WriteString(alt)
	}
	return b.String()
}

// fit shortens text with an ellipsis to the given width in the current font.
func fit(p *fpdf.Fpdf, text string, width float64) string {
	if p.GetStringWidth(text) <= width {
		return text
	}
	r := []rune(text)
	for len(r) > 0 && p.GetStringWidth(string(r)+"…") > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}
