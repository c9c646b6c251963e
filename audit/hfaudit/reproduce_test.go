package hfaudit

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"pgregory.net/rapid"
)

// The verification's wiring: on a linear loss HF equals the paper-rule retrain, so every
// distance is rounding (1e-12 relative to the scale ‖w^{-U}_T − w_T‖) and the predicted
// loss changes are the actual ones (correlation 1 to 1e-9). A sign slip (w_T − a), a
// forget set that is not the retrain's, or a correlation against the wrong vector shows.
func TestVerificationExactOnLinearLoss(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n, p := 40, 3
	x := mat.NewDense(n, p, nil)
	y := make([]int, n)
	for i := range n {
		for j := range p {
			x.Set(i, j, r.NormFloat64())
		}
		y[i] = r.IntN(2)
	}
	data, _ := multiclass.NewData(x, y, 2)
	res, err := Verification(context.Background(), VerificationConfig{Learn: hf.Config{Model: multiclass.Linear{P: p}, Epochs: 2, BatchSize: 7, Eta: 0.1, Decay: 0.99},
		Train: data, Rates: []float64{0.05, 0.25}, Seeds: []uint64{1, 2}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 {
		t.Fatalf("%d points for one method at two rates", len(res.Points))
	}
	for _, pt := range res.Points {
		if pt.M != int(math.Round(pt.Rate*float64(n))) {
			t.Errorf("rate %v: m = %d", pt.Rate, pt.M)
		}
		for s, d := range pt.Distance {
			if !(pt.RetrainNorm[s] > 0) || d > 1e-12*pt.RetrainNorm[s] {
				t.Errorf("rate %v seed %d: distance %.3g with ‖w^{-U} − w_T‖ = %.3g", pt.Rate, s, d, pt.RetrainNorm[s])
			}
			if pt.M >= 3 && (math.Abs(pt.Pearson[s]-1) > 1e-9 || math.Abs(pt.Spearman[s]-1) > 1e-9) {
				t.Errorf("rate %v seed %d: correlations %v %v; want 1", pt.Rate, s, pt.Pearson[s], pt.Spearman[s])
			}
		}
	}
	if _, err := Verification(context.Background(), VerificationConfig{Learn: hf.Config{Model: multiclass.Linear{P: p}, Epochs: 1, BatchSize: 7, Eta: 0.1, Decay: 1},
		Train: data, Rates: []float64{1.5}, Seeds: []uint64{1}}); err == nil || !strings.Contains(err.Error(), "deletion rate 1.5") {
		t.Errorf("rate 1.5: %v", err)
	}
}

// Spearman is Pearson on ranks: without ties it equals 1 − 6Σd²/(n(n²−1)) (to 1e-12), and
// it is invariant under strictly increasing maps of either argument.
func TestSpearman(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(3, 30).Draw(t, "n")
		xs := make([]float64, n)
		ys := make([]float64, n)
		px := rapid.Permutation(seq(n)).Draw(t, "x ranks")
		py := rapid.Permutation(seq(n)).Draw(t, "y ranks")
		d2 := 0.0
		for i := range n {
			xs[i] = math.Exp(float64(px[i])) // a strictly increasing map of the rank
			ys[i] = float64(py[i])*3 - 7
			d := float64(px[i] - py[i])
			d2 += d * d
		}
		want := 1 - 6*d2/float64(n*(n*n-1))
		if got := Spearman(xs, ys); math.Abs(got-want) > 1e-12 {
			t.Fatalf("Spearman %v, formula %v", got, want)
		}
	})
	// ties get the mean rank: (1, 2.5, 2.5, 4) against (1, 2, 3, 4)
	got := Spearman([]float64{0, 1, 1, 5}, []float64{1, 2, 3, 4})
	if want := stat.Correlation([]float64{1, 2.5, 2.5, 4}, []float64{1, 2, 3, 4}, nil); math.Abs(got-want) > 1e-15 {
		t.Errorf("with ties: %v, want %v", got, want)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// hf-verification end to end at a small size: the tables hold every method and rate with
// the paper's numbers beside the printed ones, the figures are written, the findings are
// there, and the same seed gives the same JSON byte for byte.
func TestReproduceVerification(t *testing.T) {
	testenv.Datasets(t)
	argv := []string{"--seeds", "42", "--rates", "5,30", "--train", "120", "--pool", "4", "--workers", "2", "--formats", "svg"}
	dir := t.TempDir()
	res, err := audittest.Reproduce(t, "hf-verification", dir, argv...)
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "hf-verification.json"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := reports.ReadReproduction(bytes.NewReader(js), "hf-verification.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Tables) != 2 {
		t.Fatalf("%d tables; want MNIST and Wine", len(tb.Tables))
	}
	papers := 0
	for _, table := range tb.Tables {
		if len(table.Rows) != 6 || len(table.Findings) != 2 {
			t.Errorf("%s: %d rows, %d findings; want 3 methods × 2 rates and 2 findings", table.Name, len(table.Rows), len(table.Findings))
		}
		for _, row := range table.Rows {
			for _, c := range row.Cells {
				if c.Paper != "" {
					papers++
				}
			}
		}
	}
	// MNIST at 30 %: HF's distance, Pearson and Spearman, NS's and IJ's distances; Wine at
	// 5 %: the three distances
	if papers != 8 {
		t.Errorf("%d cells carry the paper's value; want 8", papers)
	}
	for _, f := range []string{"hf-verification-mnist-distance.svg", "hf-verification-wine-spearman.svg", "hf-verification.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	again, err := audittest.Reproduce(t, "hf-verification", t.TempDir(), argv...)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.JSON, again.JSON) {
		t.Error("the same seed gave different JSON")
	}
	if _, err := audittest.Reproduce(t, "hf-verification", t.TempDir(), "--rates", "0"); err == nil || !strings.Contains(err.Error(), "--rates") {
		t.Errorf("--rates 0: %v", err)
	}
}
