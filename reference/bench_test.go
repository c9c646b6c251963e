package reference_test

import (
	"fmt"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// benchData is n×d dense data on the unit sphere with ±1 labels.
func benchData(b *testing.B, n, d int) *reference.Dataset {
	b.Helper()
	r := reference.Stream(1, 0, "bench")
	x := reference.RandomUnitRows(n, d, r)
	ids := make([]int64, n)
	y := make([]float64, n)
	for i := range n {
		ids[i] = int64(i)
		y[i] = float64(2*r.IntN(2) - 1)
	}
	ds, err := reference.NewDataset(ids, x, y)
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

func BenchmarkLogistic(b *testing.B) {
	for _, n := range []int{2000, 12000} {
		ds := benchData(b, n, 784)
		obj := reference.Logistic{Lambda: 0.01}.Objective(ds)
		theta := make([]float64, 784)
		reference.FillNormal(theta, 0.1, reference.Stream(2, 0, "theta"))
		v := make([]float64, 784)
		reference.FillNormal(v, 1, reference.Stream(3, 0, "v"))
		dst := make([]float64, 784)
		// the gradient and the HVP read X once (blocked), n·d·8 bytes: MB/s is the
		// effective memory bandwidth of one evaluation
		bytes := int64(n * 784 * 8)
		b.Run(fmt.Sprintf("Gradient/%dx784", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(bytes)
			for b.Loop() {
				obj.Gradient(dst, theta)
			}
		})
		b.Run(fmt.Sprintf("HessVec/%dx784", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(bytes)
			for b.Loop() {
				obj.HessVec(dst, theta, v)
			}
		})
		rows := make([]int, 128)
		for i := range rows {
			rows[i] = (i * 97) % n
		}
		b.Run(fmt.Sprintf("BatchGradient128/%dx784", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				obj.BatchGradient(dst, theta, rows)
			}
		})
	}
}

// BenchmarkBatchGradientShortRows is the mini-batch gradient on short rows (d = 20), where
// call overhead rather than arithmetic dominates: distributed descent's partitions run it.
func BenchmarkBatchGradientShortRows(b *testing.B) {
	ds := benchData(b, 2000, 20)
	obj := reference.Logistic{Lambda: 0.01}.Objective(ds)
	theta, dst := make([]float64, 20), make([]float64, 20)
	rows := make([]int, 1000)
	for i := range rows {
		rows[i] = (i * 7) % 2000
	}
	b.ReportAllocs()
	for b.Loop() {
		obj.BatchGradient(dst, theta, rows)
	}
}

// BenchmarkGradientLayout times the gradient in both layouts of the products with X
// across the size where the data stop fitting in cache: the matrix–vector kernels win
// while X is cache-resident, row-by-row dot products once it streams from memory. The
// crossover sets reference's 16 MB threshold (StreamsFromMemory); on the machine it was
// measured on it fell between 2,000 rows (12.5 MB) and 4,000 (25 MB).
func BenchmarkGradientLayout(b *testing.B) {
	for _, n := range []int{1536, 2000, 4000, 8000, 11264} {
		ds := benchData(b, n, 784)
		obj := reference.Logistic{Lambda: 0.01}.Objective(ds)
		theta := make([]float64, 784)
		reference.FillNormal(theta, 0.1, reference.Stream(2, 0, "theta"))
		dst := make([]float64, 784)
		for _, rows := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx784/rows=%v", n, rows), func(b *testing.B) {
				obj.SetStreaming(rows)
				b.SetBytes(int64(n * 784 * 8))
				b.ReportAllocs()
				for b.Loop() {
					obj.Gradient(dst, theta)
				}
			})
		}
	}
}
