package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// A subject's noise stream is shown beside its method, source and relation in Markdown and
// HTML, kept through the JSON round trip, and absent (no field, no line) for a subject
// that names none. Planted by hand: the Markdown line printed for every subject fails the
// count, the field without omitempty fails the absent check, and the PDF's settings line
// without the stream fails the PDF's.
func TestNoiseStreamShown(t *testing.T) {
	claim := verdict.Claim{Method: "m", Required: []verdict.Kind{verdict.Certificate}}
	f := verdict.Finding{Check: "c", Title: "t", Kind: verdict.Certificate, Verdict: verdict.Pass, Comparison: "≤", Confidence: 1}
	r := &Report{Schema: Schema, Subjects: []Subject{NewSubject("a", claim, []verdict.Finding{f}), NewSubject("b", claim, []verdict.Finding{f})}}
	r.Subjects[0].Noise = "gen/v1"
	r.Summarize()
	var md, h, pdf bytes.Buffer
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(md.String(), "- Noise stream: "); n != 1 || !strings.Contains(md.String(), "- Neighbouring relation: \n- Noise stream: gen/v1\n") {
		t.Errorf("Markdown shows %d noise streams, want subject a's beside its relation:\n%s", n, md.String())
	}
	if err := r.HTML(&h); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h.String(), "<li>Noise stream: gen/v1</li>"); n != 1 || strings.Count(h.String(), "Noise stream") != 1 {
		t.Errorf("HTML shows the noise stream %d times, want once", n)
	}
	if err := r.PDF(&pdf); err != nil {
		t.Fatal(err)
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"noise"`); n != 1 {
		t.Errorf("JSON holds %d noise fields, want 1 (omitted where none)", n)
	}
	back, err := ReadJSON(bytes.NewReader(b), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Subjects[0].Noise != "gen/v1" || back.Subjects[1].Noise != "" {
		t.Errorf("after the JSON round trip: %q, %q", back.Subjects[0].Noise, back.Subjects[1].Noise)
	}
	// last: readPDFText skips where pdftotext is missing (not under CI)
	if text := strings.Join(strings.Fields(readPDFText(t, pdf.Bytes())), " "); strings.Count(text, "Noise stream") != 1 || !strings.Contains(text, "Noise stream: gen/v1.") {
		t.Errorf("the PDF shows the noise stream %d times, want subject a's once:\n%s", strings.Count(text, "Noise stream"), text)
	}
}
