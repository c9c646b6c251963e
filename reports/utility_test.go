package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"gonum.org/v1/gonum/mat"
)

// Utility is a measurement beside the verdict: a report with it has the same verdict and
// tallies as without it, its table shows each side's mean ± SD and their difference, and
// it survives the JSON round trip. Planted by hand: counting each utility row as an
// inconclusive finding in Summarize fails the tally assertion; the sides swapped in
// utilityTable fails the Markdown one.
func TestUtilityIsNoVerdict(t *testing.T) {
	u, err := verify.MeasureUtility("per-record values in u.npz", []verify.UtilityInput{
		{Side: "unlearned", Set: "forget", Values: verify.UtilityLoss, M: denseOf(2, 2, 1, 2, 3, 4)},
		{Side: "retrained", Set: "forget", Values: verify.UtilityLoss, M: denseOf(2, 2, 2, 2, 4, 4)},
		{Side: "unlearned", Set: "test", Values: verify.UtilityCorrect, M: denseOf(2, 2, 1, 1, 1, 0)},
	}, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	claim := audit.Claim{Required: []audit.Kind{audit.Certificate}}
	f := audit.Finding{Check: "c", Title: "t", Kind: audit.Certificate, Verdict: audit.Pass, Comparison: "≤", Confidence: 1}
	plain := &Report{Schema: Schema, Subjects: []Subject{NewSubject("s", claim, []audit.Finding{f})}}
	with := &Report{Schema: Schema, Subjects: []Subject{NewSubject("s", claim, []audit.Finding{f})}}
	with.Subjects[0].Utility = NewUtility(u)
	plain.Summarize()
	with.Summarize()
	if plain.Summary != with.Summary || with.Summary.Verdict != "PASS" || with.Summary.Pass != 1 || with.Summary.Inconclusive != 0 {
		t.Fatalf("summary with utility %+v, without %+v; want the same, 1 pass", with.Summary, plain.Summary)
	}
	var md bytes.Buffer
	if err := with.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Utility** (a measurement, no verdict)",
		"| forget | loss | 2.5 ± 1.41421 (2 × 2) | 3 ± 1.41421 (2 × 2) | -0.5 |",
		"| test | accuracy | 0.75 ± 0.353553 (2 × 2) | — | — |",
		"From per-record values in u.npz.",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if l := with.Subjects[0].Utility.Lines(); len(l) != 2 || l[0] != "forget loss: unlearned 2.5 ± 1.41421 (2 × 2); retrained 3 ± 1.41421 (2 × 2); unlearned − retrained -0.5" {
		t.Errorf("Lines: %q", l)
	}
	b, err := with.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(bytes.NewReader(b), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Subjects[0].Utility; got == nil || len(got.Rows) != 3 || got.Rows[0] != with.Subjects[0].Utility.Rows[0] {
		t.Errorf("utility after the JSON round trip: %+v", got)
	}
	for _, render := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return with.HTML(b) },
		func(b *bytes.Buffer) error { return with.PDF(b) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
	}
	var h bytes.Buffer
	with.HTML(&h)
	if !strings.Contains(h.String(), "<td>2.5 ± 1.41421 (2 × 2)</td>") {
		t.Errorf("HTML lacks the utility table")
	}
}

// denseOf is an r × c matrix of the values, row by row.
func denseOf(r, c int, v ...float64) *mat.Dense { return mat.NewDense(r, c, v) }
