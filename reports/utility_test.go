package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// Utility is a measurement beside the verdict: a report with it has the same verdict and
// tallies as without it, its table shows each side's mean ± SD and their difference, and
// it survives the JSON round trip. Planted by hand: counting each utility row as an
// inconclusive finding in Summarize fails the tally assertion; the sides swapped in
// utilityTable fails the Markdown one.
func TestUtilityIsNoVerdict(t *testing.T) {
	// the rows audit.MeasureUtility makes of per-record losses [1 2; 3 4] (unlearned) and
	// [2 2; 4 4] (retrained) on the forget set and correct predictions [1 1; 1 0]
	// (unlearned) on the test set, two models × two records each: reports renders values
	// its callers computed, and audit's own tests check the computing
	u := &verdict.Utility{Source: "per-record values in u.npz", Rows: []verdict.UtilityRow{
		{Set: "forget", Measure: "loss", Side: "unlearned", Models: 2, Records: 2, Mean: 2.5, SD: math.Sqrt(2)},
		{Set: "forget", Measure: "loss", Side: "retrained", Models: 2, Records: 2, Mean: 3, SD: math.Sqrt(2)},
		{Set: "test", Measure: "accuracy", Side: "unlearned", Models: 2, Records: 2, Mean: 0.75, SD: math.Sqrt(0.125)},
	}}
	claim := verdict.Claim{Required: []verdict.Kind{verdict.Certificate}}
	f := verdict.Finding{Check: "c", Title: "t", Kind: verdict.Certificate, Verdict: verdict.Pass, Comparison: "≤", Confidence: 1}
	plain := &Report{Schema: Schema, Subjects: []Subject{NewSubject("s", claim, []verdict.Finding{f})}}
	with := &Report{Schema: Schema, Subjects: []Subject{NewSubject("s", claim, []verdict.Finding{f})}}
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
