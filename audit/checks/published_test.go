package checks

import (
	"fmt"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// The membership check scores the trials' models a block at a time (publishedBlocks); the
// scores must be the bits of scoring the whole stack (publishedModels), as before blocks.
// Past 64 features gonum's product splits its sums only on its parallel path, so a block
// that took the serial path (too few rows: blockRows = 100 fails here at d = 130) would
// round differently. The trial counts straddle 2·blockRows, where blocking starts.
func TestPublishedBlocksScoreAsTheWholeStack(t *testing.T) {
	for _, d := range []int{21, 130} {
		for _, n := range []int{300, 2*blockRows - 1, 2 * blockRows, 2*blockRows + 1, 3*blockRows + 77} {
			t.Run(fmt.Sprintf("d=%d/trials=%d", d, n), func(t *testing.T) {
				ds, err := reference.SyntheticClassification(3, d, 1)
				if err != nil {
					t.Fatal(err)
				}
				r := reference.Stream(1, n, "published-blocks")
				results := make([]trials.TrialResult, n)
				for i := range results {
					u, v := make([]float64, d), make([]float64, d)
					reference.FillNormal(u, 1, r)
					reference.FillNormal(v, 1, r)
					results[i] = trials.TrialResult{Index: i, Unlearned: reference.Release{Published: u}, Retrained: reference.Release{Published: v}}
				}
				loss := reference.Logistic{Lambda: 0.01}
				unl, ret, err := publishedModels(results, d)
				if err != nil {
					t.Fatal(err)
				}
				wantU, wantR := mat.NewDense(n, 3, nil), mat.NewDense(n, 3, nil)
				mia.Scores(wantU, mia.Confidence, loss, unl, ds)
				mia.Scores(wantR, mia.Confidence, loss, ret, ds)
				gotU, gotR := mat.NewDense(n, 3, nil), mat.NewDense(n, 3, nil)
				next, smallest := 0, n
				err = publishedBlocks(results, d, func(i0 int, u, v *mat.Dense) {
					rows, _ := u.Dims()
					if i0 != next {
						t.Fatalf("block at row %d after rows up to %d", i0, next)
					}
					next, smallest = i0+rows, min(smallest, rows)
					mia.Scores(gotU.Slice(i0, i0+rows, 0, 3).(*mat.Dense), mia.Confidence, loss, u, ds)
					mia.Scores(gotR.Slice(i0, i0+rows, 0, 3).(*mat.Dense), mia.Confidence, loss, v, ds)
				})
				if err != nil {
					t.Fatal(err)
				}
				if next != n || n >= 2*blockRows && smallest < blockRows {
					t.Fatalf("blocks covered %d of %d rows, the smallest %d", next, n, smallest)
				}
				for i := range n {
					for j := range 3 {
						if g, w := gotU.At(i, j), wantU.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("unlearned score (%d, %d) = %v, whole stack %v", i, j, g, w)
						}
						if g, w := gotR.At(i, j), wantR.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("retrained score (%d, %d) = %v, whole stack %v", i, j, g, w)
						}
					}
				}
			})
		}
	}
}

// A trial of the wrong width is refused by name, as publishedModels refuses it.
func TestPublishedBlocksNamesTheBadTrial(t *testing.T) {
	results := make([]trials.TrialResult, 2*blockRows+5)
	for i := range results {
		results[i] = trials.TrialResult{Index: i, Unlearned: reference.Release{Published: make([]float64, 4)}, Retrained: reference.Release{Published: make([]float64, 4)}}
	}
	results[blockRows+3].Retrained.Published = make([]float64, 3)
	err := publishedBlocks(results, 4, func(int, *mat.Dense, *mat.Dense) {})
	_, _, want := publishedModels(results, 4)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("publishedBlocks: %v; publishedModels: %v", err, want)
	}
}
