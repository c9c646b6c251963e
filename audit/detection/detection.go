// Package detection measures how often the audit of models trained elsewhere catches a
// violation: pairs of laws a known Gaussian-DP distance μ apart, audited on each route at
// a given number of models, many times with fixed seeds, and the fraction FAILed — the
// detection rate at μ > 0 and the false-FAIL rate of honest pairs at μ = 0, which must
// stay within 1 − confidence.
//
// It compares the statistics of spec estimators-and-attacks §(g) ("after") with those
// the toolkit used before them ("before"): the game on the parameters' two fitted scores
// at half the false-alarm budget each (checks.EmpiricalRelease), and on scores one game per
// record with a Bonferroni correction (epsilon.Game.PerExample); one model was refused.
// Both sides place thresholds between scores, so "before" measures the statistics alone.
//
//	rate, err := detection.Rate(detection.Scores, 10, 32, 100, detection.After)
//
// The simulated laws: a model's per-record scores on k = 50 deleted records are
// independent unit Gaussians, shifted by −μ/√k on every record under unlearning (a
// deleted record's loss is lower when it is remembered), so the mean over the records is
// exactly μ apart — the law pair is μ-GDP; on the parameters route a model is a point in
// d = 7,850 dimensions (a softmax regression on MNIST's 784 pixels, 10 classes), unit
// Gaussian noise, shifted by μ along a direction the audit does not know.
package detection

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// Route is what the audit sees of the models.
type Route int

const (
	Scores     Route = iota // per-record scores (losses) on the deleted records
	Parameters              // the parameters alone, no data
	// ParametersWithData are linear logistic models [intercept, weights] with the data
	// they were trained on (Data): the deleted records' losses, confidences and gradient
	// direction join the game. Fixtures only: the simulated pairs have no data.
	ParametersWithData
)

func (r Route) String() string {
	switch r {
	case Parameters:
		return "parameters"
	case ParametersWithData:
		return "parameters + data"
	}
	return "scores"
}

// Data are the records a ParametersWithData route computes losses on, and the deleted
// ones' IDs; the models carry an intercept first.
type Data struct {
	Set     *reference.Dataset
	Deletes []int64
}

// Version picks the statistics.
type Version int

const (
	Before Version = iota // the two fitted parameter scores; per-record Bonferroni games
	After                 // the pre-registered family and the rank test
)

// Claim is the claim the pairs are audited against: ε = 1, δ = 1e-3, confidence 0.95,
// power against 2×.
var Claim = spec.Spec{Epsilon: 1, Delta: 1e-3, Confidence: 0.95, PowerAgainst: 2, Seed: 1}

// Records and Dim are the simulated sizes.
const (
	Records = 50
	Dim     = 7850
	// References is the number of retrains one model is ranked among.
	References = 64
)

// Pair draws models unlearned and retrained models of the route's shape, the unlearned
// law μ from the retrained one, from seed.
func Pair(route Route, mu float64, unlearned, retrained int, seed uint64) (u, r *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 0xde7ec7))
	d := Records
	if route == Parameters {
		d = Dim
	}
	shift := make([]float64, d)
	if route == Scores {
		for j := range shift {
			shift[j] = -mu / math.Sqrt(Records)
		}
	} else {
		// a direction of the seed's own, unit length
		var n2 float64
		for j := range shift {
			shift[j] = rng.NormFloat64()
			n2 += shift[j] * shift[j]
		}
		for j := range shift {
			shift[j] *= mu / math.Sqrt(n2)
		}
	}
	draw := func(n int, s []float64) *mat.Dense {
		m := mat.NewDense(n, d, nil)
		for i := range n {
			row := m.RawRowView(i)
			for j := range row {
				row[j] = rng.NormFloat64()
				if s != nil {
					row[j] += s[j]
				}
			}
		}
		return m
	}
	return draw(unlearned, shift), draw(retrained, nil)
}

// Audit plays one audit: models unlearned models against as many retrains (References
// when models is 1), and returns its verdict. Before, one model is not audited
// (Inconclusive: it was refused).
func Audit(route Route, v Version, mu float64, models int, seed uint64) (verdict.Verdict, error) {
	refs := models
	if models < checks.MinEmpiricalTrials {
		refs = References
	}
	u, r := Pair(route, mu, models, refs, seed)
	return AuditSamples(route, v, u, r, nil)
}

// Rate is the fraction of audits FAILed, over audits seeded 0, 1, ….
func Rate(route Route, v Version, mu float64, models, audits int) (float64, error) {
	fails := 0
	for seed := range audits {
		got, err := Audit(route, v, mu, models, uint64(seed)+uint64(models)<<32)
		if err != nil {
			return 0, fmt.Errorf("detection: %s route, μ = %g, %d models, audit %d: %w", route, mu, models, seed, err)
		}
		if got == verdict.Fail {
			fails++
		}
	}
	return float64(fails) / float64(audits), nil
}

// AuditSamples audits given samples on a route with a version's statistics, as Audit
// does with simulated ones; data are a ParametersWithData route's, nil otherwise.
func AuditSamples(route Route, v Version, u, r *mat.Dense, data *Data) (verdict.Verdict, error) {
	s := Claim
	models, _ := u.Dims()
	if route == ParametersWithData {
		if data == nil {
			return "", fmt.Errorf("detection: the parameters + data route needs the data")
		}
		s.Deletes, s.Intercept = data.Deletes, true
		if v == After {
			_, fs, err := verify.VerifyModels(context.Background(), u, r, data.Set, &s)
			if err != nil {
				return "", err
			}
			return verdict.Worst(fs), nil
		}
		// before: the parameter game and the per-record games on the losses, either FAILing
		if nr, _ := r.Dims(); models < checks.MinEmpiricalTrials || nr != models {
			return verdict.Inconclusive, nil
		}
		game, err := AuditSamples(Parameters, Before, u, r, nil)
		if err != nil || game == verdict.Fail {
			return game, err
		}
		lu, err := verify.LinearLosses(u, data.Set, data.Deletes, true)
		if err != nil {
			return "", err
		}
		lr, err := verify.LinearLosses(r, data.Set, data.Deletes, true)
		if err != nil {
			return "", err
		}
		return AuditSamples(Scores, Before, lu, lr, nil)
	}
	if v == After {
		var (
			fs  []verdict.Finding
			err error
		)
		switch {
		case route == Scores:
			_, fs, err = verify.VerifyScores(context.Background(), u, r, &s)
		case models < checks.MinEmpiricalTrials:
			return verdict.Inconclusive, nil // the rank route needs the data
		default:
			_, fs, err = verify.VerifySamples(context.Background(), u, r, &s)
		}
		if err != nil {
			return "", err
		}
		return verdict.Worst(fs), nil
	}
	if nr, _ := r.Dims(); models < checks.MinEmpiricalTrials || nr != models {
		return verdict.Inconclusive, nil // refused: as many of each, at least 8
	}
	if route == Scores {
		pe, err := epsilon.Game{Delta: s.Delta, Confidence: s.Confidence, Strategy: threshold.Split}.PerExample(u, r)
		if err != nil {
			return "", err
		}
		if pe.Epsilon > s.Epsilon {
			return verdict.Fail, nil
		}
		return verdict.Inconclusive, nil
	}
	results := make([]trials.TrialResult, models)
	for i := range models {
		results[i] = trials.TrialResult{Index: i}
		results[i].Unlearned.Published = u.RawRowView(i)
		results[i].Retrained.Published = r.RawRowView(i)
	}
	f, err := checks.EmpiricalRelease{Prefix: "before", Epsilon: s.Epsilon, Delta: s.Delta, Confidence: s.Confidence, PowerAgainst: 2, Seed: 1}.Check(context.Background(), results)
	if err != nil {
		return "", err
	}
	return f.Verdict, nil
}

// SubsetRate is the fraction FAILed over the disjoint groups of models unlearned models in
// u (rows 0..models−1, models..2·models−1, …), each against the first models rows of r, or
// all of r when models is below what a game needs (the rank route). data is for the
// ParametersWithData route, nil otherwise.
func SubsetRate(route Route, v Version, u, r *mat.Dense, models int, data *Data) (float64, error) {
	nu, cu := u.Dims()
	nr, _ := r.Dims()
	if models > nu || models > nr {
		return 0, fmt.Errorf("detection: %d models, samples of %d and %d", models, nu, nr)
	}
	groups, fails := nu/models, 0
	for g := range groups {
		ug := u.Slice(g*models, (g+1)*models, 0, cu).(*mat.Dense)
		rg := r
		if models >= checks.MinEmpiricalTrials {
			rg = r.Slice(g*models%nr, g*models%nr+models, 0, cu).(*mat.Dense)
		}
		got, err := AuditSamples(route, v, mat.DenseCopyOf(ug), mat.DenseCopyOf(rg), data)
		if err != nil {
			return 0, fmt.Errorf("detection: group %d: %w", g, err)
		}
		if got == verdict.Fail {
			fails++
		}
	}
	return float64(fails) / float64(groups), nil
}

// LoadData reads a fixture's data.csv (features, then a 0/1 label, a header line) as a
// dataset with ±1 labels and record IDs the row numbers, with the deleted IDs given.
func LoadData(path string, deletes []int64) (*Data, error) {
	ds, err := reference.LoadCSV(path, reference.CSVOptions{Header: true, LabelColumn: -1})
	if err != nil {
		return nil, fmt.Errorf("detection: %w", err)
	}
	n, d := ds.Len(), ds.Dim()
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		rec := ds.Record(i)
		x.SetRow(i, rec.X)
		y[i] = 2*rec.Y - 1
		if rec.Y != 0 && rec.Y != 1 {
			return nil, fmt.Errorf("detection: %s: row %d: label %v; want 0 or 1", path, i, rec.Y)
		}
	}
	set, err := reference.NewDataset(ds.IDs(), x, y)
	if err != nil {
		return nil, fmt.Errorf("detection: %w", err)
	}
	return &Data{Set: set, Deletes: deletes}, nil
}
