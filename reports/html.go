package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

//go:embed html.tmpl
var htmlFiles embed.FS

var htmlPage = template.Must(template.New("html.tmpl").Funcs(template.FuncMap{
	"num":         num,
	"claim":       func(s Subject) string { return claimText(s, func(g string) string { return g }) },
	"fverdict":    findingVerdict,
	"nump":        func(n *table.Number) string { return num(*n) },
	"gamepower":   GamePower,
	"powerdetail": powerDetail,
	"bound":       boundText,
	"date":        dateText,
	"perSubject":  trialsPerSubject,
	"hasdata":     Data.hasData,
	"nodata":      func() string { return noDataText },
	"trimdot":     func(s string) string { return strings.TrimSuffix(s, ".") },
	"lower":       strings.ToLower,
	"counts": func(fs []Finding) [3]int {
		p, f, i := CountFindings(fs)
		return [3]int{p, f, i}
	},
	"game":              GameFinding,
	"meaning":           verdictMeaning,
	"shell":             ShellLine,
	"evidence":          EvidenceText,
	"histogram":         func(s *verdict.ScoreSummary) template.HTML { return histogramChart(s).svg() },
	"roc":               func(s *verdict.ScoreSummary) template.HTML { return rocChart(s).svg() },
	"trace":             func(t Trace) template.HTML { return traceChart(t).svg() },
	"memroc":            func(m *Membership) template.HTML { return membershipROCChart(m).svg() },
	"exposure":          func(m *Membership) template.HTML { return exposureChart(m).svg() },
	"rows":              membershipRows,
	"membershipCaption": membershipCaption,
	"utilitytable":      utilityTable,
	"utilityCaption":    utilityCaption,
}).ParseFS(htmlFiles, "html.tmpl"))

// verdictMeaning says in plain words what a subject's verdict means.
func verdictMeaning(v string) string {
	switch v {
	case "PASS":
		return "No violation of the claim was shown, and every check that decides it could have shown one: the deterministic checks by construction, the empirical ones with 80 % power against the named violation."
	case "FAIL":
		return "A violation of the claim was shown at the stated confidence."
	case MeasurementVerdict:
		return "No claim was made, so none was judged: the findings are measurements of what the models show (an ε lower bound, its Gaussian-DP μ, AUC, TPR at low FPR), with no verdict."
	}
	return "No violation was shown, but a check that decides the claim could not have shown one: its finding says what would decide — more trials, models or canaries, with their number where one can be computed."
}

// HTML writes the report as one self-contained page — inline CSS, no script, no network —
// that reads on a laptop and prints. Every string from the report is escaped
// (html/template), and the same report gives the same bytes.
func (r *Report) HTML(w io.Writer) error {
	var b strings.Builder
	if err := htmlPage.Execute(&b, r); err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
