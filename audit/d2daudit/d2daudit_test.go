package d2daudit_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/google/go-cmp/cmp"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

// instance is a small problem where one record matters: a mislabelled outlier of norm 1
// is added, then deleted, so the minimiser moves by far more than the certified radius.
func instance(t *testing.T, mode d2d.Mode) *d2daudit.Subject {
	t.Helper()
	ds, err := reference.SyntheticClassification(200, 5, 11)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.05}
	radius := 10.0
	star, err := retrain.Minimize(loss.Objective(ds), radius, retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := append([]float64(nil), star.Theta...)
	for j := range x {
		x[j] /= reference.Norm(star.Theta)
	}
	outlier := reference.Record{ID: 1000, X: x, Y: -1} // on the model's positive side, labelled −1
	updates := []reference.Update{reference.DeleteID(0), reference.AddRecord(outlier), reference.DeleteID(7), reference.DeleteID(1000)}
	universe, _ := ds.With(outlier)
	p := d2d.Params{Constants: loss.Constants(universe, radius), Radius: radius, Budget: 20, Epsilon: 1, Delta: 1e-6}
	if mode == d2d.Perfect {
		p.Dim = ds.Dim()
		p.Budget = max(p.Budget, p.PerfectMinBudget())
	}
	s, err := d2daudit.New(context.Background(), d2daudit.Setup{Mode: mode, Loss: loss, Data: ds, Updates: updates, Params: p})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func audited(t *testing.T, run trials.Subject, s *d2daudit.Subject, n int) map[string]verdict.Finding {
	t.Helper()
	res, err := trials.Engine{}.Run(context.Background(), run, 1, n)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := d2daudit.Check(context.Background(), s, res, audit.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return audittest.ByCheck(fs)
}

// Control: the reference implementation passes every required check on the instance, in
// both modes, and the empirical game (supporting evidence) shows no violation and states
// its power. The statistical checks have false-FAIL probability ≤ 0.05 each at the default
// confidence; this seeded run is one fixed draw.
func TestReferencePassesEveryCheck(t *testing.T) {
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
		s := instance(t, mode)
		fs := audited(t, s, s, 100)
		for _, f := range fs {
			if err := verdict.Consistent(s.Claim(), f); err != nil {
				t.Errorf("%s: %v", mode, err)
			}
		}
		// 100 trials at δ = 1e-6 cannot catch a 2× violation: the game must say so
		if f := fs["d2d/empirical/epsilon-lower-bound"]; f.Verdict != verdict.Inconclusive || f.Power.Sufficient() {
			t.Errorf("%s: empirical game %v with power %+v; 100 trials at δ = 1e-6 have almost none", mode, f.Verdict, f.Power)
		}
		if v := verdict.Decide(s.Claim(), values(fs)); v != verdict.Pass {
			t.Errorf("%s: subject verdict %s, want PASS from its required findings", mode, v)
		}
	}
}

func values(m map[string]verdict.Finding) []verdict.Finding {
	var out []verdict.Finding
	for _, f := range m {
		out = append(out, f)
	}
	return out
}

// noNoise publishes the secret model as is: the planted bug "publishing without noise".
type noNoise struct{ *d2daudit.Subject }

func (b noNoise) Unlearned(ctx context.Context, st reference.Streams) (reference.Release, error) {
	r, err := b.Subject.Unlearned(ctx, st)
	r.Published = append([]float64(nil), r.Secret...)
	return r, err
}

func TestPlantedBugNoNoiseFailsRelease(t *testing.T) {
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
		s := instance(t, mode)
		fs := audited(t, noNoise{s}, s, 50)
		if f := fs["d2d/release/renyi"]; f.Verdict != verdict.Fail || !strings.Contains(f.Detail, "unlearned side") {
			t.Errorf("%s: release check %v (%s); want FAIL blaming the unlearned side's noise", mode, f, f.Detail)
		}
		if f := fs["d2d/implementation/radius"]; f.Verdict != verdict.Pass {
			t.Errorf("%s: the secret model is right, yet the implementation check says %v", mode, f)
		}
	}
}

// usesDeleted runs D2D but descends, at each update, on the dataset before the update:
// the planted bug "an unlearning step that still uses the deleted record".
type usesDeleted struct{ *d2daudit.Subject }

func (b usesDeleted) Unlearned(ctx context.Context, st reference.Streams) (reference.Release, error) {
	setup, plan := b.Setup(), b.Plan()
	p := plan.Params
	theta := make([]float64, setup.Data.Dim())
	grad := make([]float64, len(theta))
	data := setup.Data
	d2d.Descend(setup.Loss.Objective(data), theta, grad, plan.StepSize, p.Radius, plan.LearnIterations(data.Len()))
	pub := make([]float64, len(theta))
	for i, u := range setup.Updates {
		next, err := data.Apply(u)
		if err != nil {
			return reference.Release{}, err
		}
		if plan.Mode == d2d.Perfect {
			reference.FillNormal(pub, plan.Sigma, st.Rand(fmt.Sprintf("bug/%d", i)))
			for j := range theta {
				theta[j] += pub[j]
			}
			reference.ProjectBall(theta, p.Radius)
		}
		d2d.Descend(setup.Loss.Objective(data), theta, grad, plan.StepSize, p.Radius, plan.UpdateIterations(i+1)) // bug: data, not next
		data = next
	}
	reference.FillNormal(pub, plan.Sigma, st.Rand("bug/publish"))
	for j := range pub {
		pub[j] += theta[j]
	}
	return reference.Release{Published: pub, Secret: theta}, nil
}

func TestPlantedBugDeletedRecordFailsImplementation(t *testing.T) {
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
		s := instance(t, mode)
		fs := audited(t, usesDeleted{s}, s, 20)
		f := fs["d2d/implementation/radius"]
		if f.Verdict != verdict.Fail {
			t.Errorf("%s: implementation check %v; want FAIL", mode, f)
		}
		// the record matters: the bug moves the model by more than twice the radius
		if f.Measured < 2*f.Bound {
			t.Errorf("%s: the outlier moved the model by only %v against a radius %v", mode, f.Measured, f.Bound)
		}
	}
}

// The planted bugs are caught by the empirical route alone: the distinguishing game on the
// published models, with no certificate, no secret models and no exact checks. Each game
// is at 95 % confidence; with these separations the bound reaches the game's resolution.
func TestPlantedBugsCaughtByEmpiricalRouteAlone(t *testing.T) {
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
		s := instance(t, mode)
		c := s.Claim()
		for _, bug := range []struct {
			name string
			run  trials.Subject
		}{{"no noise", noNoise{s}}, {"deleted record still used", usesDeleted{s}}} {
			res, err := trials.Engine{}.Run(context.Background(), bug.run, 1, 100)
			if err != nil {
				t.Fatal(err)
			}
			for i := range res { // the empirical route sees only what is published
				res[i].Unlearned.Secret, res[i].Retrained.Secret = nil, nil
			}
			f, err := checks.EmpiricalRelease{Prefix: "d2d", Epsilon: c.Epsilon, Delta: c.Delta, Seed: 1}.Check(context.Background(), res)
			if err != nil {
				t.Fatal(err)
			}
			if f.Verdict != verdict.Fail {
				t.Errorf("%s, %s: empirical finding %v (%s); want FAIL", mode, bug.name, f, f.Detail)
			}
			t.Logf("%s, %s: ε_LB = %.3f > ε = %v", mode, bug.name, f.Measured, c.Epsilon)
		}
	}
}

func TestUnknownIDIsNamed(t *testing.T) {
	ds, _ := reference.SyntheticClassification(50, 3, 1)
	loss := reference.Logistic{Lambda: 0.1}
	p := d2d.Params{Constants: loss.Constants(ds, 5), Radius: 5, Budget: 5, Epsilon: 1, Delta: 1e-6}
	_, err := d2daudit.New(context.Background(), d2daudit.Setup{Loss: loss, Data: ds, Updates: []reference.Update{reference.DeleteID(4), reference.DeleteID(777)}, Params: p})
	if !errors.Is(err, reference.ErrUnknownID) || !strings.Contains(err.Error(), "777") || !strings.Contains(err.Error(), "update 2") {
		t.Fatalf("got %v; want an unknown-ID error naming 777 and update 2", err)
	}
}

// A deployment that declares too little noise, or a Lipschitz constant below the data's,
// fails the certificate check.
func TestCertificateCatchesBadDeclarations(t *testing.T) {
	s := instance(t, d2d.SecretState)
	setup := s.Setup()
	setup.Sigma = s.Plan().Sigma / 2
	weak, err := d2daudit.New(context.Background(), setup)
	if err != nil {
		t.Fatal(err)
	}
	if f := audited(t, weak, weak, 20)["d2d/certificate/sigma"]; f.Verdict != verdict.Fail {
		t.Errorf("σ/2: certificate check %v; want FAIL", f)
	}
	setup = s.Setup()
	setup.Params.Lipschitz = 0.5 // the data's supremum is ≈ 1 + λR = 1.5
	low, err := d2daudit.New(context.Background(), setup)
	if err != nil {
		t.Fatal(err)
	}
	if f := audited(t, low, low, 20)["d2d/certificate/lipschitz"]; f.Verdict != verdict.Fail {
		t.Errorf("L = 0.5: certificate check %v; want FAIL", f)
	}
}

// D2D's learner is the recipe a retrain from scratch reruns.
var _ retrain.Recipe = d2d.Recipe{}

// convexInstance: unregularised logistic regression (convex, m = 0) audited with the
// convex variants, which add their own ridge term.
func convexInstance(t *testing.T, mode d2d.Mode, p func(*d2d.Params)) *d2daudit.Subject {
	t.Helper()
	ds, err := reference.SyntheticClassification(300, 5, 13)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{}
	radius := 10.0
	params := d2d.Params{Constants: loss.Constants(ds, radius), Radius: radius, Budget: 10, Epsilon: 1, Delta: 1e-6}
	if p != nil {
		p(&params)
	}
	held := reference.Record{ID: 999, X: ds.Row(3), Y: -ds.Label(3)}
	s, err := d2daudit.New(context.Background(), d2daudit.Setup{Mode: mode, Loss: loss, Data: ds, Params: params,
		Updates: []reference.Update{reference.DeleteID(0), reference.AddRecord(held), reference.DeleteID(9), reference.DeleteID(999)}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConvexVariantsPassEveryCheck(t *testing.T) {
	for _, mode := range []d2d.Mode{d2d.ConvexStrong, d2d.ConvexWeak} {
		s := convexInstance(t, mode, nil)
		for _, f := range audited(t, s, s, 100) {
			if err := verdict.Consistent(s.Claim(), f); err != nil {
				t.Errorf("%s: %v", mode, err)
			}
		}
		if s.Plan().Reg <= 0 || len(s.Claim().Notes) == 0 {
			t.Errorf("%s: plan %+v, notes %v; want the added ridge weight and the flagged formula reported", mode, s.Plan(), s.Claim().Notes)
		}
	}
}

// With ξ = 2.5 the printed constant 2√2 is below the 4√2·c_ξ = 3.107 the proof needs: the
// certificate check recomputes σ with the corrected constant and fails the deployment.
func TestWeakPrintedConstantFailsAboveXiTwo(t *testing.T) {
	s := convexInstance(t, d2d.ConvexWeak, func(p *d2d.Params) { p.Xi, p.SigmaConstant = 2.5, d2d.AsPrinted })
	f := audited(t, s, s, 20)["d2d/certificate/sigma"]
	if f.Verdict != verdict.Fail || f.Measured/f.Bound < 3.107/(2*math.Sqrt2)-1e-6 {
		t.Fatalf("certificate check %v; want FAIL with ratio 3.107/2.828", f)
	}
	ok := convexInstance(t, d2d.ConvexWeak, func(p *d2d.Params) { p.Xi, p.SigmaConstant = 1.5, d2d.AsPrinted })
	if f := audited(t, ok, ok, 20)["d2d/certificate/sigma"]; f.Verdict != verdict.Pass {
		t.Fatalf("ξ = 1.5 with the printed constant: %v; it suffices for ξ ≤ 2", f)
	}
}

// A trial's releases are a whole reference run's, bit for bit, in every variant: the
// unlearned run learns on 𝒟₀ and serves each request with d2d.Model, publishing each
// round from its own stream, and the retrain is Recipe().Learn on 𝒟_k — though outside
// Perfect mode the subject descends once for all trials and only draws each trial's noise.
// A first call under a cancelled context fails without spoiling the later ones.
func TestTrialsAreWholeRuns(t *testing.T) {
	subjects := map[string]*d2daudit.Subject{
		"secret-state":  instance(t, d2d.SecretState),
		"perfect":       instance(t, d2d.Perfect),
		"convex-strong": convexInstance(t, d2d.ConvexStrong, nil),
		"convex-weak":   convexInstance(t, d2d.ConvexWeak, nil),
	}
	for name, s := range subjects {
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.Unlearned(cancelled, reference.Streams{Seed: 5}); err == nil {
			t.Errorf("%s: unlearned under a cancelled context: no error", name)
		}
		if _, err := s.Retrained(cancelled, reference.Streams{Seed: 5}); err == nil {
			t.Errorf("%s: retrained under a cancelled context: no error", name)
		}
		ctx := context.Background()
		for trial := range 3 {
			st := reference.Streams{Seed: 5, Trial: trial}
			setup := s.Setup()
			m, err := d2d.Learn(ctx, s.Plan(), setup.Loss, setup.Data, st.Rand("d2d/unlearned/publish/0"))
			if err != nil {
				t.Fatal(err)
			}
			for i, u := range setup.Updates {
				if err := m.Update(ctx, u, st.Rand(fmt.Sprintf("d2d/unlearned/publish/%d", i+1))); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Unlearned(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(m.Release(), got); diff != "" {
				t.Fatalf("%s, trial %d: unlearned release differs from the whole run's:\n%s", name, trial, diff)
			}
			want, err := s.Recipe().Learn(ctx, s.Final(), st)
			if err != nil {
				t.Fatal(err)
			}
			if got, err = s.Retrained(ctx, st); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s, trial %d: retrained release differs from the whole run's:\n%s", name, trial, diff)
			}
		}
	}
}
