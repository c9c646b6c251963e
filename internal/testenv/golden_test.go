package testenv

import "testing"

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
