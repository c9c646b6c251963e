package hf

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Algorithm 3's statistics are the Stage II recursion continued: for a record r still
// held, a_new = −df/dω at ω = 0, where f(ω) fine-tunes from start − ω·a_old with r's term
// weighted 1 + ω (divisor kept) — the derivative the spec's corrected line 16 describes,
// with the old statistic taken as the start's derivative. Central differences as in I4
// (h = 1e-5, tolerance 1e-6·max(1, ‖a‖)). A statistic not carried through the repair
// maps (the printed line 16), or carried through the learning phase's, misses it.
func TestRepairContinuesTheStatistics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := draw(t, "softmax", "mlp", "least-squares", "linear")
		n := in.data.Len()
		if n < 3 {
			return
		}
		stats, err := in.tr.Statistics(ctx, in.data, nil, PaperOrder)
		if err != nil {
			t.Fatal(err)
		}
		u := NewUnlearner(in.tr, stats)
		perm := rapid.Permutation(seqInts(n)).Draw(t, "order")
		removed := perm[:rapid.IntRange(0, n-2).Draw(t, "m")]
		if err := u.Delete(removed...); err != nil {
			t.Fatal(err)
		}
		row := perm[n-1]
		old := slices.Clone(must(stats.Of(row)))
		start := u.Model()
		rc := DefaultRepair(in.tr)
		rc.Epochs = rapid.IntRange(1, 2).Draw(t, "repair epochs")
		rc.BatchSize = rapid.IntRange(1, n-len(removed)).Draw(t, "repair batch")
		seed := rapid.Uint64().Draw(t, "repair seed")
		rep, err := u.Repair(ctx, in.data, nil, rc, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if u.Repaired() != 1 || norm(sub(u.Model(), rep.Final)) != 0 {
			t.Fatalf("state after repair is not the repaired model")
		}
		f := func(omega float64) []float64 {
			tr := *rep
			tr.W0 = slices.Clone(start)
			for j, a := range old {
				tr.W0[j] -= omega * a
			}
			w, err := tr.run(ctx, in.data, map[int32]float64{int32(row): omega}, PaperRule, nil)
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		const h = 1e-5
		fd := sub(f(-h), f(h))
		for j := range fd {
			fd[j] /= 2 * h
		}
		got := must(u.stats.Of(row))
		if gap := norm(sub(got, fd)); gap > 1e-6*math.Max(1, norm(got)) {
			t.Fatalf("repaired statistic of row %d: %v; derivative %v (gap %.3g)", row, got, fd, gap)
		}
		for _, r := range removed {
			if u.stats.Has(r) {
				t.Fatalf("deleted row %d has a statistic again", r)
			}
		}
	})
}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("missing")
	}
	return v
}

func TestRepairEdges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := draw(t, "softmax")
		n := in.data.Len()
		stats, err := in.tr.Statistics(ctx, in.data, nil, PaperOrder)
		if err != nil {
			t.Fatal(err)
		}
		stats.StoreFloat32()
		u := NewUnlearner(in.tr, stats)
		r := rand.New(rand.NewPCG(1, 2))
		if _, err := u.Repair(ctx, in.data, []float64{1}, DefaultRepair(in.tr), r); !contains(err, "the start has 1 entries") {
			t.Fatalf("short start: %v", err)
		}
		bad := DefaultRepair(in.tr)
		bad.Epochs = 0
		if _, err := u.Repair(ctx, in.data, nil, bad, r); !contains(err, "hf repair: hf: epochs 0") {
			t.Fatalf("no epochs: %v", err)
		}
		if u.Repaired() != 0 {
			t.Fatal("a refused repair counted")
		}
		if _, err := u.Repair(ctx, in.data, nil, DefaultRepair(in.tr), r); err != nil {
			t.Fatal(err)
		}
		if !u.stats.Float32() || u.stats.Len() != n {
			t.Fatalf("repair changed the store: float32 %v, %d of %d held", u.stats.Float32(), u.stats.Len(), n)
		}
		if err := u.Delete(seqInts(n)...); err != nil {
			t.Fatal(err)
		}
		if _, err := u.Repair(ctx, in.data, nil, DefaultRepair(in.tr), r); !contains(err, "every record is deleted") {
			t.Fatalf("nothing left: %v", err)
		}
	})
}
