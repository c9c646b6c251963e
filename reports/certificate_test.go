package reports_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// The JSON keeps the rows' order and survives infinities, in lists too; the table shows ten
// digits, in lists too.
func TestWriteCertificate(t *testing.T) {
	rows := []verdict.Row{{Key: "variant", Value: "x", Note: "the theorem"}, {Key: "sigma", Value: 1.0 / 3, Note: "σ"},
		{Key: "z", Value: math.Inf(1)}, {Key: "k", Value: 7}, {Key: "list", Value: []int{2, 1}}, {Key: "floats", Value: []float64{0.2000000000000001, math.Inf(1)}}}
	var js, tab bytes.Buffer
	if err := reports.WriteCertificate(&js, rows, true); err != nil {
		t.Fatal(err)
	}
	if want := `{"variant":"x","sigma":0.3333333333333333,"z":"+Inf","k":7,"list":[2,1],"floats":[0.2000000000000001,"+Inf"]}` + "\n"; js.String() != want {
		t.Errorf("JSON %q, want %q", js.String(), want)
	}
	if err := reports.WriteCertificate(&tab, rows, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(tab.String()), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[1], "sigma    0.3333333333  σ") || !strings.Contains(lines[2], "+Inf") || !strings.Contains(lines[5], "[0.2 +Inf]") {
		t.Errorf("table:\n%s", tab.String())
	}
	if err := reports.WriteCertificate(&js, []verdict.Row{{Key: "bad", Value: func() {}}}, true); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("an unencodable value: %v", err)
	}
}
