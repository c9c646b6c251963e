package reference

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// SyntheticClassification returns n labelled points in d dimensions for binary logistic
// regression: a fixed unit direction w, features x ~ N(0, I_d), label sign(wᵀx + noise)
// with noise ~ N(0, 0.25) (so the classes overlap a little and the logistic minimiser is
// finite), then rows scaled into the unit ball. Labels are ±1, IDs 0..n−1. The result is a
// pure function of (n, d, seed).
func SyntheticClassification(n, d int, seed uint64) (*Dataset, error) {
	if n < 2 || d < 1 {
		return nil, fmt.Errorf("synthetic classification: n=%d, d=%d; want n ≥ 2, d ≥ 1", n, d)
	}
	r := Stream(seed, 0, "synthetic/classification")
	w := make([]float64, d)
	FillNormal(w, 1, r)
	wn := mat.Norm(mat.NewVecDense(d, w), 2)
	for j := range w {
		w[j] /= wn
	}
	xs := make([]float64, n*d)
	ys := make([]float64, n)
	for i := range n {
		row := xs[i*d : (i+1)*d]
		FillNormal(row, 1, r)
		var s float64
		for j, v := range row {
			s += w[j] * v
		}
		if s+0.5*r.NormFloat64() >= 0 {
			ys[i] = 1
		} else {
			ys[i] = -1
		}
	}
	ds, err := denseDataset(xs, ys, d)
	if err != nil {
		return nil, err
	}
	return ds.ScaleToUnitBall(), nil
}

// SyntheticRegression returns n points for ridge regression: x ~ N(0, I_d) scaled into the
// unit ball, y = wᵀx + N(0, 0.1²) with a fixed w of norm 1. A pure function of (n, d, seed).
func SyntheticRegression(n, d int, seed uint64) (*Dataset, error) {
	if n < 2 || d < 1 {
		return nil, fmt.Errorf("synthetic regression: n=%d, d=%d; want n ≥ 2, d ≥ 1", n, d)
	}
	r := Stream(seed, 0, "synthetic/regression")
	w := make([]float64, d)
	FillNormal(w, 1, r)
	wn := mat.Norm(mat.NewVecDense(d, w), 2)
	xs := make([]float64, n*d)
	ys := make([]float64, n)
	scale := 1 / (math.Sqrt(float64(d)) + 3) // keeps ‖x‖ ≤ 1 with overwhelming probability
	for i := range n {
		row := xs[i*d : (i+1)*d]
		FillNormal(row, scale, r)
		var nrm, s float64
		for j, v := range row {
			nrm += v * v
			s += w[j] / wn * v
		}
		if nrm > 1 {
			nrm = math.Sqrt(nrm)
			for j := range row {
				row[j] /= nrm
			}
			s /= nrm
		}
		ys[i] = s + 0.1*r.NormFloat64()
	}
	return denseDataset(xs, ys, d)
}

// RandomUnitRows returns rows drawn uniformly on the unit sphere, for tests and benchmarks.
func RandomUnitRows(n, d int, r *rand.Rand) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		row := x.RawRowView(i)
		FillNormal(row, 1, r)
		nrm := mat.Norm(mat.NewVecDense(d, row), 2)
		for j := range row {
			row[j] /= nrm
		}
	}
	return x
}
