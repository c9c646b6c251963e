package testenv

import (
	"strings"
	"testing"
)

func TestPrinted(t *testing.T) {
	for _, c := range []struct {
		s      string
		v, tol float64
	}{{"0.0932134", 0.0932134, 5e-8}, {"2.78712e-12", 2.78712e-12, 5e-18}, {"1e5", 1e5, 5e4}, {"100000", 1e5, 0.5}, {"17.808", 17.808, 5e-4}, {"3", 3, 0.5}} {
		v, tol, err := Printed(c.s)
		if err != nil || v != c.v || tol < c.tol*(1-1e-12) || tol > c.tol*(1+1e-12) {
			t.Errorf("Printed(%q) = %v ± %v (%v), want %v ± %v", c.s, v, tol, err, c.v, c.tol)
		}
	}
	if _, _, err := Printed("x"); err == nil {
		t.Error("Printed(\"x\") gave no error")
	}
}

func TestDecodeGoldenIsStrict(t *testing.T) {
	type caseList struct {
		Cases []struct{ X, Y float64 }
		Scale float64 `json:"scale"`
		Opt   float64 `json:"opt,omitempty"`
	}
	good := `{"source": "spec §1", "cases": [{"x": 1, "y": 2}], "scale": 3}`
	var g caseList
	if err := DecodeGolden([]byte(good), &g); err != nil || len(g.Cases) != 1 || g.Scale != 3 {
		t.Fatalf("DecodeGolden(%s) = %+v, %v", good, g, err)
	}
	for _, bad := range []struct{ json, want string }{
		{`{"cases": [], "scale": 3}`, "cases is empty"},
		{`{"scale": 3}`, `no key "Cases"`},
		{`{"kases": [{"x": 1, "y": 2}], "cases": [{"x": 1, "y": 2}], "scale": 3}`, "unknown field"},
		{`{"cases": [{"x": 1}], "scale": 3}`, `cases[0] has no key "Y"`},
		{`{"cases": [{"x": 1, "y": 2}]}`, `no key "scale"`},
		{`[1]`, "must be a JSON object"},
	} {
		var g caseList
		err := DecodeGolden([]byte(bad.json), &g)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("DecodeGolden(%s) = %v, want an error containing %q", bad.json, err, bad.want)
		}
	}
}
