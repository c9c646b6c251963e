package sgluaudit

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// breastCancer is the scikit-learn breast cancer data, standardised, rows of norm 1, cut
// to 560 rows so that b = 56 divides n.
func breastCancer(t *testing.T) *reference.Dataset {
	t.Helper()
	ds, err := reference.LoadSklearnCSV(filepath.Join(testenv.Datasets(t), "sklearn", "breast_cancer.csv"), reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ds = ds.BinaryLabels(1).Standardize().NormalizeRows()
	keep := ds.IDs()[:560]
	ds, err = ds.Subset(keep)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func setup(ds *reference.Dataset) Setup {
	return Setup{Loss: reference.Logistic{Lambda: 0.05}, Data: ds, Removals: []int64{3, 70, 200}, Batch: 56, Sigma: 0.05,
		Epochs: 10, Radius: 10, Epsilon: 1, Seed: 1}
}

func run(t *testing.T, s trials.Subject, sub *Subject, n int) map[string]verdict.Finding {
	t.Helper()
	res, err := trials.Engine{}.Run(context.Background(), s, 7, n)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Check(context.Background(), sub, res, audit.CheckOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return audittest.ByCheck(fs)
}

// An honest SGLU deployment on real data: the certificate meets the target with the
// accountant's epochs (and one epoch fewer on any request would not), the exact oracle
// sits below its bound, and the distinguishing game finds nothing. The game's false
// FAIL probability is at most 1 − 0.95 by its construction (seeded: this run is fixed).
func TestSubjectHonest(t *testing.T) {
	s, err := New(context.Background(), setup(breastCancer(t)))
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range s.Needed() {
		fewer := append([]int(nil), s.Needed()...)
		fewer[i] = k - 1
		if k > 1 {
			if e := s.certified(fewer); e[i] <= 1 {
				t.Errorf("request %d: K = %d − 1 already certifies %v", i+1, k, e[i])
			}
		}
	}
	fs := run(t, s, s, 200)
	for _, c := range []string{"sglu/certificate", "sglu/exact-oracle"} {
		if fs[c].Verdict != verdict.Pass {
			t.Errorf("%s: %+v", c, fs[c])
		}
	}
	if f := fs["sglu/empirical/epsilon-lower-bound"]; f.Verdict == verdict.Fail {
		t.Errorf("empirical game failed an honest run: %+v", f)
	}
	if f := fs["sglu/exact-oracle"]; !(f.Measured > 0 && f.Measured < f.Bound) {
		t.Errorf("oracle: exact %v, bound %v", f.Measured, f.Bound)
	}
}

// One removal is Theorem 3.2 exactly: the sequential accountant's K and ϵ are those of
// LeastKNonConvergent and UnlearnEpsilonNonConvergent's conversion.
func TestSequentialNonConvergentOneRequest(t *testing.T) {
	s := setup(breastCancer(t))
	s.Removals = s.Removals[:1]
	sub, err := New(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	K, err := LeastKNonConvergent(1, sub.delta, s.Sigma, sub.problem, sub.nc, sglu.PaperVariance, sglu.NonConvergentAlphas)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sglu.BestEpsilonWeakTriangle(NonConvergentCoefficient(s.Sigma, sub.problem, K, sub.nc, sglu.PaperVariance), sub.delta, sglu.NonConvergentAlphas)
	if sub.Needed()[0] != K || sub.Certified()[0] != want {
		t.Fatalf("sequential: K %v ϵ %v; Theorem 3.2: K %d ϵ %v", sub.Needed(), sub.Certified(), K, want)
	}
}

// A deployment that runs fewer epochs than its certificate needs fails the certificate.
func TestSubjectTooFewEpochs(t *testing.T) {
	st := setup(breastCancer(t))
	st.UnlearnEpochs = []int{1, 1, 1}
	s, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	f := s.certificateFinding()
	if f.Verdict != verdict.Fail || !(f.Measured > 1) {
		t.Fatalf("K = 1: %+v", f)
	}
}

// leaky serves the requests without replacing the records: it keeps training on D.
type leaky struct{ *Subject }

func (l leaky) Unlearned(ctx context.Context, st reference.Streams) (reference.Release, error) {
	r := st.Rand("sglu/unlearned")
	m, err := sglu.LearnOrdered(ctx, l.params(), l.setup.Loss, l.ordered, r)
	if err != nil {
		return reference.Release{}, err
	}
	for _, k := range l.ks {
		if err := m.Epochs(ctx, k, r); err != nil {
			return reference.Release{}, err
		}
	}
	return m.Release(), nil
}

// A planted leak — the removed records stay in the data — is caught by the empirical game
// at σ = 0.005 (the certificate, computed from the declared run, cannot see it).
func TestSubjectLeakCaught(t *testing.T) {
	st := setup(breastCancer(t))
	st.Sigma = 0.005
	s, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	fs := run(t, leaky{s}, s, 200)
	if f := fs["sglu/empirical/epsilon-lower-bound"]; f.Verdict != verdict.Fail {
		t.Fatalf("leak not caught: %+v", f)
	}
}

// TrimToBatches keeps the records to remove, first, fills up to a multiple of b with the
// others in order, and refuses what cannot fit.
func TestTrimToBatches(t *testing.T) {
	ds, err := reference.SyntheticClassification(23, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := TrimToBatches(ds, 5, []int64{21, 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{3, 21, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
	if !slices.Equal(got.IDs(), want) {
		t.Fatalf("kept %v, want %v", got.IDs(), want)
	}
	for _, c := range []struct {
		b    int
		keep []int64
	}{{0, nil}, {24, nil}, {20, ds.IDs()[:21]}, {5, []int64{99}}} {
		if _, err := TrimToBatches(ds, c.b, c.keep); err == nil {
			t.Errorf("b = %d, keep %v: no error", c.b, c.keep)
		}
	}
}

// Trials in lockstep are the same bits however they are batched: alone (Unlearned and
// Retrained), in the engine's batches of 4 or of 16, on one worker or two, so batching is
// speed only; the batch size is not part of the configuration, lockstep itself is (its
// kernel rounds otherwise than sglu.Model, which reference/sglu's property holds within
// the derived bound).
func TestLockstepTrials(t *testing.T) {
	ds := breastCancer(t)
	st := setup(ds)
	plain, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	st.Lockstep = 4
	four, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	st.Lockstep = 16
	sixteen, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if four.Fingerprint() != sixteen.Fingerprint() || four.Fingerprint() == plain.Fingerprint() {
		t.Error("fingerprints: want lockstep's size out of it and lockstep itself in it")
	}
	st.Float32 = true
	f32, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if f32.Fingerprint() == sixteen.Fingerprint() {
		t.Error("float32 lockstep has float64's fingerprint")
	}
	st.Lockstep = 0
	if _, err := New(context.Background(), st); err == nil || !strings.Contains(err.Error(), "lockstep only") {
		t.Errorf("float32 without lockstep: %v", err)
	}

	ctx := context.Background()
	a := batchedAlike(t, "float64", four, sixteen)
	alone, err := trials.RunTrial(ctx, sixteen, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a[7], alone); diff != "" {
		t.Fatalf("trial 7 alone differs from trial 7 batched:\n%s", diff)
	}
	// float32 too: its kernels' edges round as their panels (batches of 4 leave 2 here;
	// the rare operands where a Go edge would round otherwise are reference/ensemble's
	// TestLogisticGradient32DoubleRoundingWitness)
	st.Lockstep = 4
	f32four, err := New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	c := batchedAlike(t, "float32", f32four, f32)
	if diff := cmp.Diff(c, a); diff == "" {
		t.Fatal("float32 lockstep gave float64's trials")
	}
}

// batchedAlike runs trials 0..9 (seed 3) of small in batches on one worker and of large
// on two, fails unless they are the same bits, and returns them.
func batchedAlike(t *testing.T, what string, small, large *Subject) []trials.TrialResult {
	t.Helper()
	a, err := trials.Engine{Workers: 1}.Run(context.Background(), small, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	b, err := trials.Engine{Workers: 2}.Run(context.Background(), large, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("%s: batches of %d on one worker and of %d on two differ:\n%s", what, small.BatchSize(), large.BatchSize(), diff)
	}
	return a
}
