package d2d

import (
	"fmt"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// descendRows stops computing once the iterates cycle; its result must be the full run's
// to the bit. Each case runs both on a small bootstrap-like batch (repeated rows) of
// dense or sparse data, logistic or ridge, with step sizes up to 2/(M+m) and radii that
// make the projection bind or not, for step counts short of, around and far past the
// cycle. The cases must reach cycles of several lengths, or the shortcut went untested.
func TestDescendRowsSkipsOnlyRepeats(t *testing.T) {
	cycled, periods := 0, map[int]bool{}
	for c := range 240 {
		r := reference.Stream(uint64(c), 0, "d2d/descend-test")
		n, d := 4+r.IntN(60), 1+r.IntN(24)
		ds, err := reference.SyntheticClassification(n, d, uint64(c))
		if err != nil {
			t.Fatal(err)
		}
		if c%4 == 3 { // the sparse path of BatchGradient
			ds = sparseCopy(t, ds)
		}
		var loss reference.Loss = reference.Logistic{Lambda: []float64{0.01, 0.05, 0.1, 1}[c%4]}
		if c%3 == 2 {
			loss = reference.Ridge{Lambda: []float64{0.01, 0.05, 0.1, 1}[c%4]}
		}
		radius := []float64{0.05, 1, 10}[c%3]
		k := loss.Constants(ds, radius)
		eta := 2 / (k.Smoothness + k.StrongConvexity) * (0.25 + 0.75*r.Float64())
		rows := make([]int, 1+r.IntN(2*n))
		for i := range rows {
			rows[i] = r.IntN(n)
		}
		steps := []int{1, 2, 3, 7, 40, 300, 1000 + r.IntN(3000)}[c%7]
		start := make([]float64, d)
		if c%2 == 1 {
			reference.FillNormal(start, 1, r)
			reference.ProjectBall(start, radius)
		}
		obj := loss.Objective(ds)
		want, grad := append([]float64(nil), start...), make([]float64, d)
		visited := map[string]int{}
		period := 0
		for s := range steps {
			descendStep(obj, want, grad, eta, radius, rows)
			key := fmt.Sprint(bitsOf(want))
			if p, ok := visited[key]; ok && period == 0 && s < steps-1 {
				period = s - p
			}
			visited[key] = s
		}
		got := append([]float64(nil), start...)
		descendRows(obj, got, grad, make([]float64, d), eta, radius, steps, rows)
		if !sameBits(got, want) {
			t.Fatalf("case %d (n=%d d=%d %s η=%v R=%v, %d rows, %d steps): %v, the full run %v", c, n, d, loss.Name(), eta, radius, len(rows), steps, got, want)
		}
		if period > 0 {
			cycled++
			periods[period] = true
		}
	}
	if cycled < 20 || len(periods) < 3 {
		t.Fatalf("%d cases cycled, with %d distinct periods; want at least 20 and 3 for the shortcut to be exercised", cycled, len(periods))
	}
	t.Logf("%d of 240 cases cycled before their last step; periods %v", cycled, periods)
}

func bitsOf(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = math.Float64bits(x)
	}
	return out
}

// sparseCopy is ds with its features held in CSR form.
func sparseCopy(t *testing.T, ds *reference.Dataset) *reference.Dataset {
	t.Helper()
	n, d := ds.Dims()
	x := &reference.CSR{Rows: n, Cols: d, Indptr: []int{0}}
	for i := range n {
		for j, v := range ds.Row(i) {
			if v != 0 && (i+j)%3 != 0 { // some zeros, so rows differ in their pattern
				x.Indices, x.Values = append(x.Indices, int32(j)), append(x.Values, v)
			}
		}
		x.Indptr = append(x.Indptr, len(x.Values))
	}
	sp, err := reference.NewSparseDataset(ds.IDs(), x, ds.Labels())
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
