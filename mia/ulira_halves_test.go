package mia_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// uliraCall is one model U-LiRA asked for: the unlearner's (target ≥ 0) or the
// retrainer's (target −1), with the record IDs of the data it was given.
type uliraCall struct {
	target int64
	ids    []int64
}

// uliraPairs runs U-LiRA with one worker (so each pair's unlearner and retrainer are
// called one after the other) on models that are their training sets: a model is the
// sorted IDs it was trained on, the unlearner is exact (the set without the target), and a
// record's score under a model is Σ w[id] over the set with fixed normal weights w, so two
// models score alike exactly when their sets are equal (a tie between different sets has
// probability 0). It returns the calls in order and the result.
func uliraPairs(t *testing.T, ds *reference.Dataset, targets []int64, opt mia.ULiRAOptions) ([]uliraCall, *mia.ULiRAResult) {
	t.Helper()
	var calls []uliraCall
	ids := func(d *reference.Dataset) []int64 {
		out := make([]int64, d.Len())
		for i := range out {
			out[i] = d.ID(i)
		}
		slices.Sort(out)
		return out
	}
	model := func(set []int64) []float64 {
		m := make([]float64, len(set))
		for i, id := range set {
			m[i] = float64(id)
		}
		return m
	}
	w := make([]float64, ds.Len())
	r := rand.New(rand.NewPCG(41, 2))
	for i := range w {
		w[i] = r.NormFloat64()
	}
	retrain := func(_ context.Context, d *reference.Dataset, _ *rand.Rand) ([]float64, error) {
		set := ids(d)
		calls = append(calls, uliraCall{target: -1, ids: set})
		return model(set), nil
	}
	unlearn := func(_ context.Context, d *reference.Dataset, target int64, _ *rand.Rand) ([]float64, error) {
		set := ids(d)
		calls = append(calls, uliraCall{target: target, ids: set})
		return model(slices.DeleteFunc(slices.Clone(set), func(id int64) bool { return id == target })), nil
	}
	opt.Workers = 1
	opt.Score = func(m []float64, _ reference.Record) float64 {
		var s float64
		for _, id := range m {
			row, _ := ds.Lookup(int64(id))
			s += w[row]
		}
		return s
	}
	res, err := mia.ULiRA(context.Background(), unlearn, retrain, nil, ds, targets, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(targets) * (opt.Shadows + opt.Evals); len(calls) != want {
		t.Fatalf("%d models trained; want %d (two a pair)", len(calls), want)
	}
	return calls, res
}

// overlap is |a ∩ b| of two sorted sets.
func overlap(a, b []int64) int {
	n := 0
	for _, id := range a {
		if _, ok := slices.BinarySearch(b, id); ok {
			n++
		}
	}
	return n
}

// U-LiRA's pairs are two independent samples of one law (Hayes et al. 2024, and ULiRA's
// Coupled option): the unlearned model of a pair trains on a random half of the other
// records plus the target, the retrained model on another random half drawn
// independently. Checked on the data each model is given (6 targets × 32 pairs, halves
// of m = 39 out of N = 79 records):
//   - the unlearned model's data is its half plus the target, the retrain's excludes it;
//   - no pair's two halves are equal (independent draws coincide with probability
//     1/C(79, 39) ≈ 1e-23 a pair), and no two pairs share a half;
//   - the overlap of a pair's halves follows the hypergeometric law: its sum over the 192
//     pairs is within 4.89 standard deviations of 192·m²/N, two-sided (false-failure
//     probability 1e-6 under the normal approximation: a shared half gives overlap 39,
//     complementary halves 0: each about 120 deviations away);
//   - under exact unlearning the pairs' statistics Λ are not identical (equal sets are
//     what makes them equal here).
//
// The Coupled option is the positive control: with it, every pair shares its half, and
// the same checks see it. Planted by hand: the retrain given the unlearned model's half
// (other := half, whatever Coupled) fails with 192 of 192 pairs sharing a half, z = 122,
// and 96 of 96 identical evaluation pairs; the retrain's half drawn from a stream of the
// target, not of the pair, fails with 6 distinct retrained halves over 192 pairs.
func TestULiRAPairsTrainOnIndependentHalves(t *testing.T) {
	ds, err := reference.SyntheticClassification(80, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	targets := []int64{0, 7, 13, 21, 42, 55}
	opt := mia.ULiRAOptions{Shadows: 16, Evals: 16, Seed: 3}
	pairs := func(calls []uliraCall, check func(job int, x int64, unlearned, retrained []int64)) {
		for job := 0; job < len(calls); job += 2 {
			u, r := calls[job], calls[job+1]
			if u.target < 0 || r.target != -1 {
				t.Fatalf("calls %d and %d: want the unlearner, then the retrainer, of one pair", job, job+1)
			}
			check(job/2, u.target, u.ids, r.ids)
		}
	}

	calls, res := uliraPairs(t, ds, targets, opt)
	N := ds.Len() - 1
	m := N / 2
	P := len(calls) / 2
	var sum float64
	shared := 0
	seenU, seenR := map[string]int{}, map[string]int{} // pairs a half is drawn by
	key := func(ids []int64) string { return fmt.Sprint(ids) }
	pairs(calls, func(job int, x int64, unlearned, retrained []int64) {
		if _, in := slices.BinarySearch(unlearned, x); !in || len(unlearned) != m+1 {
			t.Fatalf("pair %d: the unlearned model trains on %d records (target %d in: %v); want its half of %d plus the target", job, len(unlearned), x, in, m)
		}
		if _, in := slices.BinarySearch(retrained, x); in || len(retrained) != m {
			t.Fatalf("pair %d: the retrain trains on %d records (target %d in: %v); want a half of %d without it", job, len(retrained), x, in, m)
		}
		half := slices.DeleteFunc(slices.Clone(unlearned), func(id int64) bool { return id == x })
		if slices.Equal(half, retrained) {
			shared++
		}
		sum += float64(overlap(half, retrained))
		seenU[key(half)]++
		seenR[key(retrained)]++
	})
	// Hypergeometric(N, m, m): mean m²/N, variance m·(m/N)·((N−m)/N)·((N−m)/(N−1)).
	mean := float64(m*m) / float64(N)
	variance := float64(m) * float64(m) / float64(N) * float64(N-m) / float64(N) * float64(N-m) / float64(N-1)
	z := (sum - float64(P)*mean) / math.Sqrt(float64(P)*variance)
	identical := 0
	for i := range res.Unlearned {
		if res.Unlearned[i] == res.Retrained[i] {
			identical++
		}
	}
	t.Logf("%d pairs: %d share a half; mean overlap %.3f (hypergeometric %.3f), z = %.2f; %d of %d evaluation pairs identical",
		P, shared, sum/float64(P), mean, z, identical, len(res.Unlearned))
	if shared > 0 {
		t.Errorf("%d of %d pairs train their unlearned and retrained models on one half; want independent halves", shared, P)
	}
	if len(seenU) != P || len(seenR) != P {
		t.Errorf("%d distinct unlearned halves and %d distinct retrained halves over %d pairs; want a fresh draw for every pair", len(seenU), len(seenR), P)
	}
	if math.Abs(z) > 4.89 {
		t.Errorf("the halves' overlap sums to %.0f over %d pairs, %.2f standard deviations from the hypergeometric mean %.1f: the halves are not independent draws", sum, P, z, float64(P)*mean)
	}
	if identical > 0 {
		t.Errorf("exact unlearning: %d of %d evaluation pairs give the unlearned and retrained models the same statistic; independent halves differ", identical, len(res.Unlearned))
	}

	// Positive control: coupling, asked for, is seen.
	opt.Coupled = true
	calls, res = uliraPairs(t, ds, targets, opt)
	coupled := 0
	pairs(calls, func(_ int, x int64, unlearned, retrained []int64) {
		if slices.Equal(slices.DeleteFunc(slices.Clone(unlearned), func(id int64) bool { return id == x }), retrained) {
			coupled++
		}
	})
	if coupled != P || !slices.Equal(res.Unlearned, res.Retrained) {
		t.Errorf("Coupled: %d of %d pairs share a half, statistics equal: %v; want all", coupled, P, slices.Equal(res.Unlearned, res.Retrained))
	}
}
