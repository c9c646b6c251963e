package props

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"pgregory.net/rapid"
)

// within is the rounding slack for deterministic inequalities (spec d2d §4.1):
// lhs ≤ rhs·(1 + 1e-9) + 1e-12. The exact minimisers are accurate to a stationarity
// residual of 1e-10, i.e. within 1e-10/m ≤ 5e-9 of θ* for m ≥ 0.02; that error enters
// distances to θ*, so those comparisons add it.
func within(lhs, rhs, extra float64) bool { return lhs <= rhs*(1+1e-9)+1e-12+extra }

// oracleSlack is the distance error of retrain.Minimize's θ* at strong convexity m.
func oracleSlack(m float64) float64 { return 1e-10 / m }

// interiorRadius is a ball radius that contains the unconstrained minimiser of any
// dataset drawn by Dataset with loss l: ‖θ*‖ ≤ ‖∇f(0)‖/λ, and ‖∇f(0)‖ ≤ ‖x‖max·(|y|max + 1).
func interiorRadius(ds *reference.Dataset, l reference.Loss) float64 {
	return 1.1 * ds.MaxRowNorm() * (ds.MaxAbsLabel() + 1) / l.Regularization()
}

// Sensitivity is Lemma 2.12 against exact ERM: for a random dataset 𝒟 of size n, an L2
// loss with constants (L, m) on a ball containing every minimiser, and a random update u,
// ‖θ*_𝒟 − θ*_{𝒟∘u}‖ ≤ 2L/(m n) — and the tight form [spec EXT] L/(m·max(n, n')).
func Sensitivity(t *rapid.T) {
	regression := rapid.Bool().Draw(t, "regression")
	ds := Dataset(DataConfig{Regression: regression}).Draw(t, "data")
	loss := Loss(regression).Draw(t, "loss")
	us := Updates(t, ds, SequenceConfig{MaxLen: 1, Regression: regression})
	next, err := ds.Apply(us[0])
	if err != nil {
		t.Fatal(err)
	}
	radius := math.Max(interiorRadius(ds, loss), interiorRadius(next, loss))
	all := ds
	if us[0].Kind == reference.Add {
		all, _ = ds.With(us[0].Record)
	}
	c := loss.TightConstants(all, radius)
	a := mustMinimize(t, loss, ds, radius)
	b := mustMinimize(t, loss, next, radius)
	dist := reference.Distance(a, b)
	slack := 2 * oracleSlack(c.StrongConvexity)
	if bound := 2 * c.Lipschitz / (c.StrongConvexity * float64(ds.Len())); !within(dist, bound, slack) {
		t.Fatalf("%s: ‖θ*_D − θ*_D∘u‖ = %.6g > 2L/(mn) = %.6g", us[0], dist, bound)
	}
	if bound := c.Lipschitz / (c.StrongConvexity * float64(max(ds.Len(), next.Len()))); !within(dist, bound, slack) {
		t.Fatalf("%s: ‖θ*_D − θ*_D∘u‖ = %.6g > L/(m·max(n,n')) = %.6g", us[0], dist, bound)
	}
}

func mustMinimize(t TB, l reference.Loss, ds *reference.Dataset, radius float64) []float64 {
	res, err := retrain.Minimize(l.Objective(ds), radius, retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Theta
}

// D2DConfig draws a D2D configuration for a dataset (spec d2d §4.2): I ∈ [1, 25],
// ε log-uniform in [0.05, 10], δ log-uniform in [1e−10, 1e−2], the loss's own constants.
// The strongly convex modes use a ball containing every minimiser; the convex modes, which
// run on a convex f and add their own ridge term, draw R ∈ [1, 20] (the constrained
// minimiser may then sit on the sphere, which the proofs allow).
func D2DConfig(t *rapid.T, mode d2d.Mode, loss reference.Loss, universe *reference.Dataset, n int) d2d.Plan {
	radius := interiorRadius(universe, loss)
	if mode.Convex() {
		radius = scaled(t, 1, 20, "R")
	}
	p := d2d.Params{
		Constants: loss.Constants(universe, radius), Radius: radius, N: n, Dim: universe.Dim(),
		Budget:  rapid.IntRange(1, 25).Draw(t, "I"),
		Epsilon: logScaled(t, 0.05, 10, "epsilon"),
		Delta:   logScaled(t, 1e-10, 1e-2, "delta"),
	}
	switch mode {
	case d2d.Perfect:
		p.Budget = max(p.Budget, p.PerfectMinBudget())
	case d2d.ConvexWeak:
		p.Budget = rapid.IntRange(1, 5).Draw(t, "Iweak") // T_i = i²·I grows fast
		p.Xi = scaled(t, 1, 2, "xi")
	}
	plan, err := d2d.NewPlan(mode, p)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// TB is the part of testing.TB and *rapid.T the property checks use, so they run under
// either.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// D2DTrajectory runs D2D along a random update sequence and checks every round with
// CheckD2DRun.
func D2DTrajectory(mode d2d.Mode) func(*rapid.T) {
	return func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := Dataset(DataConfig{Regression: regression}).Draw(t, "data")
		loss := Loss(regression).Draw(t, "loss")
		maxLen := 30
		if mode.Convex() {
			loss = loss.WithRegularization(0) // a convex f: the variant adds its own ridge term
		}
		if mode == d2d.ConvexWeak {
			maxLen = 8 // T_i = i^{2ξ}·I
		}
		us := Updates(t, ds, SequenceConfig{Regression: regression, MaxLen: maxLen})
		universe := ds
		for _, u := range us {
			if u.Kind == reference.Add && !universe.Has(u.ID) {
				universe, _ = universe.With(u.Record)
			}
		}
		CheckD2DRun(t, D2DConfig(t, mode, loss, universe, ds.Len()), loss, ds, us)
	}
}

// CheckD2DRun learns on ds with the plan, serves the updates, and checks at every round
// the deterministic inequalities of the proofs against exact retraining (spec d2d §4.4):
//
//   - the retrain A(𝒟_i) is within (2L/(m n_i))γ^I of θ*_i (Eq. 2);
//   - the unlearned secret model is within the certified radius of θ*_i (Eq. 3, or Eq. 13
//     in perfect mode, which fails with probability ≤ δ/2 per round);
//   - the unlearned secret model is within Δ of the retrain;
//   - each update costs exactly n_i·T_i gradient evaluations, and T_i does not grow with i
//     (secret state) or grows by at most ⌈ln(ln(4di/δ)/ln(4d/δ))/ln(1/γ)⌉ + 1 (perfect).
//
// θ*_i comes from retrain.Minimize on the plan's ball.
func CheckD2DRun(t TB, plan d2d.Plan, loss reference.Loss, ds *reference.Dataset, us []reference.Update) {
	t.Helper()
	checkD2D(t, plan, loss, ds, func(i int, _ *d2d.Model) (reference.Update, bool) {
		if i >= len(us) {
			return reference.Update{}, false
		}
		return us[i], true
	})
}

// checkD2D is CheckD2DRun with the requests chosen one at a time by next, which sees the
// model after the previous request (adaptive sequences, spec d2d §4.4.9). It stops when
// next says so.
func checkD2D(t TB, plan d2d.Plan, loss reference.Loss, ds *reference.Dataset, next func(i int, m *d2d.Model) (reference.Update, bool)) {
	t.Helper()
	p := plan.Params
	ctx := context.Background()
	noise := reference.Stream(1, 0, "props/d2d")
	m, err := d2d.Learn(ctx, plan, loss, ds, noise)
	if err != nil {
		t.Fatal(err)
	}
	m0 := p.StrongConvexity
	if plan.Mode.Convex() {
		m0 = plan.Reg
	}
	slack := oracleSlack(m0)
	prevEvals := m.GradientEvaluations()
	sizes := []int{ds.Len()}
	var kinds []reference.UpdateKind
	rhoStar := dp.GaussianRho(plan.Sensitivity(), plan.CertifiedSigma())
	for i := 0; ; i++ {
		u, more := next(i, m)
		if !more {
			break
		}
		if err := m.Update(ctx, u, noise); err != nil {
			t.Fatal(err)
		}
		round := i + 1
		cur := m.Data()
		res, err := retrain.Minimize(plan.Loss(loss).Objective(cur), p.Radius, retrain.Options{})
		if err != nil {
			t.Fatal(err)
		}
		star := res.Theta
		re, err := d2d.Learn(ctx, plan, loss, cur, noise)
		if err != nil {
			t.Fatal(err)
		}
		if d, b := reference.Distance(re.Secret(), star), plan.LearnRadius(cur.Len()); !within(d, b, slack) {
			t.Fatalf("round %d: ‖A(𝒟_i) − θ*‖ = %.6g > (2L/(m n_i))γ^I = %.6g", round, d, b)
		}
		if d, b := reference.Distance(m.Secret(), star), plan.RadiusAt(round); !within(d, b, slack) {
			t.Fatalf("round %d (%s): ‖θ̂_i − θ*‖ = %.6g > certified radius %.6g", round, u, d, b)
		}
		gap := reference.Distance(m.Secret(), re.Secret())
		if d, b := gap, plan.Sensitivity(); !within(d, b, 0) {
			t.Fatalf("round %d: ‖θ̂_i − A(𝒟_i)‖ = %.6g > Δ = %.6g", round, d, b)
		}
		sizes, kinds = append(sizes, cur.Len()), append(kinds, u.Kind)
		if plan.Mode != d2d.Perfect { // perfect mode's recursion needs the realised noise norms
			cert := d2daudit.CertifiedDeltas(plan, sizes, kinds)[i]
			if !within(gap, cert, 0) {
				t.Fatalf("round %d: gap %.6g exceeds the certified Δ_i %.6g of the §3.11 recursion", round, gap, cert)
			}
			if plan.Mode != d2d.ConvexWeak && !within(cert, plan.Sensitivity(), 0) {
				t.Fatalf("round %d: certified Δ_i %.6g exceeds the closed form %.6g", round, cert, plan.Sensitivity())
			}
		}
		if plan.Mode.Convex() {
			checkRegularizedAccuracy(t, plan, loss, cur, m.Secret(), res, round)
		}
		// §4.5, exact Gaussian privacy: the published laws are N(θ̂_i, σ²I) and N(A(𝒟_i), σ²I)
		// (conditionally on the noises in perfect mode) with s = gap/σ
		if sigma := plan.Sigma; sigma > 0 && plan.Mode != d2d.Perfect {
			// a gap above Δ by rounding only (see within) counts as Δ: when Δ is below the
			// floating-point resolution of the iterates, no σ calibrated to it is realisable
			gap := math.Min(gap, plan.Sensitivity())
			s := gap / sigma
			if e := dp.GaussianEpsilon(gap, sigma, p.Delta); e > p.Epsilon*(1+1e-9) {
				t.Fatalf("round %d: Lemma A.3 gives ε = %v > %v", round, e, p.Epsilon)
			}
			if d := dp.GaussianExactDelta(p.Epsilon, s); d > p.Delta*(1+1e-9) {
				t.Fatalf("round %d: exact δ = %v > %v", round, d, p.Delta)
			}
			for _, alpha := range []float64{1.5, 2, 5, 10} {
				if dv := alpha * s * s / 2; !within(dv, alpha*rhoStar, 0) {
					t.Fatalf("round %d: D_%v = %v > α·ρ* = %v", round, alpha, dv, alpha*rhoStar)
				}
			}
		}
		Ti := plan.UpdateIterations(round)
		if got := m.GradientEvaluations() - prevEvals; got != int64(Ti*cur.Len()) {
			t.Fatalf("round %d: %d gradient evaluations, want n_i·T_i = %d·%d", round, got, cur.Len(), Ti)
		}
		prevEvals = m.GradientEvaluations()
		switch plan.Mode {
		case d2d.SecretState, d2d.ConvexStrong:
			if Ti != p.Budget {
				t.Fatalf("round %d: T_i = %d, want I = %d", round, Ti, p.Budget)
			}
		case d2d.ConvexWeak:
			if want := d2d.WeakIterations(round, p.Budget, plan.Params.Xi); Ti != want {
				t.Fatalf("round %d: T_i = %d, want ⌈i^{2ξ}·I⌉ = %d", round, Ti, want)
			}
			rho := plan.Sensitivity() / (2 * d2d.WeakTightFactor(plan.Params.Xi))
			if r := plan.RadiusAt(round); !within(r, rho, 0) {
				t.Fatalf("round %d: Eq. 18 radius %v exceeds ρ = %v", round, r, rho)
			}
		case d2d.Perfect:
			grow := int(math.Ceil(math.Log(math.Log(4*float64(p.Dim)*float64(round)/p.Delta)/math.Log(4*float64(p.Dim)/p.Delta))/math.Log(1/plan.Gamma))) + 1
			if Ti-plan.UpdateIterations(1) > grow || Ti < plan.UpdateIterations(max(1, round-1)) {
				t.Fatalf("round %d: T_i = %d, T_1 = %d (allowed growth %d, non-decreasing)", round, Ti, plan.UpdateIterations(1), grow)
			}
		}
	}
}

// checkRegularizedAccuracy is spec d2d §4.4.8, the deterministic part of Theorems 3.4 and
// 3.5's accuracy: the secret model, within r_i of the minimiser θ*_reg of the regularised
// objective, has f(θ̂_i) − min_Θ f ≤ L·r_i + (m/2)R² (f is L-Lipschitz on Θ, and θ̂_i ∈ Θ),
// and, when θ*_reg is interior as the paper's step needs, ≤ (M/2)r_i² + m·D·r_i + (m/2)D².
func checkRegularizedAccuracy(t TB, plan d2d.Plan, f reference.Loss, cur *reference.Dataset, secret []float64, reg retrain.Result, round int) {
	t.Helper()
	p := plan.Params
	obj := f.Objective(cur)
	// f alone is only convex (the variants add their ridge term themselves), so on separable
	// rows its minimiser sits on the sphere and the solver may stop a little above its
	// 1e-10 tolerance; whatever residual it reaches enters the slack below, so accept it
	// while it is small enough to leave the check meaningful.
	best, err := retrain.Minimize(obj, p.Radius, retrain.Options{})
	if err != nil && !(errors.Is(err, retrain.ErrNotConverged) && best.Residual <= 1e-6) {
		t.Fatal(err)
	}
	excess := obj.Value(secret) - obj.Value(best.Theta)
	r := plan.RadiusAt(round) + oracleSlack(plan.Reg)
	// min f is overestimated by at most the residual times the diameter (convexity)
	slack := best.Residual * p.Diameter()
	if b := d2daudit.AccuracyRegLipschitz(p.Lipschitz, plan.Reg, p.Radius, r); !within(excess, b, slack) {
		t.Fatalf("round %d: f(θ̂_i) − min f = %.6g > L·r + (m/2)R² = %.6g", round, excess, b)
	}
	if !reg.OnBoundary {
		D := p.Diameter()
		if b := p.Smoothness/2*r*r + plan.Reg*D*r + plan.Reg/2*D*D; !within(excess, b, slack) {
			t.Fatalf("round %d: f(θ̂_i) − min f = %.6g > (M/2)r² + mDr + (m/2)D² = %.6g", round, excess, b)
		}
	}
}

// D2DAdaptiveTrajectory is D2DTrajectory with an adaptive adversary (spec d2d §4.4.9):
// each request is a function of the last published model θ̃_{i−1}. It alternates adding
// an outlier at the largest row norm, pointing along θ̃ with the label that maximises its
// gradient, and deleting the record whose gradient at θ̃ is largest. The theorems of §3
// allow adaptive sequences; the constants stay valid because the outliers stay within the
// data's row norm and label range.
func D2DAdaptiveTrajectory(mode d2d.Mode) func(*rapid.T) {
	return func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := Dataset(DataConfig{Regression: regression}).Draw(t, "data")
		loss := Loss(regression).Draw(t, "loss")
		length := rapid.IntRange(1, 30).Draw(t, "length")
		if mode.Convex() {
			loss = loss.WithRegularization(0)
		}
		if mode == d2d.ConvexWeak {
			length = min(length, 8)
		}
		plan := D2DConfig(t, mode, loss, ds, ds.Len())
		floor := (ds.Len() + 1) / 2
		nextID := int64(0)
		for i := range ds.Len() {
			nextID = max(nextID, ds.ID(i)+1)
		}
		norm, label := ds.MaxRowNorm(), ds.MaxAbsLabel()
		checkD2D(t, plan, loss, ds, func(i int, m *d2d.Model) (reference.Update, bool) {
			if i >= length {
				return reference.Update{}, false
			}
			pub := m.Published()
			cur := m.Data()
			if i%2 == 1 && cur.Len()-1 >= floor {
				row, _ := plan.Loss(loss).Objective(cur).MostInfluential(pub)
				return reference.DeleteID(cur.ID(row)), true
			}
			x := make([]float64, cur.Dim())
			if n := reference.Norm(pub); n > 0 {
				for j := range x {
					x[j] = pub[j] / n * norm
				}
			} else {
				x[0] = norm
			}
			y := -label // xᵀθ̃ ≥ 0: the opposite label maximises the loss and its gradient
			nextID++
			return reference.AddRecord(reference.Record{ID: nextID - 1, X: x, Y: y}), true
		})
	}
}

// Contraction is spec d2d §4.4.5: every projected GD step with η = 2/(M+m) contracts the
// distance to the constrained minimiser by γ = (M−m)/(M+m): ‖θ_t − θ*‖ ≤ γ^t‖θ_0 − θ*‖.
func Contraction(t *rapid.T) {
	regression := rapid.Bool().Draw(t, "regression")
	ds := Dataset(DataConfig{Regression: regression}).Draw(t, "data")
	loss := Loss(regression).Draw(t, "loss")
	radius := scaled(t, 0.2, 5, "R") // small radii make the constraint bind
	c := loss.Constants(ds, radius)
	obj := loss.Objective(ds)
	star := mustMinimize(t, loss, ds, radius)
	theta := make([]float64, ds.Dim())
	for j := range theta {
		theta[j] = scaled(t, -5, 5, "theta0")
	}
	reference.ProjectBall(theta, radius)
	gamma, eta := d2d.Contraction(c.Smoothness, c.StrongConvexity), d2d.StepSize(c.Smoothness, c.StrongConvexity)
	d0 := reference.Distance(theta, star)
	g := make([]float64, ds.Dim())
	slack := oracleSlack(c.StrongConvexity)
	for step := 1; step <= 50; step++ {
		d2d.Descend(obj, theta, g, eta, radius, 1)
		if d, b := reference.Distance(theta, star), fexp.Pow(gamma, float64(step))*d0; !within(d, b, 2*slack) {
			t.Fatalf("step %d: ‖θ_t − θ*‖ = %.6g > γ^t‖θ_0 − θ*‖ = %.6g", step, d, b)
		}
	}
}

// SigmaMonotone checks that the calibrated σ moves as the formulas say (spec d2d §4.3):
// decreasing in ε and in n, increasing as δ decreases, for both modes; and the secret-state
// σ recovers ε exactly through Lemma A.3.
func SigmaMonotone(t *rapid.T) {
	p := d2d.Params{
		Constants: reference.Constants{
			Lipschitz:       scaled(t, 0.1, 10, "L"),
			StrongConvexity: scaled(t, 0.02, 1, "m"),
		},
		Radius: scaled(t, 1, 20, "R"), N: rapid.IntRange(4, 100000).Draw(t, "n"), Dim: rapid.IntRange(1, 100).Draw(t, "d"),
		Budget: rapid.IntRange(1, 50).Draw(t, "I"), Epsilon: logScaled(t, 0.05, 10, "eps"), Delta: logScaled(t, 1e-10, 1e-2, "delta"),
	}
	p.Smoothness = p.StrongConvexity * scaled(t, 1.01, 50, "condition")
	changes := []struct {
		name   string
		change func(d2d.Params) d2d.Params
		less   bool
	}{
		{"ε up", func(q d2d.Params) d2d.Params { q.Epsilon *= 1.5; return q }, true},
		{"n up", func(q d2d.Params) d2d.Params { q.N *= 2; return q }, true},
		{"δ down", func(q d2d.Params) d2d.Params { q.Delta /= 10; return q }, false},
	}
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
		q := p
		if mode == d2d.Perfect {
			// the formulas are monotone at fixed I; take an I every variant allows
			q.Budget = max(q.Budget, q.PerfectMinBudget())
			for _, c := range changes {
				q.Budget = max(q.Budget, c.change(q).PerfectMinBudget())
			}
		}
		sigma := func(q d2d.Params) float64 {
			pl, err := d2d.NewPlan(mode, q)
			if err != nil {
				t.Fatal(err)
			}
			return pl.Sigma
		}
		base := sigma(q)
		for _, c := range changes {
			got := sigma(c.change(q))
			if c.less && !(got < base) || !c.less && !(got > base) {
				t.Fatalf("%s, %s: σ went from %v to %v", mode, c.name, base, got)
			}
		}
	}
	pl, _ := d2d.NewPlan(d2d.SecretState, p)
	if eps := epsOf(pl); math.Abs(eps-p.Epsilon) > 1e-9*p.Epsilon {
		t.Fatalf("GaussianEpsilon(Δ, σ, δ) = %v, want ε = %v", eps, p.Epsilon)
	}
}

func epsOf(pl d2d.Plan) float64 {
	rho := pl.Rho()
	return rho + 2*math.Sqrt(rho*math.Log(1/pl.Params.Delta))
}

// DistributedTrajectory runs distributed descent along a random update sequence on a small
// dataset and checks at every round (spec d2d §4.8): each partition model is within its
// certified radius (the §3.11 recursion on the realised changed slots) of the exact
// minimiser of its partition's loss; untouched partitions are bitwise unchanged; and with
// the fixed schedule the certified average radius stays below
// (4L/(mn))·γ^a/(1−γ^a)·(2 + π²/6) (on the event of Fact F.1, of probability ≥ 1 − δ/2).
func DistributedTrajectory(schedule d2d.Schedule) func(*rapid.T) {
	return func(t *rapid.T) {
		ds := Dataset(DataConfig{MinRows: 8, MaxRows: 30, MaxDim: 3}).Draw(t, "data")
		loss := Loss(false).Draw(t, "loss")
		us := Updates(t, ds, SequenceConfig{MaxLen: 6})
		universe := ds
		for _, u := range us {
			if u.Kind == reference.Add && !universe.Has(u.ID) {
				universe, _ = universe.With(u.Record)
			}
		}
		radius := interiorRadius(universe, loss)
		plan, err := d2d.NewDistPlan(d2d.DistParams{Constants: loss.Constants(universe, radius), Radius: radius, N: ds.Len(), Dim: ds.Dim(),
			Xi: scaled(t, 1, 4.0/3, "xi"), Budget: float64(rapid.IntRange(1, 3).Draw(t, "I")), Epsilon: 1, Delta: 1e-6, Schedule: schedule})
		if err != nil {
			t.Skip(err) // tiny n can violate K n² ≥ B² after rounding; the plan says so
		}
		r := reference.Stream(uint64(rapid.IntRange(0, 1000).Draw(t, "seed")), 0, "props/dist")
		m, err := d2d.LearnDistributed(context.Background(), plan, loss, ds, r)
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Params
		slack := oracleSlack(p.StrongConvexity)
		for i, u := range us {
			before := make([][]float64, plan.K)
			for j := range before {
				before[j] = m.PartitionModel(0, j)
			}
			if err := m.Update(context.Background(), u, r); err != nil {
				t.Fatal(err)
			}
			touched := m.Touched(0)
			for j := range plan.K {
				if !slices.Contains(touched, j) && !slices.Equal(before[j], m.PartitionModel(0, j)) {
					t.Fatalf("round %d: untouched partition %d changed", i+1, j)
				}
				res, err := retrain.Minimize(loss.Objective(m.PartitionData(0, j)), p.Radius, retrain.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if d, b := reference.Distance(m.PartitionModel(0, j), res.Theta), m.PartitionRadius(0, j); !within(d, b, slack) {
					t.Fatalf("round %d partition %d: ‖θ_j − θ*_j‖ = %.6g > certified %.6g", i+1, j, d, b)
				}
			}
			if schedule == d2d.FixedSchedule {
				g := fexp.Pow(plan.Gamma, plan.A)
				bound := 4 * p.Lipschitz / (p.StrongConvexity * float64(p.N)) * g / (1 - g) * (2 + math.Pi*math.Pi/6)
				avg := m.CertifiedDelta() - fexp.Pow(plan.Gamma, float64(plan.T))*2*p.Radius
				if !within(avg, bound, 0) {
					t.Fatalf("round %d: certified average radius %.6g > (4L/(mn))γ^a/(1−γ^a)(2 + π²/6) = %.6g", i+1, avg, bound)
				}
			}
		}
	}
}
