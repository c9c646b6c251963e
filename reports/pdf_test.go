package reports

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The PDF is deterministic (fixed dates, sorted objects) and carries the verdicts, the
// power statement and the derivation with its symbols: pdftotext (Debian's poppler-utils,
// which .ci/run installs) reads them back. The script 𝒟, outside what fpdf encodes, prints
// as D.
func TestPDF(t *testing.T) {
	r := sample()
	r.Subjects[0].Claim.Relation = "replace one record of 𝒟"
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
	tool, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("pdftotext missing (apt-get install poppler-utils): %v", err)
		}
		t.Skipf("pdftotext not installed (apt-get install poppler-utils): %v", err)
	}
	path := filepath.Join(t.TempDir(), "r.pdf")
	if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "-layout", path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"Unlearning audit report — FAIL", "A violation of the claim was shown", "σ = Δ/… = 0.046",
		"D_α ≤ α·0.0175", "[FAIL] required, release — broken", "no (power 0.01 against 2×", "replace one record of D"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF's text lacks %q:\n%s", want, text)
		}
	}
}
