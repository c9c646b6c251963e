package estimate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// ErrTies is returned when two points coincide (within a sample or across the two): k-NN estimators assume
// continuous laws and divide by neighbour distances.
var ErrTies = errors.New("k-NN: duplicate points in a sample (the estimator needs continuous laws)")

// knnBlock is the number of query rows whose distances to every reference row are computed
// by one matrix product (256 × 10 000 doubles = 20 MB at most).
const knnBlock = 256

// kthDistances sets dst[i·k : (i+1)·k] to the squared distances from row i of q to its k
// nearest rows of ref, ascending (ref == q excludes the row itself). Distances come from
// ‖x‖² + ‖y‖² − 2xᵀy, a BLAS matrix product per block of query rows; the k smallest per
// row are kept in a small sorted buffer, so nothing is allocated per row. self says that
// q and ref are the same sample, whose row i must not count as its own neighbour.
func kthDistances(dst []float64, q, ref *mat.Dense, k int, self bool) {
	nq, d := q.Dims()
	nr, _ := ref.Dims()
	if d == 1 && nr > 64 {
		kthDistancesLine(dst, q, ref, k, self)
		return
	}
	if d <= directDims {
		kthDistancesDirect(dst, q, ref, k, self)
		return
	}
	qn, rn := rowNorms2(q), rowNorms2(ref)
	if self {
		rn = qn
	}
	prod := mat.NewDense(min(knnBlock, nq), nr, nil)
	best := make([]float64, k)
	qr, rr := q.RawMatrix(), ref.RawMatrix()
	for lo := 0; lo < nq; lo += knnBlock {
		hi := min(lo+knnBlock, nq)
		blk := blas64.General{Rows: hi - lo, Cols: d, Stride: qr.Stride, Data: qr.Data[lo*qr.Stride:]}
		out := prod.RawMatrix()
		out.Rows = hi - lo
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, blk, rr, 0, out)
		for i := lo; i < hi; i++ {
			for t := range best {
				best[t] = math.Inf(1)
			}
			row := out.Data[(i-lo)*out.Stride : (i-lo)*out.Stride+nr]
			for j, g := range row {
				if self && j == i {
					continue
				}
				keepSmallest(best, qn[i]+rn[j]-2*g)
			}
			for t, v := range best {
				dst[i*k+t] = math.Max(0, v)
			}
		}
	}
}

// directDims is the dimension up to which distances are summed directly: a matrix
// product per block costs more than it saves when each distance is a few multiplications.
const directDims = 8

// kthDistancesDirect is kthDistances by direct summation, for low dimension.
func kthDistancesDirect(dst []float64, q, ref *mat.Dense, k int, self bool) {
	nq, d := q.Dims()
	nr, _ := ref.Dims()
	best := make([]float64, k)
	qr, rr := q.RawMatrix(), ref.RawMatrix()
	for i := range nq {
		for t := range best {
			best[t] = math.Inf(1)
		}
		x := qr.Data[i*qr.Stride : i*qr.Stride+d]
		for j := range nr {
			if self && j == i {
				continue
			}
			y := rr.Data[j*rr.Stride : j*rr.Stride+d]
			var d2 float64
			for c, v := range x {
				diff := v - y[c]
				d2 += diff * diff
			}
			keepSmallest(best, d2)
		}
		copy(dst[i*k:(i+1)*k], best)
	}
}

// kthDistancesLine is kthDistancesDirect for one dimension, in O((nq + nr)·log nr + nq·k)
// instead of O(nq·nr): the reference points sorted, each query's k nearest are taken
// walking outwards from its place. The distances are the same floats, (x − y)², and the
// same multiset of the k smallest (rounding keeps x − y monotone in y), so the result is
// bit for bit kthDistancesDirect's; with self, query i skips reference point i by index.
func kthDistancesLine(dst []float64, q, ref *mat.Dense, k int, self bool) {
	nq, _ := q.Dims()
	nr, _ := ref.Dims()
	qr, rr := q.RawMatrix(), ref.RawMatrix()
	order := make([]int, nr)
	for j := range order {
		order[j] = j
	}
	val := func(j int) float64 { return rr.Data[j*rr.Stride] }
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(val(a), val(b)) })
	ys := make([]float64, nr)
	for t, j := range order {
		ys[t] = val(j)
	}
	for i := range nq {
		x := qr.Data[i*qr.Stride]
		hi, _ := slices.BinarySearch(ys, x) // ys[hi-1] < x ≤ ys[hi]
		lo := hi - 1
		for t := range k {
			// skip the query itself, by index
			for self && lo >= 0 && order[lo] == i {
				lo--
			}
			for self && hi < nr && order[hi] == i {
				hi++
			}
			dl, dr := math.Inf(1), math.Inf(1)
			if lo >= 0 {
				diff := x - ys[lo]
				dl = diff * diff
			}
			if hi < nr {
				diff := x - ys[hi]
				dr = diff * diff
			}
			if dl <= dr {
				dst[i*k+t] = dl
				lo--
			} else {
				dst[i*k+t] = dr
				hi++
			}
		}
	}
}

// keepSmallest inserts v into best, the ascending list of the smallest values seen so far,
// if it belongs there.
func keepSmallest(best []float64, v float64) {
	k := len(best)
	if v >= best[k-1] {
		return
	}
	t := k - 1
	for t > 0 && best[t-1] > v {
		best[t] = best[t-1]
		t--
	}
	best[t] = v
}

func rowNorms2(m *mat.Dense) []float64 {
	n, _ := m.Dims()
	out := make([]float64, n)
	for i := range n {
		row := m.RawRowView(i)
		out[i] = blas64.Dot(blas64.Vector{N: len(row), Inc: 1, Data: row}, blas64.Vector{N: len(row), Inc: 1, Data: row})
	}
	return out
}

// neighbours holds, for every row of a sample X, the squared distances to its kmax
// nearest other rows of X and to its kmax nearest rows of Y. They do not depend on α, so
// every order is estimated from one search.
type neighbours struct {
	n, m, d, kmax int
	rho2, nu2     []float64 // n×kmax, ascending per row
}

func findNeighbours(a, b *mat.Dense, kmax int) neighbours {
	n, d := a.Dims()
	m, _ := b.Dims()
	nb := neighbours{n: n, m: m, d: d, kmax: kmax, rho2: make([]float64, n*kmax), nu2: make([]float64, n*kmax)}
	kthDistances(nb.rho2, a, a, kmax, true)
	kthDistances(nb.nu2, a, b, kmax, false)
	return nb
}

// renyi is the Póczos–Schneider estimate at order α with neighbour rank k ≤ kmax.
func (nb neighbours) renyi(alpha float64, k int) (float64, error) {
	if float64(k) <= alpha-1 {
		return 0, fmt.Errorf("k-NN: k = %d must exceed α − 1 = %v", k, alpha-1)
	}
	logB := 2*lgamma(float64(k)) - lgamma(float64(k)-alpha+1) - lgamma(float64(k)+alpha-1)
	base := math.Log(float64(nb.n-1)) - math.Log(float64(nb.m))
	maxLog := math.Inf(-1)
	logs := make([]float64, nb.n)
	for i := range nb.n {
		r2, v2 := nb.rho2[i*nb.kmax+k-1], nb.nu2[i*nb.kmax+k-1]
		if r2 == 0 || v2 == 0 {
			return 0, ErrTies
		}
		// (d/2)·ln(ρ²/ν²) = d·ln(ρ/ν)
		logs[i] = (1 - alpha) * (base + float64(nb.d)/2*(math.Log(r2)-math.Log(v2)))
		maxLog = math.Max(maxLog, logs[i])
	}
	var s float64
	for _, l := range logs {
		s += fexp.Exp(l - maxLog)
	}
	return (maxLog + math.Log(s) - math.Log(float64(nb.n)) + logB) / (alpha - 1), nil
}

// RenyiKNN is the Póczos–Schneider (AISTATS 2011) k-nearest-neighbour estimator of
// D_α(P‖Q) from X ~ P (rows of a, n of them) and Y ~ Q (rows of b, m of them):
//
//	Î_α = (1/n) Σ_i [ (n−1)·ρ_k(i)^d / (m·ν_k(i)^d) ]^{1−α} · B_{k,α},
//	B_{k,α} = Γ(k)² / (Γ(k−α+1)·Γ(k+α−1)),   D̂_α = ln Î_α / (α−1),
//
// ρ_k(i) the distance from X_i to its k-th nearest neighbour among the other X, ν_k(i) to
// its k-th nearest Y. It needs k > α − 1. The sum is taken in log space (log-sum-exp),
// since d·(1−α) makes the terms overflow. It is consistent for smooth bounded densities
// and makes no Gaussian assumption; its bias grows quickly with the dimension and with α.
func RenyiKNN(alpha float64, k int, a, b *mat.Dense) (float64, error) {
	n, _ := a.Dims()
	m, _ := b.Dims()
	if n <= k || m < k {
		return 0, fmt.Errorf("k-NN: %d and %d samples for k = %d", n, m, k)
	}
	return findNeighbours(a, b, k).renyi(alpha, k)
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// KNN estimates D_α(A‖B) with RenyiKNN, with an interval from half-sampling: the
// estimator is recomputed on random halves of each sample drawn without replacement
// (bootstrap resampling would create duplicate points, which k-NN cannot handle), and the
// spread of those estimates — which for a half drawn without replacement matches the
// sampling variance of the full estimate (Efron 1982, half-sampling) — gives a normal
// interval around the full estimate. No bias correction is applied: the half-samples are
// more biased than the full sample.
func KNN(a, b mat.Matrix, opt Options) (Estimate, error) {
	es, err := KNNOrders(a, b, []float64{opt.withDefaults(true).Alpha}, opt)
	if err != nil {
		return Estimate{}, err
	}
	return es[0], nil
}

// KNNOrders is KNN at several orders from one neighbour search per (half-)sample
// (opt.Alpha is ignored; opt.K, when set, is used for every order).
func KNNOrders(a, b mat.Matrix, alphas []float64, opt Options) ([]Estimate, error) {
	ks, err := opt.orders("knn", alphas, true)
	if err != nil {
		return nil, err
	}
	kmax := slices.Max(ks)
	opt = opt.withDefaults(true)
	if err := checkShapes("knn", a, b, 2*kmax+2); err != nil {
		return nil, err
	}
	da, db := dense(a), dense(b)
	full := findNeighbours(da, db, kmax)
	plug := make([]float64, len(alphas))
	for i, al := range alphas {
		v, err := full.renyi(al, ks[i])
		if err != nil {
			return nil, err
		}
		plug[i] = v
	}
	na, d := da.Dims()
	nb, _ := db.Dims()
	r := opt.rand("knn")
	ha, hb := mat.NewDense(na/2, d, nil), mat.NewDense(nb/2, d, nil)
	reps := make([][]float64, len(alphas))
	for i := range reps {
		reps[i] = make([]float64, opt.Reps)
	}
	for k := range opt.Reps {
		fillHalf(ha, da, r)
		fillHalf(hb, db, r)
		half := findNeighbours(ha, hb, kmax)
		for i, al := range alphas {
			v, err := half.renyi(al, ks[i])
			if err != nil {
				return nil, err
			}
			reps[i][k] = v
		}
	}
	z := normalQuantile(1 - (1-opt.Confidence)/2)
	out := make([]Estimate, len(alphas))
	for i := range alphas {
		_, v := univariate(reps[i])
		sd := math.Sqrt(v * float64(opt.Reps) / float64(opt.Reps-1))
		out[i] = Estimate{Value: math.Max(0, plug[i]), PlugIn: plug[i], SE: sd, Reps: opt.Reps,
			Interval: Interval{Lower: math.Max(0, plug[i]-z*sd), Upper: math.Max(0, plug[i]+z*sd)}}
	}
	return out, nil
}

func dense(m mat.Matrix) *mat.Dense {
	if d, ok := m.(*mat.Dense); ok {
		return d
	}
	return mat.DenseCopyOf(m)
}

// fillHalf copies a uniformly random subset of the rows of src, without replacement, into dst.
func fillHalf(dst, src *mat.Dense, r *rand.Rand) {
	h, _ := dst.Dims()
	n, _ := src.Dims()
	perm := r.Perm(n)
	for i := range h {
		copy(dst.RawRowView(i), src.RawRowView(perm[i]))
	}
}
