package d2daudit

import (
	"context"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

// The certificate checks compare each declared constant with the data's in the direction
// the theorems need: the declared Lipschitz constant L and smoothness M must be at least
// the data's (a bound from above), the declared strong convexity m at most the loss's (a
// bound from below: L2-regularised logistic regression is exactly λ-strongly convex per
// example, its logistic part having curvature that vanishes far from the boundary, so
// m = λ = 0.05 here). For each constant one declaration on the wrong side must FAIL and
// one on the right side must PASS, so that the comparison turned round fails one of the
// two; equality passes. Each case builds a Subject with the declaration (so the check is
// taken through the subject's own wiring) and reads its certificate findings, which need
// no trials.
func TestDeclaredConstantsComparedTheRightWay(t *testing.T) {
	ds, err := reference.SyntheticClassification(200, 5, 11)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.05}
	const radius = 10.0
	tight := loss.TightConstants(ds, radius)
	if tight.StrongConvexity != loss.Lambda {
		t.Fatalf("test setup: the loss's strong convexity is %v; want λ = %v", tight.StrongConvexity, loss.Lambda)
	}
	updates := []reference.Update{reference.DeleteID(0), reference.DeleteID(3)}
	for _, c := range []struct {
		check string
		set   func(*reference.Constants)
		want  verdict.Verdict
	}{
		{"strong-convexity", func(k *reference.Constants) { k.StrongConvexity = 2 * loss.Lambda }, verdict.Fail}, // claims more curvature than λ gives
		{"strong-convexity", func(k *reference.Constants) { k.StrongConvexity = loss.Lambda / 2 }, verdict.Pass},
		{"strong-convexity", func(k *reference.Constants) { k.StrongConvexity = loss.Lambda }, verdict.Pass},
		{"smoothness", func(k *reference.Constants) { k.Smoothness = tight.Smoothness / 2 }, verdict.Fail},
		{"smoothness", func(k *reference.Constants) { k.Smoothness = 2 * tight.Smoothness }, verdict.Pass},
		{"lipschitz", func(k *reference.Constants) { k.Lipschitz = tight.Lipschitz / 2 }, verdict.Fail},
		{"lipschitz", func(k *reference.Constants) { k.Lipschitz = 2 * tight.Lipschitz }, verdict.Pass},
	} {
		declared := tight
		c.set(&declared)
		s, err := New(context.Background(), Setup{Loss: loss, Data: ds, Updates: updates,
			Params: d2d.Params{Constants: declared, Radius: radius, Budget: 20, Epsilon: 1, Delta: 1e-6}})
		if err != nil {
			t.Fatalf("declared %+v: %v", declared, err)
		}
		f, ok := audittest.ByCheck(s.certificateFindings())["d2d/certificate/"+c.check]
		if !ok {
			t.Fatalf("no finding d2d/certificate/%s", c.check)
		}
		if f.Verdict != c.want {
			t.Errorf("declared %+v (the data's %+v): %s check %v (measured %v %s bound %v); want %v",
				declared, tight, c.check, f.Verdict, f.Measured, f.Comparison, f.Bound, c.want)
		}
	}
}
