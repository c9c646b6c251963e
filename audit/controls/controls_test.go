package controls_test

import (
	"context"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/controls"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// fixed is a subject whose unlearned release is always the same, with a diagnostic.
type fixed struct{}

func (fixed) Name() string         { return "fixed" }
func (fixed) Claim() verdict.Claim { return verdict.Claim{Method: "fixed"} }
func (fixed) Fingerprint() string  { return "f" }
func (fixed) Unlearned(context.Context, reference.Streams) (reference.Release, error) {
	return reference.Release{Published: []float64{4.7, -0.7}, Secret: []float64{1, 1}, Diagnostics: map[string]float64{"k": 7}}, nil
}
func (fixed) Retrained(ctx context.Context, st reference.Streams) (reference.Release, error) {
	return fixed{}.Unlearned(ctx, st)
}

// The noise mutations divide (or rescale) the published noise around the secret model and
// keep the rest of the release: WeakNoise's tenth, HalfVariance's 1/√2, the same floats the
// methods' own controls computed (a planted multiplication by 1/d instead of a division
// changes 4.7's coordinate, 1 + 3.7/d, in its last bit, and this test fails); the mutant is named
// and fingerprinted after the subject and the bug, and audited by the subject's check.
func TestNoiseMutations(t *testing.T) {
	called := 0
	set := controls.Set{Of: fixed{}, Check: func(context.Context, []trials.TrialResult) ([]verdict.Finding, error) {
		called++
		return nil, nil
	}}
	// the old controls' formulas, in float64 at run time (a constant expression would be
	// exact): secret + (published − secret)/d and secret + (published − secret)·to/from
	pub, sec := []float64{4.7, -0.7}, 1.0
	div := func(d float64) []float64 { return []float64{sec + (pub[0]-sec)/d, sec + (pub[1]-sec)/d} }
	to, from := 1.0, 3.0
	for _, c := range []struct {
		run  controls.Run
		want []float64
	}{
		{set.NoiseDividedBy(10), div(10)},
		{set.NoiseDividedBy(math.Sqrt2), div(math.Sqrt2)},
		{set.NoiseScaledTo(to, from), []float64{sec + (pub[0]-sec)*to/from, sec + (pub[1]-sec)*to/from}},
	} {
		r, err := c.run(context.Background(), reference.Streams{})
		if err != nil {
			t.Fatal(err)
		}
		for j, w := range c.want {
			if r.Published[j] != w {
				t.Errorf("published[%d] = %v, want %v", j, r.Published[j], w)
			}
		}
		if r.Secret[0] != 1 || r.Diagnostics["k"] != 7 {
			t.Errorf("the rest of the release changed: %+v", r)
		}
	}
	ctl := set.Mutant(controls.HalfVariance, "half the variance", set.NoiseDividedBy(math.Sqrt2))
	if ctl.Name != "half-variance" || ctl.Audited.Subject.Name() != "fixed~half-variance" {
		t.Errorf("control %q of subject %q", ctl.Name, ctl.Audited.Subject.Name())
	}
	if f, ok := ctl.Audited.Subject.(trials.Fingerprinter); !ok || f.Fingerprint() != "f~half-variance" {
		t.Errorf("the mutant's fingerprint is not the subject's and the bug's")
	}
	if _, err := ctl.Audited.Check(context.Background(), nil); err != nil || called != 1 {
		t.Errorf("the control is not audited by the subject's check")
	}
}
