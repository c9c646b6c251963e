package mia

import (
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Kind selects a per-example membership score.
type Kind int

const (
	// Confidence is the log-odds of the true label, ln(p_y/(1−p_y)), the score LiRA fits
	// Gaussians to. For binary logistic regression it is exactly the margin y·xᵀθ; for
	// ridge it is the Gaussian log-likelihood of the label, −½(xᵀθ − y)².
	Confidence Kind = iota
	// Loss is the example's data loss φ(xᵀθ; y), without the regulariser (which is the
	// same for every example).
	Loss
)

func (k Kind) String() string {
	if k == Loss {
		return "loss"
	}
	return "confidence"
}

// ParseKind reads "confidence" or "loss".
func ParseKind(s string) (Kind, error) {
	switch s {
	case "confidence", "":
		return Confidence, nil
	case "loss":
		return Loss, nil
	}
	return 0, fmt.Errorf("unknown score %s; want confidence or loss", clip.Quote(s))
}

// Scores sets dst[i][k] to the score of example k of ds under model i (row i of models).
// dst must be (number of models) × (number of examples). The margins of every model on
// every example come from one matrix product, and the scores are filled in place: no
// allocation per model or example.
func Scores(dst *mat.Dense, kind Kind, loss reference.Loss, models mat.Matrix, ds *reference.Dataset) {
	m, d := models.Dims()
	n := ds.Len()
	if r, c := dst.Dims(); r != m || c != n || d != ds.Dim() {
		panic(fmt.Sprintf("mia: scores of %d models of dimension %d on %d examples of dimension %d into %d×%d", m, d, n, ds.Dim(), r, c))
	}
	var raw blas64.General
	if rm, ok := models.(mat.RawMatrixer); ok {
		raw = rm.RawMatrix()
	} else {
		raw = mat.DenseCopyOf(models).RawMatrix()
	}
	out := dst.RawMatrix()
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, raw, ds.Features().RawMatrix(), 0, out)
	_, ridge := loss.(reference.Ridge)
	y := ds.Labels()
	for i := range m {
		row := out.Data[i*out.Stride : i*out.Stride+n]
		for k, u := range row {
			row[k] = score(kind, ridge, u, y[k])
		}
	}
}

// score is the score of one example with margin u = xᵀθ and label y.
func score(kind Kind, ridge bool, u, y float64) float64 {
	if ridge {
		r := u - y
		if kind == Loss {
			return r * r / 2
		}
		return -r * r / 2
	}
	t := y * u
	if kind == Loss {
		if t > 0 {
			return math.Log1p(fexp.Exp(-t))
		}
		return -t + math.Log1p(fexp.Exp(t))
	}
	return t
}

// ScoreModel is Scores for one model: dst[k] is the score of example k.
func ScoreModel(dst []float64, kind Kind, loss reference.Loss, theta []float64, ds *reference.Dataset) {
	Scores(mat.NewDense(1, len(dst), dst), kind, loss, mat.NewDense(1, len(theta), theta), ds)
}

// Calibrate subtracts from each example's score its mean score under reference models
// (the per-example difficulty calibration of Watson et al. 2022): dst[i][k] −= mean_j
// ref[j][k]. Easy examples score high under every model; calibration removes that, so a
// threshold compares examples on how much more a model fits them than others do.
func Calibrate(dst, ref *mat.Dense) {
	m, n := dst.Dims()
	rm, rn := ref.Dims()
	if rn != n || rm == 0 {
		panic(fmt.Sprintf("mia: calibrating %d examples with %d reference models of %d examples", n, rm, rn))
	}
	for k := range n {
		var mean float64
		for j := range rm {
			mean += ref.At(j, k)
		}
		mean /= float64(rm)
		for i := range m {
			dst.Set(i, k, dst.At(i, k)-mean)
		}
	}
}

// DifferenceScores is the model-difference attack on one deletion (Chen et al. 2021,
// "When machine unlearning jeopardizes privacy"): an observer of the models before and
// after a deletion scores every candidate record by how much the model's confidence in it
// dropped, dst[k] = s(x_k; before) − s(x_k; after). The deleted record should score
// highest; the attack's AUC over trials measures how well the pair reveals it.
func DifferenceScores(dst []float64, kind Kind, loss reference.Loss, before, after []float64, candidates *reference.Dataset) {
	b := make([]float64, len(dst))
	ScoreModel(b, kind, loss, before, candidates)
	ScoreModel(dst, kind, loss, after, candidates)
	sign := 1.0
	if kind == Loss {
		sign = -1 // a loss rises where confidence drops
	}
	for k := range dst {
		dst[k] = sign * (b[k] - dst[k])
	}
}
