package retrain_test

import (
	"context"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// The ridge minimiser solves (XᵀX/n + λI)θ = Xᵀy/n; check it against gonum's general
// solver on the normal equations, an independent route.
func TestRidgeMatchesNormalEquations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds := props.Dataset(props.DataConfig{Regression: true}).Draw(t, "data")
		loss := props.Loss(true).Draw(t, "loss").(reference.Ridge)
		res, err := retrain.Minimize(loss.Objective(ds), math.Inf(1), retrain.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n, d := ds.Dims()
		var a mat.Dense
		a.Mul(ds.Features().T(), ds.Features())
		a.Scale(1/float64(n), &a)
		for j := range d {
			a.Set(j, j, a.At(j, j)+loss.Lambda)
		}
		var b mat.VecDense
		b.MulVec(ds.Features().T(), mat.NewVecDense(n, ds.Labels()))
		b.ScaleVec(1/float64(n), &b)
		var want mat.VecDense
		if err := want.SolveVec(&a, &b); err != nil {
			t.Fatal(err)
		}
		// λ-strong convexity: ‖θ − θ*‖ ≤ ‖∇f(θ)‖/λ, plus the rounding of the dense solve
		if diff, tol := reference.Distance(res.Theta, want.RawVector().Data), res.Residual/loss.Lambda+1e-10*(1+reference.Norm(res.Theta)); diff > tol {
			t.Fatalf("minimiser differs from the normal equations' solution by %v > %v", diff, tol)
		}
	})
}

// Every minimiser meets its stationarity tolerance, and no feasible point does better
// (strong convexity makes the minimiser unique, so a lower value would disprove it).
func TestMinimizeIsStationaryAndOptimal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := props.Dataset(props.DataConfig{Regression: regression}).Draw(t, "data")
		loss := props.Loss(regression).Draw(t, "loss")
		if rapid.Bool().Draw(t, "clip") {
			if l, ok := loss.(reference.Logistic); ok {
				loss = reference.Logistic{Lambda: l.Lambda, Clip: 0.3}
			} else {
				loss = reference.Ridge{Lambda: loss.Regularization(), Clip: 0.3}
			}
		}
		// radii from tight (constraint binds) to loose
		radius := float64(rapid.IntRange(1, 100).Draw(t, "R")) / 50
		obj := loss.Objective(ds)
		res := feasibleStationary(t, obj, radius)
		if res.OnBoundary {
			// KKT: ∇f(θ) = −μθ with μ > 0
			g := make([]float64, ds.Dim())
			obj.Gradient(g, res.Theta)
			for j := range g {
				if math.Abs(g[j]+res.Multiplier*res.Theta[j]) > 1e-8 {
					t.Fatalf("KKT residual %v at coordinate %d", g[j]+res.Multiplier*res.Theta[j], j)
				}
			}
		}
		noFeasibleBelow(t, obj, res.Theta, radius, func([]float64) float64 { return 0 })
	})
}

// feasibleStationary minimises and checks the result is in the ball and stationary to the
// oracle's tolerance.
func feasibleStationary(t *rapid.T, obj *reference.Objective, radius float64) retrain.Result {
	res, err := retrain.Minimize(obj, radius, retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := reference.Norm(res.Theta); n > radius*(1+1e-12) {
		t.Fatalf("minimiser outside the ball: %v > %v", n, radius)
	}
	if r := retrain.ProjectedGradientNorm(obj, res.Theta, radius); r > 1e-10 {
		t.Fatalf("projected-gradient residual %v > 1e-10", r)
	}
	return res
}

// noFeasibleBelow draws 20 feasible points near θ and fails if one has a lower value than
// θ by more than slack(p) plus the rounding of f (1e-12 relative).
func noFeasibleBelow(t *rapid.T, obj *reference.Objective, theta []float64, radius float64, slack func(p []float64) float64) {
	best := obj.Value(theta)
	for range 20 {
		p := make([]float64, len(theta))
		for j := range p {
			p[j] = theta[j] + float64(rapid.IntRange(-100, 100).Draw(t, "p"))/1000
		}
		reference.ProjectBall(p, radius)
		if v := obj.Value(p); v < best-slack(p)-1e-12*(1+math.Abs(best)) {
			t.Fatalf("feasible point with value %.15g below the minimum %.15g (slack %v)", v, best, slack(p))
		}
	}
}

func TestConstrainedMatchesLongProjectedGD(t *testing.T) {
	ds, err := reference.SyntheticClassification(200, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.01}
	obj := loss.Objective(ds)
	radius := 0.5 // the unconstrained minimiser has a larger norm, so the constraint binds
	res, err := retrain.Minimize(obj, radius, retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OnBoundary {
		t.Fatal("expected the constraint to bind")
	}
	// projected GD with η = 1/M contracts at rate 1 − m/M; 20 000 steps at m/M ≈ 0.04 reach
	// far below 1e-12
	c := loss.Constants(ds, radius)
	theta := make([]float64, ds.Dim())
	g := make([]float64, ds.Dim())
	for range 20000 {
		obj.Gradient(g, theta)
		for j := range theta {
			theta[j] -= g[j] / c.Smoothness
		}
		reference.ProjectBall(theta, radius)
	}
	if d := reference.Distance(theta, res.Theta); d > 1e-10 {
		t.Fatalf("projected GD ends %v from the oracle", d)
	}
}

func TestReplayAppliesUpdatesThenLearns(t *testing.T) {
	ds, _ := reference.SyntheticRegression(20, 2, 1)
	var seen int
	recipe := retrain.RecipeFunc(func(ctx context.Context, d *reference.Dataset, s reference.Streams) (reference.Release, error) {
		seen = d.Len()
		return reference.Release{Published: []float64{float64(d.Len())}}, nil
	})
	rec := reference.Record{ID: 100, X: []float64{0, 0}, Y: 1}
	if _, err := retrain.Replay(context.Background(), recipe, ds, []reference.Update{reference.DeleteID(3), reference.AddRecord(rec), reference.DeleteID(4)}, reference.Streams{}); err != nil || seen != 19 {
		t.Fatalf("replay: %v, learned on %d rows, want 19", err, seen)
	}
	if _, err := retrain.FromScratch(context.Background(), recipe, ds, []int64{5, 99}, reference.Streams{}); err == nil {
		t.Fatal("an unknown ID in a retrain must be an error")
	}
}

// Without regularisation the logistic loss may have no minimiser at all (separable classes);
// the ball-constrained one still exists. The oracle must find it: stationary to tolerance,
// KKT on the sphere, and no feasible point lower. For labels that a direction separates,
// the constraint must bind (the unconstrained infimum is approached only at infinity).
func TestMinimizeUnregularised(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds := props.Dataset(props.DataConfig{}).Draw(t, "data")
		separable := rapid.Bool().Draw(t, "separable")
		if separable {
			n := ds.Len()
			ids, y := ds.IDs(), make([]float64, n)
			for i := range n {
				y[i] = 1
				if ds.Row(i)[0] < 0 { // the first coordinate separates
					y[i] = -1
				}
			}
			var err error
			if ds, err = reference.NewDataset(ids, mat.DenseCopyOf(ds.Features()), y); err != nil {
				t.Fatal(err)
			}
		}
		obj := reference.Logistic{}.Objective(ds)
		radius := float64(rapid.IntRange(1, 200).Draw(t, "R")) / 20
		res := feasibleStationary(t, obj, radius)
		separates := false
		for i := range ds.Len() {
			separates = separates || ds.Row(i)[0] != 0
		}
		if separable && separates && !res.OnBoundary {
			t.Fatalf("separable data, yet the minimiser %v is interior", res.Theta)
		}
		// Without strong convexity a small residual does not pin the value to 1e-12; convexity
		// does: f(p) ≥ f(θ) + ⟨∇f(θ), p − θ⟩ and, with e = ∇f(θ) + μθ the KKT residual,
		// ⟨∇f(θ), p − θ⟩ ≥ −‖e‖·‖p − θ‖ for every feasible p. Plus rounding of f itself.
		g := make([]float64, ds.Dim())
		obj.Gradient(g, res.Theta)
		for j := range g {
			g[j] += res.Multiplier * res.Theta[j]
		}
		kkt := reference.Norm(g)
		noFeasibleBelow(t, obj, res.Theta, radius, func(p []float64) float64 { return kkt * reference.Distance(p, res.Theta) })
	})
}

// Rank-deficient convex problems (λ = 0 with n < d, or a column that repeats another up
// to scale) have a set of minimisers θ* + null(X); Minimize must return the one of least
// norm. For least squares that is the pseudo-inverse solution X⁺y when it lies in the
// ball, computed here independently by an SVD. For any loss it lies in range(Xᵀ), so its
// component along null(X) vanishes.
//
// Tolerances from the theory: on range(Xᵀ) the least-squares objective is strongly convex
// with modulus σ²/n (σ the smallest non-zero singular value of X), so a stationarity
// residual r ≤ 1e-10 puts θ within r·n/σ² of X⁺y; the null-space component is pure
// rounding, bounded at 1e-9(1 + ‖θ‖), plus, on the sphere, what the KKT condition puts
// along directions that are null only to rounding (see below).
func TestMinimizeRankDeficientIsMinimumNorm(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := props.Dataset(props.DataConfig{MinRows: 1, MaxRows: 12, Regression: regression}).Draw(t, "data")
		if ds.Dim() < 2 {
			return // one feature: rank-deficient only when X = 0, which the cases below cover anyway
		}
		// fewer rows than features is rank-deficient; otherwise make a column repeat another
		collinear := ds.Len() >= ds.Dim() || rapid.Bool().Draw(t, "collinear")
		x := mat.DenseCopyOf(ds.Features())
		if collinear { // column 1 := c·column 0 makes X rank-deficient whatever n is
			c := float64(rapid.IntRange(-4, 4).Draw(t, "c")) / 2
			for i := range ds.Len() {
				x.Set(i, 1, c*x.At(i, 0))
			}
		}
		var err error
		if ds, err = reference.NewDataset(ds.IDs(), x, ds.Labels()); err != nil {
			t.Fatal(err)
		}
		var loss reference.Loss = reference.Logistic{}
		if regression {
			loss = reference.Ridge{}
		}
		radius := math.Inf(1)
		if !regression || rapid.Bool().Draw(t, "ball") { // logistic needs the ball: separable rows have no minimiser
			radius = float64(rapid.IntRange(1, 200).Draw(t, "R")) / 20
		}
		obj := loss.Objective(ds)
		res, err := retrain.Minimize(obj, radius, retrain.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var svd mat.SVD
		if !svd.Factorize(x, mat.SVDFull) {
			t.Fatal("SVD failed")
		}
		sv := svd.Values(nil)
		var v mat.Dense
		svd.VTo(&v)
		nd := ds.Dim()
		cut := retrain.NullSingularRatio * sv[0]
		rank := 0
		for _, s := range sv {
			if s > cut {
				rank++
			}
		}
		if rank == nd {
			t.Fatalf("test setup: X has full column rank %d", rank)
		}
		// null(X) is spanned by the right singular vectors past the rank
		null := 0.0
		for k := rank; k < nd; k++ {
			dot := 0.0
			for j := range nd {
				dot += v.At(j, k) * res.Theta[j]
			}
			null += dot * dot
		}
		// On the sphere the minimiser is unique, and a column that repeats another only up to
		// the rounding of c·x leaves a singular value of about 1e-16 instead of 0: there the
		// KKT condition μθ = −∇f(θ) itself puts θ's component along that direction at
		// −P_null∇f(θ)/μ, which the rule must allow (it is the exact answer of the rounded
		// problem, ≈ 1e-16/μ).
		allowed := 1e-9 * (1 + reference.Norm(res.Theta))
		if res.OnBoundary {
			g := make([]float64, nd)
			obj.Gradient(g, res.Theta)
			gNull := 0.0
			for k := rank; k < nd; k++ {
				dot := 0.0
				for j := range nd {
					dot += v.At(j, k) * g[j]
				}
				gNull += dot * dot
			}
			allowed += math.Sqrt(gNull) / res.Multiplier
		}
		if math.Sqrt(null) > allowed {
			t.Fatalf("minimiser has a null-space component of norm %v > %v: not the minimum-norm one", math.Sqrt(null), allowed)
		}
		if !regression || rank == 0 {
			return
		}
		// X⁺y = Σ_k v_k (u_kᵀy)/σ_k over the non-zero singular values
		var u mat.Dense
		svd.UTo(&u)
		pinv := make([]float64, nd)
		for k := range rank {
			uy := 0.0
			for i := range ds.Len() {
				uy += u.At(i, k) * ds.Labels()[i]
			}
			for j := range nd {
				pinv[j] += v.At(j, k) * uy / sv[k]
			}
		}
		if reference.Norm(pinv) > radius {
			if !res.OnBoundary {
				t.Fatalf("‖X⁺y‖ = %v > R = %v, yet the minimiser is interior", reference.Norm(pinv), radius)
			}
			return
		}
		smin := sv[rank-1]
		tol := 1e-10*float64(ds.Len())/(smin*smin) + 1e-9*(1+reference.Norm(pinv))
		if dist := reference.Distance(res.Theta, pinv); dist > tol {
			t.Fatalf("minimiser %v is %v from the minimum-norm solution %v (tolerance %v)", res.Theta, dist, pinv, tol)
		}
	})
}

// reference.MinimiserRadius holds the exact unconstrained minimiser, of the data and of
// any subset of its rows (the requests of an audit only delete and re-add them).
func TestMinimiserRadiusHoldsTheMinimiser(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := props.Dataset(props.DataConfig{Regression: regression}).Draw(t, "data")
		loss := props.Loss(regression).Draw(t, "loss")
		radius := reference.MinimiserRadius(loss, ds)
		drop := rapid.IntRange(0, ds.Len()-1).Draw(t, "drop")
		var ids []int64
		for i := range drop {
			ids = append(ids, ds.ID(i))
		}
		sub, err := ds.Without(ids...)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []*reference.Dataset{ds, sub} {
			res, err := retrain.Minimize(loss.Objective(d), math.Inf(1), retrain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// the minimiser is within 1e-10/λ of θ* (the solver's residual, strong convexity)
			if n := reference.Norm(res.Theta); n > radius+1e-10/loss.Regularization() {
				t.Fatalf("%s on %d rows: ‖θ*‖ = %v > MinimiserRadius %v", loss.Name(), d.Len(), n, radius)
			}
		}
	})
}

// A wide sparse-text design (60,000 features, 40 rows, the reproduction) is solved
// in memory linear in d: the Hessian-free solver keeps a fixed number of length-d vectors
// (a d × d matrix would be 28.8 GB), and its answer is stationary to the tolerance.
func TestMinimizeWideDesignInLinearMemory(t *testing.T) {
	const n, d = 40, 60000
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	ids := make([]int64, n)
	for i := range n {
		ids[i] = int64(i)
		y[i] = float64(1 - 2*(i%2))
		x.Set(i, 0, float64(i)/10)
		x.Set(i, d-1, 0.5)
	}
	ds, err := reference.NewDataset(ids, x, y)
	if err != nil {
		t.Fatal(err)
	}
	for _, radius := range []float64{math.Inf(1), 0.5} {
		obj := reference.Logistic{Lambda: 0.1}.Objective(ds)
		var res retrain.Result
		got := testenv.Allocated(func() { res, err = retrain.Minimize(obj, radius, retrain.Options{}) })
		if err != nil {
			t.Fatalf("R = %v: %v", radius, err)
		}
		if r := retrain.ProjectedGradientNorm(obj, res.Theta, radius); r > 1e-10 {
			t.Errorf("R = %v: residual %v > 1e-10", radius, r)
		}
		// 16 vectors of length d: the solver's six, the result, the objective's scratch and
		// the constrained search's iterates, with room to spare
		if limit := uint64(16 * 8 * d); got > limit {
			t.Errorf("R = %v: Minimize allocated %d bytes, more than %d (16 vectors of length d)", radius, got, limit)
		}
	}
}

// Sparse data give the dense data's minimiser: both solves stop at residual ≤ 1e-10, so
// each is within 1e-10(1 + (1 + M)/λ) of θ* and the two within twice that.
func TestMinimizeSparseMatchesDense(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := props.Dataset(props.DataConfig{Regression: regression}).Draw(t, "data")
		loss := props.Loss(regression).Draw(t, "loss")
		n, d := ds.Dims()
		m := reference.CSR{Rows: n, Cols: d, Indptr: []int{0}}
		x := mat.DenseCopyOf(ds.Features())
		for i := range n {
			for j := range d {
				if rapid.IntRange(0, 2).Draw(t, "zero") == 0 {
					x.Set(i, j, 0)
				}
				if v := x.At(i, j); v != 0 {
					m.Indices = append(m.Indices, int32(j))
					m.Values = append(m.Values, v)
				}
			}
			m.Indptr = append(m.Indptr, len(m.Values))
		}
		dense, err := reference.NewDataset(ds.IDs(), x, ds.Labels())
		if err != nil {
			t.Fatal(err)
		}
		sparse, err := reference.NewSparseDataset(ds.IDs(), &m, ds.Labels())
		if err != nil {
			t.Fatal(err)
		}
		radius := math.Inf(1)
		if rapid.Bool().Draw(t, "ball") {
			radius = float64(rapid.IntRange(1, 100).Draw(t, "R")) / 20
		}
		a, err1 := retrain.Minimize(loss.Objective(dense), radius, retrain.Options{})
		b, err2 := retrain.Minimize(loss.Objective(sparse), radius, retrain.Options{})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		// on the ball the residual is the projected gradient's, which bounds the distance to
		// θ* by r(1 + (1 + M)/λ) (strong monotonicity and the projection's optimality)
		smooth := loss.Constants(dense, radius).Smoothness
		if dist, tol := reference.Distance(a.Theta, b.Theta), 2e-10*(1+(1+smooth)/loss.Regularization()); dist > tol {
			t.Fatalf("dense %v, sparse %v: %v apart (> %v)", a.Theta, b.Theta, dist, tol)
		}
	})
}
