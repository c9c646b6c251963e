package reference_test

import (
	"fmt"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

func ExampleDataset_Without() {
	ds, _ := reference.ParseCSV(strings.NewReader("1,0,1\n0,1,-1\n1,1,1\n"), "toy.csv", reference.CSVOptions{LabelColumn: -1})
	next, _ := ds.Without(1) // record IDs are row numbers of the file
	fmt.Println(next.Len(), next.IDs())
	_, err := next.Without(1)
	fmt.Println(err)
	// Output:
	// 2 [0 2]
	// delete: record ID 1 was already deleted: unknown record ID
}

func ExampleLogistic_Constants() {
	ds, _ := reference.ParseCSV(strings.NewReader("0.6,0.8,1\n1,0,-1\n"), "toy.csv", reference.CSVOptions{LabelColumn: -1})
	loss := reference.Logistic{Lambda: 0.1}
	paper := loss.Constants(ds, 5)      // ‖x‖max + λR, ‖x‖²max/4 + λ, λ
	exact := loss.TightConstants(ds, 5) // exact sup of ‖∇f_z‖ on the ball
	fmt.Printf("L = %.4f (paper) ≥ %.4f (exact); M = %.2f; m = %.2f\n", paper.Lipschitz, exact.Lipschitz, paper.Smoothness, paper.StrongConvexity)
	// Output: L = 1.5000 (paper) ≥ 1.4933 (exact); M = 0.35; m = 0.10
}

func ExampleStreams() {
	trial := reference.Streams{Seed: 42, Trial: 7}
	a := trial.Rand("publish").Float64()
	b := trial.Rand("publish").Float64() // same purpose: same numbers
	c := trial.Rand("batches").Float64() // another purpose: independent
	fmt.Println(a == b, a == c)
	// Output: true false
}

func ExampleNewSparseDataset() {
	// two rows of a 60,000-feature text set, two non-zeros each
	x := &reference.CSR{Rows: 2, Cols: 60000, Indptr: []int{0, 2, 4},
		Indices: []int32{0, 59999, 1, 59999}, Values: []float64{0.5, 0.25, 1, 0.25}}
	ds, err := reference.NewSparseDataset([]int64{10, 11}, x, []float64{1, -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	obj := reference.Logistic{Lambda: 0.1}.Objective(ds)
	g := make([]float64, ds.Dim())
	obj.Gradient(g, make([]float64, ds.Dim())) // one pass over the 4 non-zeros
	fmt.Println(ds.IsSparse(), ds.Sparse().NNZ(), g[0], g[1], g[59999])
	// Output: true 4 -0.125 0.25 0
}

func ExampleLimits_CheckValues() {
	err := reference.Limits{}.CheckValues("dense features", 256, 1<<20)
	fmt.Println(err)
	// Output: dense features: 256 × 1048576 values exceed the cap of 134217728 (reference.MaxValues, 1.07 GB of float64; raise it with --max-values)
}
