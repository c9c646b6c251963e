package reports

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// The PDF is deterministic (fixed dates, sorted objects) and carries the verdicts, the
// power statement, the derivation with its symbols and the HTML page's plots: pdftotext (Debian's poppler-utils,
// which .ci/run installs) reads them back. The script 𝒟, outside what fpdf encodes, prints
// as D.
func TestPDF(t *testing.T) {
	r := sample()
	r.Subjects[0].Claim.Relation = "replace one record of 𝒟"
	r.Subjects[0].Findings[2].Scores = verdict.SummarizeScores("projection", []float64{1, 2, 3, 4}, []float64{0, 1, 2, 3})
	r.Subjects[0].Findings[0].Traces = []Trace{{Name: "distance to θ*_i", BoundName: "radius", Requests: []int{1, 2, 3},
		Values: []table.Number{1e-6, 2e-6, 0}, Bound: []table.Number{1e-2, 1e-2, 2e-2}}}
	r.Controls = []Control{{Subject: "x", Name: "weak-noise", Bug: "a tenth of the noise", Verdict: "FAIL", Caught: true, CaughtBy: []string{"x/fail"},
		Checks: []ControlCheck{{Check: "x/fail", Verdict: "FAIL", Trials: 40}, {Check: "x/radius", Verdict: "PASS"}}}}
	var a, b bytes.Buffer
	if err := r.PDF(&a); err != nil {
		t.Fatal(err)
	}
	if err := r.PDF(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renderings of one report differ")
	}
	if !bytes.HasPrefix(a.Bytes(), []byte("%PDF-")) {
		t.Fatal("not a PDF")
	}
	out := []byte(readPDFText(t, a.Bytes(), "-layout"))
	text := string(out)
	for _, want := range []string{"Unlearning audit report — FAIL", "A violation of the claim was shown", "σ = Δ/… = 0.046",
		"D_α ≤ α·0.0175", "[FAIL] required, release — broken", "no (power 0.01 against 2×", "replace one record of D",
		// the plots: their titles, axes and captions
		"histogram: projection", "ROC (log–log): projection", "false-positive rate (retrained called unlearned)",
		"x/pass, request by request: distance to θ*_i (solid) against radius (dashed)", "request", "1e-6", "— measured",
		// the controls and their detection matrix
		"weak-noise (a tenth of the noise): FAIL — caught by x/fail", "Detection matrix, x", "weak-noise: x/fail FAIL (40); x/radius pass"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF's text lacks %q:\n%s", want, text)
		}
	}
}

// readPDFText is pdftotext's reading of a PDF, with its flags (-layout keeps columns): the
// renderings' text as a reader gets it. Skipped when poppler-utils is not installed,
// failed under CI, which installs it.
func readPDFText(t *testing.T, pdf []byte, flags ...string) string {
	t.Helper()
	tool, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("pdftotext missing (apt-get install poppler-utils): %v", err)
		}
		t.Skipf("pdftotext not installed (apt-get install poppler-utils): %v", err)
	}
	path := filepath.Join(t.TempDir(), "r.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, append(flags, path, "-")...).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// The PDF's CreationDate and ModDate are the report's audit date, so a PDF handed on says
// when the audit ran (it said 2000-01-01), and stay a function of the report: one without
// a date keeps the fixed 2000-01-01, never the clock's time at rendering.
func TestPDFDatesAreTheAuditDate(t *testing.T) {
	for _, c := range []struct{ date, want string }{{"2025-03-01", "D:20250301000000"}, {"2026-11-29", "D:20261129000000"}, {"", "D:20000101000000"}} {
		r := sample()
		r.Date = c.date
		var b bytes.Buffer
		if err := r.PDF(&b); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"/CreationDate", "/ModDate"} {
			i := bytes.Index(b.Bytes(), []byte(key+" ("))
			if i < 0 {
				t.Fatalf("date %q: the PDF has no %s", c.date, key)
			}
			val := b.Bytes()[i+len(key)+2:]
			if end := bytes.IndexByte(val, ')'); end >= 0 {
				val = val[:end]
			}
			if string(val) != c.want {
				t.Errorf("date %q: %s (%s), want (%s)", c.date, key, val, c.want)
			}
		}
	}
}
