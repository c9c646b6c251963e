package d2daudit

import (
	"errors"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"gonum.org/v1/gonum/mat"
)

// scaledRidge is ridge regression (λ = 0.01) on 200 synthetic rows with every feature
// multiplied by scale: the larger the scale, the higher the rounding floor of the
// gradient, and so the smallest residual the exact minimiser can reach (about 2e-12 at
// scale 1e6 and 3e-8 at 1e10, against 1e-16 at scale 1).
func scaledRidge(t *testing.T, scale float64) *reference.Objective {
	t.Helper()
	ds, err := reference.SyntheticRegression(200, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.DenseCopyOf(ds.Features())
	x.Scale(scale, x)
	if ds, err = reference.NewDataset(ds.IDs(), x, ds.Labels()); err != nil {
		t.Fatal(err)
	}
	return reference.Ridge{Lambda: 0.01}.Objective(ds)
}

// What the check does when the oracle reports retrain.ErrNotConverged. preciseMinimiser
// asks for the residual that puts the oracle's certified error at 1 % of the bound, but
// not below 1e-14; a bound of 1e-20 asks for 1e-14 exactly.
//
//   - Where the solver stops above that but at a residual r ≤ 1e-10 (scale 1e6: its
//     rounding floor, ≈ 2e-12), the check goes on with the point reached, and the error it
//     subtracts from every distance is the one r certifies, r·(1 + (1 + M)/m) (strong
//     monotonicity; see preciseMinimiser) — not the smaller one the tolerance asked for
//     would have certified.
//   - Where it stops above 1e-10 (scale 1e10, floor ≈ 3e-8), the check refuses: the error
//     is returned, and still wraps retrain.ErrNotConverged.
//
// Both cases are checked first against retrain.Minimize itself, so that each does exercise
// its branch.
func TestPreciseMinimiserOnNotConverged(t *testing.T) {
	const radius, bound = 10.0, 1e-20
	for _, c := range []struct {
		scale  float64
		accept bool
	}{{1e6, true}, {1e10, false}} {
		obj := scaledRidge(t, c.scale)
		direct, directErr := retrain.Minimize(obj, radius, retrain.Options{Tolerance: 1e-14})
		res, oracleErr, err := preciseMinimiser(obj, radius, bound)
		// the setup, checked after the call so that a failure names what the check did
		defer func() {
			if !errors.Is(directErr, retrain.ErrNotConverged) {
				t.Errorf("scale %g: test setup: Minimize at tolerance 1e-14 returned %v with residual %.3g; want ErrNotConverged", c.scale, directErr, direct.Residual)
			}
			if (direct.Residual <= 1e-10) != c.accept {
				t.Errorf("scale %g: test setup: the solver stops at residual %.3g, on the wrong side of 1e-10", c.scale, direct.Residual)
			}
		}()
		if !c.accept {
			if !errors.Is(err, retrain.ErrNotConverged) {
				t.Errorf("scale %g: residual %.3g > 1e-10, yet preciseMinimiser returned error %v (oracle error %.3g); want the ErrNotConverged error", c.scale, direct.Residual, err, oracleErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("scale %g: residual %.3g ≤ 1e-10, yet preciseMinimiser refused: %v", c.scale, direct.Residual, err)
			continue
		}
		if res.Theta == nil || res.Residual <= 1e-14 {
			t.Errorf("scale %g: preciseMinimiser returned θ %v with residual %.3g; want the point the solver reached, above 1e-14", c.scale, res.Theta, res.Residual)
		}
		if r := retrain.ProjectedGradientNorm(obj, res.Theta, radius); math.Abs(r-res.Residual) > 1e-3*res.Residual {
			t.Errorf("scale %g: Residual %.6g, but the point's own residual is %.6g", c.scale, res.Residual, r)
		}
		k := obj.Loss().Constants(obj.Data(), radius)
		want := res.Residual * (1 + (1+k.Smoothness)/k.StrongConvexity)
		if math.Abs(oracleErr-want) > 1e-12*want {
			t.Errorf("scale %g: oracle error %.6g; want r·(1 + (1 + M)/m) = %.6g for the residual r = %.3g reached (the tolerance asked for certifies only %.3g)",
				c.scale, oracleErr, want, res.Residual, 1e-14*(1+(1+k.Smoothness)/k.StrongConvexity))
		}
	}
}
