package reference

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// A pipeline runs its steps in the order named, each as its own method does, and refuses
// unknown or repeated steps naming them.
func TestPipeline(t *testing.T) {
	ds, err := SyntheticClassification(50, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	ds = ds.Scale(7) // rows well outside the unit ball
	steps, err := ParsePipeline(" standardize, unit-ball ")
	if err != nil || !slices.Equal(steps, []string{"standardize", "unit-ball"}) {
		t.Fatalf("ParsePipeline: %v, %v", steps, err)
	}
	got, said, err := ds.Preprocess(steps)
	if err != nil || len(said) != 2 {
		t.Fatalf("Preprocess: %v, %q", err, said)
	}
	want := ds.Standardize().ScaleToUnitBall()
	for i := range ds.Len() {
		if !slices.Equal(got.Record(i).X, want.Record(i).X) {
			t.Fatalf("row %d: %v, want %v", i, got.Record(i).X, want.Record(i).X)
		}
	}
	if m := got.MaxRowNorm(); math.Abs(m-1) > 1e-12 {
		t.Errorf("largest row norm %v after unit-ball, want 1", m)
	}
	if none, err := ParsePipeline("none"); err != nil || len(none) != 0 {
		t.Errorf("none: %v, %v", none, err)
	}
	same, _, _ := ds.Preprocess(nil)
	if !slices.Equal(same.Record(3).X, ds.Record(3).X) {
		t.Error("an empty pipeline changed the rows")
	}
	for in, msg := range map[string]string{"standardise": `"standardise": want none or`, "unit-rows,unit-rows": `"unit-rows" named twice`, "": `"": want none`} {
		if _, err := ParsePipeline(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParsePipeline(%q) = %v, want %q", in, err, msg)
		}
	}
}
