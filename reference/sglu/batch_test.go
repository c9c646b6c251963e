package sglu

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"pgregory.net/rapid"
)

// A batch request replaces every record in its slot, runs K epochs once, and reports where
// the records sat; a bad request (unknown or repeated ID, or one that would empty a batch
// under deletion) is refused before anything changes.
func TestUnlearnBatch(t *testing.T) {
	ctx := context.Background()
	ds := unitData(t, 32, 3, 7)
	p, loss := testParams(32, 8, 0.05, 0.1, 3)
	m, err := Learn(ctx, p, loss, ds, reference.Stream(7, 0, "learn"))
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{ds.ID(1), ds.ID(9), ds.ID(30)}
	place, err := m.Placement(ids)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, bc := range place {
		total += bc.Count
	}
	if total != 3 {
		t.Fatalf("placement %v counts %d records, want 3", place, total)
	}
	before := m.Published()
	for _, bad := range [][]int64{{ids[0], 1 << 40}, {ids[0], ids[0]}} {
		if _, err := m.UnlearnBatch(ctx, bad, 1, reference.Stream(7, 1, "u")); err == nil {
			t.Fatalf("request %v accepted", bad)
		}
		if !m.Ordered().Has(ids[0]) || !slices.Equal(before, m.Published()) || m.EpochsRun() != 3 {
			t.Fatalf("refused request %v changed the model", bad)
		}
	}
	if _, err := m.UnlearnBatch(ctx, []int64{1 << 40}, 1, reference.Stream(7, 1, "u")); !errors.Is(err, reference.ErrUnknownID) {
		t.Fatalf("unknown ID: %v", err)
	}
	slots := make([]int, len(ids))
	for i, id := range ids {
		slots[i], _ = m.BatchOf(id)
	}
	recs, err := m.UnlearnBatch(ctx, ids, 2, reference.Stream(7, 1, "u"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || m.EpochsRun() != 5 || m.GradientEvaluations() != 5*32 {
		t.Fatalf("%d replacements, %d epochs, %d gradients; want 3, 5, 160", len(recs), m.EpochsRun(), m.GradientEvaluations())
	}
	for i, rec := range recs {
		if j, ok := m.BatchOf(rec.ID); !ok || j != slots[i] || m.Ordered().Has(ids[i]) {
			t.Fatalf("replacement %d in batch %d (ok %v), the removed record was in %d", rec.ID, j, ok, slots[i])
		}
	}

	// Under deletion a request may not empty a batch: the eight records of batch 0.
	p.Removal = DeleteRemoval
	d, _ := LearnOrdered(ctx, p, loss, ds, reference.Stream(7, 2, "learn"))
	if _, err := d.UnlearnBatch(ctx, d.Ordered().IDs()[:8], 1, reference.Stream(7, 3, "u")); err == nil || d.Ordered().Len() != 32 {
		t.Fatalf("emptying batch 0: err %v, %d records left", err, d.Ordered().Len())
	}
	if _, err := d.UnlearnBatch(ctx, d.Ordered().IDs()[:7], 1, reference.Stream(7, 3, "u")); err != nil || d.Ordered().Len() != 25 {
		t.Fatalf("deleting 7 of batch 0: err %v, %d records left", err, d.Ordered().Len())
	}
}

// Serving S records as one batch request is the same computation as replacing them one by
// one and then running the K epochs: same noise, same model, bit for bit.
func TestUnlearnBatchEqualsReplacements(t *testing.T) {
	ctx := context.Background()
	ds := unitData(t, 24, 2, 8)
	p, loss := testParams(24, 6, 0.1, 0.2, 2)
	a, _ := LearnOrdered(ctx, p, loss, ds, reference.Stream(8, 0, "learn"))
	b, _ := LearnOrdered(ctx, p, loss, ds, reference.Stream(8, 0, "learn"))
	ids := []int64{ds.ID(3), ds.ID(23)}
	ra := reference.Stream(8, 1, "u")
	recs, err := a.UnlearnBatch(ctx, ids, 3, ra)
	if err != nil {
		t.Fatal(err)
	}
	rb := reference.Stream(8, 1, "u")
	for _, id := range ids {
		if _, err := b.Remove(id, rb); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Epochs(ctx, 3, rb); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Published(), b.Published()) || !slices.Equal(a.Ordered().IDs(), b.Ordered().IDs()) || len(recs) != 2 {
		t.Fatal("a batch request differs from its replacements followed by the epochs")
	}
}

// Z_S for one record in the last batch is Z_B; in general ZBatch ≤ ZBatchWorstCase(S) ≤
// min(S·Z_B, 2R); a placement with more records in a batch than it holds is refused.
func TestZBatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nb := rapid.IntRange(1, 8).Draw(t, "batches")
		b := rapid.IntRange(1, 16).Draw(t, "b")
		L := 0.1 + float64(rapid.IntRange(0, 100).Draw(t, "L"))/10
		p := Problem{Smoothness: L, Lipschitz: 1, StrongConvexity: L * float64(rapid.IntRange(1, 100).Draw(t, "u")) / 100,
			StepSize: 1 / L, N: nb * b, Batch: b, Radius: math.Inf(1)}
		if rapid.Bool().Draw(t, "capped") {
			p.Radius = float64(rapid.IntRange(1, 100).Draw(t, "R")) / 10
		}
		zb := p.ZB()
		if got := p.ZBatchWorstCase(1); math.Abs(got-zb) > 1e-12*zb {
			t.Fatalf("Z_S for S = 1 is %v, Z_B %v", got, zb)
		}
		S := rapid.IntRange(1, nb*b).Draw(t, "S")
		w := p.ZBatchWorstCase(S)
		if w > math.Min(float64(S)*zb, 2*p.Radius)*(1+1e-12) {
			t.Fatalf("Z_S = %v > min(S·Z_B, 2R) = %v", w, math.Min(float64(S)*zb, 2*p.Radius))
		}
		j := rapid.IntRange(0, nb-1).Draw(t, "j")
		cnt := rapid.IntRange(1, min(b, S)).Draw(t, "count")
		some, err := p.ZBatch([]BatchCount{{J: j, Count: cnt}})
		if err != nil || some > p.ZBatchWorstCase(cnt)*(1+1e-12) {
			t.Fatalf("%d records in batch %d: Z = %v (%v), worst case %v", cnt, j, some, err, p.ZBatchWorstCase(cnt))
		}
		if _, err := p.ZBatch([]BatchCount{{J: j, Count: b}, {J: j, Count: 1}}); err == nil {
			t.Fatal("b + 1 records in one batch accepted")
		}
	})
}
