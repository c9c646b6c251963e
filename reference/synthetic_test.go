package reference

import (
	"math"
	"testing"
)

func TestSyntheticGenerators(t *testing.T) {
	a, err := SyntheticClassification(500, 8, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SyntheticClassification(500, 8, 3)
	c, _ := SyntheticClassification(500, 8, 4)
	if Distance(a.Row(17), b.Row(17)) != 0 || Distance(a.Row(17), c.Row(17)) == 0 {
		t.Fatal("the generator is not a pure function of its seed")
	}
	if m := a.MaxRowNorm(); math.Abs(m-1) > 1e-12 {
		t.Fatalf("rows should be scaled into the unit ball with the largest at norm 1, got %v", m)
	}
	var pos int
	for _, y := range a.Labels() {
		if y != 1 && y != -1 {
			t.Fatalf("label %v", y)
		}
		if y == 1 {
			pos++
		}
	}
	// labels are sign(wᵀx + noise) with symmetric x: the positive share is 1/2, and with
	// 500 draws it lies within 0.5 ± 4·√(0.25/500) = 0.5 ± 0.09 (false-failure odds < 1e-4)
	if f := float64(pos) / 500; math.Abs(f-0.5) > 0.09 {
		t.Fatalf("positive share %v", f)
	}
	r, err := SyntheticRegression(2000, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxRowNorm() > 1+1e-12 {
		t.Fatalf("regression rows leave the unit ball: %v", r.MaxRowNorm())
	}
	// y = wᵀx + N(0, 0.1²) with x ~ N(0, s²I), s = 1/(√5 + 3): E[y²] = s² + 0.01 ≈ 0.046.
	// A mean below the noise variance alone (0.01, 35 standard errors away) means no signal.
	var sumY2 float64
	for _, y := range r.Labels() {
		sumY2 += y * y
	}
	if sumY2/2000 < 0.01 {
		t.Fatalf("labels carry no signal: mean y² = %v", sumY2/2000)
	}
	if _, err := SyntheticClassification(1, 2, 1); err == nil {
		t.Fatal("n = 1 must be rejected")
	}
}
