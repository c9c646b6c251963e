package mia

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// SVCOptions configure FitSVC: a C-support-vector classifier with the RBF kernel
// K(x, z) = exp(−γ‖x − z‖²), scikit-learn's SVC(kernel="rbf") by default.
type SVCOptions struct {
	// C is the box constraint (0: 1, scikit-learn's default).
	C float64
	// Gamma is the kernel width γ; 0 means scikit-learn's "scale": 1/(features·Var(X)),
	// the variance over every entry of the training matrix.
	Gamma float64
	// Tol stops the solver when the largest KKT violation pair is below it (0: 1e-3, as
	// scikit-learn).
	Tol float64
	// MaxIter caps the SMO iterations (0: 10⁷).
	MaxIter int
}

// SVC is a fitted RBF-kernel support-vector classifier: the support vectors with their
// coefficients α_i·y_i, and the offset.
type SVC struct {
	Gamma float64
	sv    [][]float64
	coef  []float64 // α_i·y_i
	rho   float64
	// Iterations is how many SMO steps the fit took; Objective the dual objective
	// ½αᵀQα − Σα at the end.
	Iterations int
	Objective  float64
}

// FitSVC trains the classifier on rows x with labels pos (true: class +1) by sequential
// minimal optimisation with second-order working-set selection (Fan, Chen and Lin, JMLR
// 2005: the algorithm of LIBSVM, which scikit-learn's SVC wraps), on the full kernel
// matrix — n² values, so keep n to a few thousand. The offset is LIBSVM's: the mean of
// y_i·∇_i over the free support vectors (the midpoint of the bounds when none is free).
func FitSVC(ctx context.Context, x [][]float64, pos []bool, opt SVCOptions) (*SVC, error) {
	n := len(x)
	switch {
	case n == 0 || len(pos) != n:
		return nil, fmt.Errorf("svc: %d rows and %d labels", n, len(pos))
	case n > 20000:
		return nil, fmt.Errorf("svc: %d rows; the full kernel matrix caps the fit at 20,000", n)
	}
	nPos := 0
	for _, p := range pos {
		if p {
			nPos++
		}
	}
	if nPos == 0 || nPos == n {
		return nil, errors.New("svc: the labels must include both classes")
	}
	C := opt.C
	if C == 0 {
		C = 1
	}
	tol := opt.Tol
	if tol == 0 {
		tol = 1e-3
	}
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = 10_000_000
	}
	gamma := opt.Gamma
	if gamma == 0 {
		dim := len(x[0])
		sum, sq := 0.0, 0.0
		for _, row := range x {
			for _, v := range row {
				sum += v
				sq += v * v
			}
		}
		cnt := float64(n * dim)
		mean := sum / cnt
		v := sq/cnt - mean*mean
		gamma = 1 / (float64(dim) * v)
		if !(v > 0) {
			gamma = 1
		}
	}
	y := make([]float64, n)
	for i, p := range pos {
		y[i] = -1
		if p {
			y[i] = 1
		}
	}
	// Q_ij = y_i y_j K(x_i, x_j), computed once
	q := make([]float64, n*n)
	for i := range n {
		q[i*n+i] = 1
		for j := i + 1; j < n; j++ {
			v := y[i] * y[j] * rbf(x[i], x[j], gamma)
			q[i*n+j], q[j*n+i] = v, v
		}
	}
	alpha := make([]float64, n)
	grad := make([]float64, n)
	for i := range grad {
		grad[i] = -1
	}
	const tau = 1e-12
	up := func(t int) bool { return (y[t] > 0 && alpha[t] < C) || (y[t] < 0 && alpha[t] > 0) }
	low := func(t int) bool { return (y[t] > 0 && alpha[t] > 0) || (y[t] < 0 && alpha[t] < C) }
	iter := 0
	for ; iter < maxIter; iter++ {
		if iter%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// working set: i maximises −y∇ over I_up; j the second-order choice over I_low
		i, gmax := -1, math.Inf(-1)
		for t := range n {
			if up(t) && -y[t]*grad[t] >= gmax {
				i, gmax = t, -y[t]*grad[t]
			}
		}
		j, gmin, best := -1, math.Inf(1), math.Inf(1)
		for t := range n {
			if !low(t) {
				continue
			}
			v := -y[t] * grad[t]
			gmin = math.Min(gmin, v)
			if i < 0 || v >= gmax {
				continue
			}
			b := gmax - v
			a := q[i*n+i] + q[t*n+t] - 2*y[i]*y[t]*q[i*n+t]
			if a <= 0 {
				a = tau
			}
			if obj := -b * b / a; obj <= best {
				j, best = t, obj
			}
		}
		if i < 0 || j < 0 || gmax-gmin < tol {
			break
		}
		// the two-variable subproblem, as LIBSVM solves it
		ai, aj := alpha[i], alpha[j]
		qi, qj := q[i*n:(i+1)*n], q[j*n:(j+1)*n]
		if y[i] != y[j] {
			quad := qi[i] + qj[j] + 2*qi[j]
			if quad <= 0 {
				quad = tau
			}
			delta := (-grad[i] - grad[j]) / quad
			diff := alpha[i] - alpha[j]
			alpha[i] += delta
			alpha[j] += delta
			if diff > 0 {
				if alpha[j] < 0 {
					alpha[j], alpha[i] = 0, diff
				}
			} else if alpha[i] < 0 {
				alpha[i], alpha[j] = 0, -diff
			}
			if diff > 0 {
				if alpha[i] > C {
					alpha[i], alpha[j] = C, C-diff
				}
			} else if alpha[j] > C {
				alpha[j], alpha[i] = C, C+diff
			}
		} else {
			quad := qi[i] + qj[j] - 2*qi[j]
			if quad <= 0 {
				quad = tau
			}
			delta := (grad[i] - grad[j]) / quad
			sum := alpha[i] + alpha[j]
			alpha[i] -= delta
			alpha[j] += delta
			if sum > C {
				if alpha[i] > C {
					alpha[i], alpha[j] = C, sum-C
				}
			} else if alpha[j] < 0 {
				alpha[j], alpha[i] = 0, sum
			}
			if sum > C {
				if alpha[j] > C {
					alpha[j], alpha[i] = C, sum-C
				}
			} else if alpha[i] < 0 {
				alpha[i], alpha[j] = 0, sum
			}
		}
		di, dj := alpha[i]-ai, alpha[j]-aj
		for t := range n {
			grad[t] += qi[t]*di + qj[t]*dj
		}
	}
	// the offset: LIBSVM's calculate_rho
	ub, lb, sum, free := math.Inf(1), math.Inf(-1), 0.0, 0
	for t := range n {
		yg := y[t] * grad[t]
		switch {
		case alpha[t] >= C:
			if y[t] < 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case alpha[t] <= 0:
			if y[t] > 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		default:
			free++
			sum += yg
		}
	}
	s := &SVC{Gamma: gamma, Iterations: iter}
	if free > 0 {
		s.rho = sum / float64(free)
	} else {
		s.rho = (ub + lb) / 2
	}
	for t := range n {
		s.Objective += alpha[t] * (grad[t] - 1) / 2 // ½αᵀQα − eᵀα with ∇ = Qα − e
		if alpha[t] > 0 {
			s.sv = append(s.sv, x[t])
			s.coef = append(s.coef, alpha[t]*y[t])
		}
	}
	return s, nil
}

func rbf(a, b []float64, gamma float64) float64 {
	d := 0.0
	for k, v := range a {
		e := v - b[k]
		d += e * e
	}
	return fexp.Exp(-gamma * d)
}

// Decision is Σ_i α_i y_i K(x_i, x) − ρ: positive on the +1 side.
func (s *SVC) Decision(x []float64) float64 {
	f := -s.rho
	for i, v := range s.sv {
		f += s.coef[i] * rbf(v, x, s.Gamma)
	}
	return f
}

// Predict is Decision(x) > 0 (scikit-learn breaks a tie of exactly 0 the same way).
func (s *SVC) Predict(x []float64) bool { return s.Decision(x) > 0 }

// SupportVectors is how many training rows have α > 0.
func (s *SVC) SupportVectors() int { return len(s.sv) }
