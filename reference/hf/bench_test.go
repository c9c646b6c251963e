package hf

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/mat"
)

// benchProblem is MNIST-shaped softmax (d = 7850) on n synthetic rows.
func benchProblem(b *testing.B, n int) (*multiclass.Data, Config) {
	r := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(n, 784, nil)
	y := make([]int, n)
	for i := range n {
		y[i] = r.IntN(10)
		for j := range 784 {
			x.Set(i, j, r.Float64()/28)
		}
	}
	data, err := multiclass.NewData(x, y, 10)
	if err != nil {
		b.Fatal(err)
	}
	return data, Config{Model: multiclass.Softmax{K: 10, P: 784, Lambda: 0.5}, Epochs: 2, BatchSize: 32, Eta: 0.05, Decay: 0.995}
}

// One deletion at d = 7850 is a vector addition: microseconds, no allocation once the
// statistic is stored. Each iteration deletes one record from a fresh unlearner holding
// one statistic (the setup is outside the timer).
func BenchmarkDelete(b *testing.B) {
	d := multiclass.Softmax{K: 10, P: 784}.Dim()
	tr := &Trajectory{Final: make([]float64, d)}
	a := make([]float64, d)
	for j := range a {
		a[j] = float64(j) * 1e-6
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		u := NewUnlearner(tr, &Stats{index: map[int]int{0: 0}, vecs: [][]float64{a}})
		b.StartTimer()
		if err := u.Delete(0); err != nil {
			b.Fatal(err)
		}
	}
}

// Stage II for m statistics against Stage I, measured in the same run: "stage-I" is the
// ratio of one Statistics call to one Learn on the same data (n = 256, two epochs of 32,
// m = 16 records), about m·(HVP cost)/(gradient cost) when every record starts early.
func BenchmarkStageII(b *testing.B) {
	data, c := benchProblem(b, 256)
	ctx := context.Background()
	var tr *Trajectory
	learn := time.Duration(1 << 62)
	for range 3 { // the floor: best of three
		start := time.Now()
		var err error
		if tr, err = Learn(ctx, c, data, make([]float64, c.Model.Dim()), rand.New(rand.NewPCG(3, 4))); err != nil {
			b.Fatal(err)
		}
		learn = min(learn, time.Since(start))
	}
	rows := make([]int, 16)
	for i := range rows {
		rows[i] = i * 16
	}
	for b.Loop() {
		if _, err := tr.Statistics(ctx, data, rows, PaperOrder); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(learn), "stage-I")
}
