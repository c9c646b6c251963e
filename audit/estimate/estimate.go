package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/normal"
	"github.com/unlearnaudit/unlearnaudit/internal/scratch"
	"github.com/unlearnaudit/unlearnaudit/internal/streams"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Options configure an estimator.
type Options struct {
	Alpha      float64 // Rényi order; 0 means 2
	Confidence float64 // interval level; 0 means 0.95
	Reps       int     // bootstrap resamples (half-samples for k-NN); 0 means 200 (50 for k-NN)
	K          int     // k-NN: neighbour rank; 0 means max(5, ⌈α⌉ + 1)
	Seed       uint64  // seeds the resampling, so the interval is reproducible
	// Covariance is the model of the Gaussian estimators: Separate (each sample its own
	// covariance, the default) or Pooled (one covariance for both, the Gaussian-mechanism
	// model: noise of one law added to two means).
	Covariance Covariance
}

// Covariance selects the covariance model of the Gaussian estimators.
type Covariance int

const (
	// Separate fits a covariance to each sample.
	Separate Covariance = iota
	// Pooled fits one covariance to both samples, each centred at its own mean; then
	// D_α = (α/2)·Δᵀ Σ⁻¹ Δ, finite for every α.
	Pooled
)

// ParseCovariance reads "separate" or "pooled".
func ParseCovariance(s string) (Covariance, error) {
	switch s {
	case "separate", "":
		return Separate, nil
	case "pooled":
		return Pooled, nil
	}
	return 0, fmt.Errorf("unknown covariance model %s; want separate or pooled", clip.Quote(s))
}

func (o Options) withDefaults(knn bool) Options {
	if o.Alpha == 0 {
		o.Alpha = 2
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Reps == 0 {
		o.Reps = 200
		if knn {
			o.Reps = 50
		}
	}
	if o.K == 0 {
		o.K = max(5, int(math.Ceil(o.Alpha))+1)
	}
	return o
}

func (o Options) validate(method string) error {
	switch {
	case !(o.Alpha > 0) || o.Alpha == 1 || math.IsInf(o.Alpha, 0):
		return fmt.Errorf("%s: Rényi order α = %v; want α > 0, α ≠ 1", method, o.Alpha)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("%s: confidence %v; want a level in (0, 1)", method, o.Confidence)
	case o.Reps < 2:
		return fmt.Errorf("%s: %d resamples; want at least 2", method, o.Reps)
	case o.K < 1:
		return fmt.Errorf("%s: neighbour rank k = %d; want k ≥ 1 (0 chooses it)", method, o.K)
	}
	return nil
}

// orders validates the options at each Rényi order and returns each order's k-NN rank.
func (o Options) orders(method string, alphas []float64, knn bool) ([]int, error) {
	if len(alphas) == 0 {
		return nil, fmt.Errorf("%s: no Rényi orders", method)
	}
	ks := make([]int, len(alphas))
	for i, al := range alphas {
		p := o
		p.Alpha = al
		p = p.withDefaults(knn)
		if err := p.validate(method); err != nil {
			return nil, err
		}
		ks[i] = p.K
	}
	return ks, nil
}

func (o Options) rand(purpose string) *rand.Rand { return rand.New(o.source(purpose)) }

// source is rand's PCG source, for draws made from its state directly (internal/normal).
func (o Options) source(purpose string) *rand.PCG {
	return streams.Source(o.Seed, -1, "estimate/"+purpose)
}

func checkShapes(method string, a, b mat.Matrix, minRows int) error {
	na, da := a.Dims()
	nb, db := b.Dims()
	if da != db {
		return fmt.Errorf("%s: samples have %d and %d coordinates", method, da, db)
	}
	if na < minRows || nb < minRows {
		return fmt.Errorf("%s: %d and %d samples; want at least %d on each side", method, na, nb, minRows)
	}
	return nil
}

// Gauss estimates D_α(A‖B) by fitting a Ledoit–Wolf Gaussian to each sample (or one
// pooled covariance) and taking the closed form (FitGaussian, dp.RenyiGaussian). Its
// interval is a parametric bootstrap: samples of the same sizes are redrawn from the
// fitted Gaussians and refitted. (Resampling rows would duplicate points, which distorts
// the shrinkage and roughly doubles the apparent covariance-mismatch bias; redrawing keeps
// the replicates' bias close to the plug-in's, so the basic interval corrects it.) It is
// consistent when both laws are Gaussian; shrinkage biases it toward the isotropic model
// when the dimension is close to the sample count.
func Gauss(a, b mat.Matrix, opt Options) (Estimate, error) {
	es, err := GaussOrders(a, b, []float64{opt.withDefaults(false).Alpha}, opt)
	if err != nil {
		return Estimate{}, err
	}
	return es[0], nil
}

// GaussOrders is Gauss at several Rényi orders at once: the fits and bootstrap replicates,
// the expensive part, are shared (opt.Alpha is ignored).
func GaussOrders(a, b mat.Matrix, alphas []float64, opt Options) ([]Estimate, error) {
	if _, err := opt.orders("gauss", alphas, false); err != nil {
		return nil, err
	}
	opt = opt.withDefaults(false)
	if err := checkShapes("gauss", a, b, 3); err != nil {
		return nil, err
	}
	ga, gb := fitPair(a, b, opt.Covariance)
	plug := renyiOrders(alphas, ga, gb)
	na, d := a.Dims()
	nb, _ := b.Dims()
	r := opt.rand("gauss")
	sa, err := newSampler(ga)
	if err != nil {
		return nil, err
	}
	sb, err := newSampler(gb)
	if err != nil {
		return nil, err
	}
	ra, rb := mat.NewDense(na, d, nil), mat.NewDense(nb, d, nil)
	reps := make([][]float64, len(alphas))
	for k := range reps {
		reps[k] = make([]float64, opt.Reps)
	}
	var pooled *mat.Dense // the pooled fit's rows, reused by every replicate
	if opt.Covariance == Pooled {
		pooled = mat.NewDense(na+nb, d, nil)
	}
	for k := range opt.Reps {
		sa.fill(ra, r)
		sb.fill(rb, r)
		fa, fb := fitPairInto(pooled, ra, rb, opt.Covariance)
		for i, v := range renyiOrders(alphas, fa, fb) {
			reps[i][k] = v
		}
	}
	out := make([]Estimate, len(alphas))
	for i := range alphas {
		out[i] = basicInterval(plug[i], reps[i], opt.Confidence)
	}
	return out, nil
}

// fitPair fits both samples, with separate covariances or one pooled covariance.
func fitPair(a, b mat.Matrix, model Covariance) (Gaussian, Gaussian) {
	return fitPairInto(nil, a, b, model)
}

// fitPairInto is fitPair with the pooled model's (na+nb) × d rows built in buf (nil:
// allocated).
func fitPairInto(buf *mat.Dense, a, b mat.Matrix, model Covariance) (Gaussian, Gaussian) {
	if model == Separate {
		return FitGaussian(a), FitGaussian(b)
	}
	na, d := a.Dims()
	nb, _ := b.Dims()
	ma, mb := columnMeans(a), columnMeans(b)
	c := buf
	if c == nil {
		// every entry is set below, and c is not kept: its array comes from and goes back
		// to a pool (at 10⁶ trials it is a hundred megabytes of new pages otherwise)
		data := centred.Get((na + nb) * d)
		defer centred.Put(data)
		c = mat.NewDense(na+nb, d, data)
	}
	centreRows(c, 0, a, ma)
	centreRows(c, na, b, mb)
	g := fitCentring(c)
	return Gaussian{Mean: ma, Cov: g.Cov, Shrinkage: g.Shrinkage}, Gaussian{Mean: mb, Cov: g.Cov, Shrinkage: g.Shrinkage}
}

// centred keeps fitPairInto's centred rows' arrays between fits.
var centred scratch.Pool[float64]

// centreRows sets rows from, from+1, … of dst to the rows of m minus mean.
func centreRows(dst *mat.Dense, from int, m mat.Matrix, mean []float64) {
	n, d := m.Dims()
	dm, dense := m.(*mat.Dense)
	for i := range n {
		row := dst.RawRowView(from + i)
		if dense { // the same values as At's, without an interface call per entry
			for j, v := range dm.RawRowView(i) {
				row[j] = v - mean[j]
			}
			continue
		}
		for j := range d {
			row[j] = m.At(i, j) - mean[j]
		}
	}
}

// renyiOrders is D_α between two fitted Gaussians at each order. With one shared
// covariance (the Pooled model) every order is (α/2)·ΔᵀΣ⁻¹Δ, one factorisation for all.
func renyiOrders(alphas []float64, a, b Gaussian) []float64 {
	out := make([]float64, len(alphas))
	if a.Cov != b.Cov {
		for i, al := range alphas {
			out[i] = dp.RenyiGaussian(al, a.Mean, a.Cov, b.Mean, b.Cov)
		}
		return out
	}
	d := len(a.Mean)
	diff := mat.NewVecDense(d, nil)
	for j := range d {
		diff.SetVec(j, a.Mean[j]-b.Mean[j])
	}
	var chol mat.Cholesky
	var sol mat.VecDense
	q := math.Inf(1)
	if chol.Factorize(a.Cov) && chol.SolveVecTo(&sol, diff) == nil {
		q = mat.Dot(diff, &sol)
	}
	if mat.Norm(diff, 2) == 0 {
		q = 0
	}
	for i, al := range alphas {
		out[i] = al / 2 * q
	}
	return out
}

func columnMeans(m mat.Matrix) []float64 {
	n, d := m.Dims()
	out := make([]float64, d)
	if dm, ok := m.(*mat.Dense); ok { // the same sums as At's, without an interface call per entry
		for i := range n {
			for j, v := range dm.RawRowView(i) {
				out[j] += v / float64(n)
			}
		}
		return out
	}
	for i := range n {
		for j := range d {
			out[j] += m.At(i, j) / float64(n)
		}
	}
	return out
}

// sampler draws rows from a fitted Gaussian: x = μ + L z with Σ = L Lᵀ.
type sampler struct {
	mean []float64
	l    *mat.Dense // the lower Cholesky factor as a dense matrix, zeros above the diagonal
	z    *mat.Dense
}

func newSampler(g Gaussian) (*sampler, error) {
	var chol mat.Cholesky
	if !chol.Factorize(g.Cov) {
		return nil, fmt.Errorf("gauss: the fitted covariance is not positive definite (a sample with no spread?)")
	}
	var l mat.TriDense
	chol.LTo(&l)
	return &sampler{mean: g.Mean, l: mat.DenseCopyOf(&l)}, nil
}

func (s *sampler) fill(dst *mat.Dense, r *rand.Rand) {
	n, d := dst.Dims()
	if s.z == nil {
		s.z = mat.NewDense(n, d, nil)
	}
	for i, z := 0, s.z.RawMatrix().Data; i < len(z); i++ {
		z[i] = r.NormFloat64() // as reference.FillNormal at σ = 1
	}
	mulLowerT(dst, s.z, s.l)
	for i := range n {
		row := dst.RawRowView(i)
		for j := range row {
			row[j] += s.mean[j]
		}
	}
}

// mulLowerT sets dst = z·lᵀ for a lower-triangular l, with the arithmetic of gonum's
// dst.Mul(z, l.T()) to the bit but without the products by l's zero upper triangle (half
// the work of the bootstrap's sampling). gonum's Dgemm sums each entry as 0 + Σ over
// k-blocks of one assembly dot product per block (blocks of 64 when the product is split
// for its workers, else one block); here the same dot kernel (floats.Dot) runs on the same
// blocks, skipping the blocks past the diagonal and shortening the block holding it to a
// multiple of 4 entries (or its own length). Both are exact: the skipped products are ±0, and adding ±0
// changes neither the kernel's partial sums (which start at +0, so are never −0) nor the
// entry; and a multiple of 4 keeps every kept product in the kernel's same 4-way partial
// sum (the kernel adds the last len mod 4 products to its first partial sum, so a length
// that is not a multiple of 4 would move products between partial sums).
// TestMulLowerTIsGonumsProduct checks it to the bit.
func mulLowerT(dst, z, l *mat.Dense) {
	m, d := z.Dims()
	block := d
	if gemmBlocks(m)*gemmBlocks(d) >= 4 { // gonum's dgemmParallel: below 4 blocks, serial and unblocked
		block = 64
	}
	rows := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			zi, out := z.RawRowView(i), dst.RawRowView(i)
			for j := range d {
				lj := l.RawRowView(j)
				c := 0.0
				for kb := 0; kb <= j; kb += block {
					t := min(block, d-kb, (j-kb+4)&^3) // j−kb+1 entries, rounded up to a multiple of 4
					c += floats.Dot(zi[kb:kb+t], lj[kb:kb+t])
				}
				out[j] = c
			}
		}
	}
	// large products are split by rows over the cores, as gonum's Dgemm splits its blocks
	workers := min(runtime.GOMAXPROCS(0), m, 1+m*d*d/(1<<20))
	if workers <= 1 {
		rows(0, m)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { rows(w*m/workers, (w+1)*m/workers) })
	}
	wg.Wait()
}

// gemmBlocks is gonum's blocks(dim, blockSize): the 64-wide blocks covering dim.
func gemmBlocks(dim int) int { return (dim + 63) / 64 }

// Projected estimates D_α(A‖B) on one dimension: it fits the Fisher direction
// u = Σ̂⁻¹(μ̂_A − μ̂_B) (pooled Ledoit–Wolf covariance) on the first half of each sample,
// projects the second halves on u, and fits univariate Gaussians there. Fitting and
// evaluating on different halves keeps the direction from overfitting the noise.
//
// With Pooled covariance the one-dimensional fit shares one variance. The result
// estimates the divergence of the projected laws, which is at most the full
// divergence (data processing); for Gaussians with a common covariance it equals the full
// divergence when u is the true direction. It is the estimator for high dimension and few
// samples, where full covariances cannot be estimated. The interval is a parametric
// bootstrap of the one-dimensional fits, with the direction held fixed.
func Projected(a, b mat.Matrix, opt Options) (Estimate, error) {
	es, err := ProjectedOrders(a, b, []float64{opt.withDefaults(false).Alpha}, opt)
	if err != nil {
		return Estimate{}, err
	}
	return es[0], nil
}

// ProjectedAlong is Projected with the direction u given: FisherDirection(a, b), for a
// caller that has fitted it already (the same estimate, without fitting it again); nil u
// is fitted, as Projected fits it.
func ProjectedAlong(a, b mat.Matrix, u []float64, opt Options) (Estimate, error) {
	es, err := projectedOrders(a, b, u, []float64{opt.withDefaults(false).Alpha}, opt)
	if err != nil {
		return Estimate{}, err
	}
	return es[0], nil
}

// ProjectedOrders is Projected at several orders with shared replicates (opt.Alpha is
// ignored).
func ProjectedOrders(a, b mat.Matrix, alphas []float64, opt Options) ([]Estimate, error) {
	return projectedOrders(a, b, nil, alphas, opt)
}

// projectedOrders is ProjectedOrders along u, or along the direction it fits when u is nil.
func projectedOrders(a, b mat.Matrix, u []float64, alphas []float64, opt Options) ([]Estimate, error) {
	if _, err := opt.orders("projected", alphas, false); err != nil {
		return nil, err
	}
	opt = opt.withDefaults(false)
	if err := checkShapes("projected", a, b, 6); err != nil {
		return nil, err
	}
	if _, d := a.Dims(); u != nil && len(u) != d {
		return nil, fmt.Errorf("projected: a direction of %d coordinates for samples of %d", len(u), d)
	}
	if u == nil {
		u = FisherDirection(a, b)
	}
	pa, pb := heldOut(a, b, u)
	// parametric bootstrap in one dimension, for the reason given at Gauss
	ma, va := univariate(pa)
	mb, vb := univariate(pb)
	// a sample with no spread along u has no density to compare: the 1-D fit would
	// report +Inf or 0, neither of which the data support (Gauss refuses it too). Constant
	// is tested exactly: the fitted variance of equal values is a rounding error, not 0.
	for _, s := range []struct {
		name string
		p    []float64
	}{{"A", pa}, {"B", pb}} {
		if slices.Min(s.p) == slices.Max(s.p) {
			return nil, fmt.Errorf("projected: sample %s has no spread along the projection (its held-out half is constant)", s.name)
		}
	}
	if opt.Covariance == Pooled {
		va = (va*float64(len(pa)) + vb*float64(len(pb))) / float64(len(pa)+len(pb))
		vb = va
	}
	// opt.rand("projected")'s normals, drawn by internal/normal: the same bits, cheaper
	r := normal.FromPCG(opt.source("projected"))
	sa, sb := make([]float64, len(pa)), make([]float64, len(pb))
	reps := make([][]float64, len(alphas))
	for i := range reps {
		reps[i] = make([]float64, opt.Reps)
	}
	sda, sdb := math.Sqrt(va), math.Sqrt(vb)
	for k := range opt.Reps {
		r.Fill(sa, ma, sda)
		r.Fill(sb, mb, sdb)
		for i, al := range alphas {
			reps[i][k] = renyi1D(al, sa, sb, opt.Covariance)
		}
	}
	out := make([]Estimate, len(alphas))
	for i, al := range alphas {
		out[i] = basicInterval(renyi1D(al, pa, pb, opt.Covariance), reps[i], opt.Confidence)
	}
	return out, nil
}

// Project fits the Fisher direction on the first half of each sample and returns the
// projections of the second halves, the one-dimensional scores the projected estimator
// and the threshold attacks use.
func Project(a, b mat.Matrix) (pa, pb []float64, err error) {
	pa, pb = heldOut(a, b, FisherDirection(a, b))
	return pa, pb, nil
}

// heldOut projects the second half of each sample on u.
func heldOut(a, b mat.Matrix, u []float64) (pa, pb []float64) {
	na, _ := a.Dims()
	nb, _ := b.Dims()
	return project(a, u, na/2, na), project(b, u, nb/2, nb)
}

// FisherDirection is the unit vector Σ̂⁻¹(μ̂_A − μ̂_B) fitted on the first half of each
// sample, with the pooled Ledoit–Wolf covariance. Without spread it falls back to the mean
// difference, and without a mean difference to the first axis.
//
// When the dimension exceeds the rows of the fit (a model of 60,000 weights from a few
// hundred trials), the d × d covariance is never formed: the shrunk covariance is
// aI + bCᵀC for the centred rows C, and Woodbury's identity solves with it through the
// n × n Gram matrix CCᵀ, in O(n²d) time and O(nd) memory (fisherLowRank).
func FisherDirection(a, b mat.Matrix) []float64 {
	na, d := a.Dims()
	nb, _ := b.Dims()
	var u *mat.VecDense
	if na/2+nb/2 < d {
		u = mat.NewVecDense(d, fisherLowRank(rows(a, 0, na/2), rows(b, 0, nb/2)))
	} else {
		u = fisherDense(rows(a, 0, na/2), rows(b, 0, nb/2))
	}
	if nrm := mat.Norm(u, 2); nrm > 0 {
		u.ScaleVec(1/nrm, u)
	} else {
		u.SetVec(0, 1)
	}
	return u.RawVector().Data
}

// fisherDense is Σ̂⁻¹(μ̂_A − μ̂_B) with the d × d pooled Ledoit–Wolf covariance, or the mean
// difference when it cannot be factorised.
func fisherDense(a, b *mat.Dense) *mat.VecDense {
	_, d := a.Dims()
	ga, gb := fitPair(a, b, Pooled)
	diff := mat.NewVecDense(d, nil)
	for j := range d {
		diff.SetVec(j, ga.Mean[j]-gb.Mean[j])
	}
	u := mat.NewVecDense(d, nil)
	var chol mat.Cholesky
	if !chol.Factorize(ga.Cov) || chol.SolveVecTo(u, diff) != nil {
		u.CopyVec(diff)
	}
	return u
}

// fisherLowRank is fisherDense's direction without a d × d matrix. With C the n × d rows of
// both samples, each centred at its own mean and then at the overall mean (as FitGaussian
// centres them), S = CᵀC/n, and every Ledoit–Wolf quantity is a function of the Gram
// matrix G = CCᵀ: tr S = tr G/n, ‖S‖²_F = ‖G‖²_F/n², Σ_k ‖c_k‖⁴ = Σ_k G_kk². The shrunk
// covariance is Σ̂ = aI + bCᵀC with a = ρ·tr S/d and b = (1−ρ)/n, and by Woodbury
// Σ̂⁻¹v = (v − Cᵀ(aI/b + G)⁻¹Cv)/a. Without shrinkage (a = 0) Σ̂ is singular, and the
// direction falls back to the mean difference, as fisherDense's failed factorisation does.
func fisherLowRank(a, b *mat.Dense) []float64 {
	na, d := a.Dims()
	nb, _ := b.Dims()
	n := na + nb
	ma, mb := columnMeans(a), columnMeans(b)
	c := mat.NewDense(n, d, nil)
	centre := make([]float64, d)
	for i := range n {
		row, src, mean := c.RawRowView(i), a, ma
		k := i
		if i >= na {
			src, mean, k = b, mb, i-na
		}
		for j, v := range src.RawRowView(k) {
			row[j] = v - mean[j]
			centre[j] += row[j] / float64(n)
		}
	}
	for i := range n {
		floats.Sub(c.RawRowView(i), centre)
	}
	gram := mat.NewSymDense(n, nil)
	blas64.Syrk(blas.NoTrans, 1, c.RawMatrix(), 0, gram.RawSymmetric())
	var trace, frob2, sumFourth float64
	for i := range n {
		gii := gram.At(i, i)
		trace += gii
		sumFourth += gii * gii
		for j := range n {
			frob2 += gram.At(i, j) * gram.At(i, j)
		}
	}
	nf, df := float64(n), float64(d)
	trace /= nf
	frob2 /= nf * nf
	mu := trace / df
	delta2 := (frob2 - df*mu*mu) / df
	beta2 := (sumFourth/nf - frob2) / (nf * df)
	rho := 0.0
	if delta2 > 0 {
		rho = math.Max(0, math.Min(beta2, delta2)/delta2)
	}
	diff := make([]float64, d)
	floats.SubTo(diff, ma, mb)
	shift, scale := rho*mu, (1-rho)/nf
	if shift <= 0 || scale <= 0 {
		return diff
	}
	// inner = (shift/scale)·I + G, solved for C·diff
	inner := mat.NewSymDense(n, nil)
	inner.CopySym(gram)
	for i := range n {
		inner.SetSym(i, i, inner.At(i, i)+shift/scale)
	}
	cv := mat.NewVecDense(n, nil)
	cv.MulVec(c, mat.NewVecDense(d, diff))
	var chol mat.Cholesky
	w := mat.NewVecDense(n, nil)
	if !chol.Factorize(inner) || chol.SolveVecTo(w, cv) != nil {
		return diff
	}
	u := mat.NewVecDense(d, nil)
	u.MulVec(c.T(), w)
	out := make([]float64, d)
	for j := range out {
		out[j] = (diff[j] - u.AtVec(j)) / shift
	}
	return out
}

func project(m mat.Matrix, u []float64, lo, hi int) []float64 {
	_, d := m.Dims()
	out := make([]float64, hi-lo)
	for i := lo; i < hi; i++ {
		var s float64
		for j := range d {
			s += m.At(i, j) * u[j]
		}
		out[i-lo] = s
	}
	return out
}

// rows is rows lo..hi−1 of m, to read: a view of a *mat.Dense (a copy of half of 10⁶
// trials' models was hundreds of megabytes of new pages), a copy of anything else.
func rows(m mat.Matrix, lo, hi int) *mat.Dense {
	_, d := m.Dims()
	if dm, ok := m.(*mat.Dense); ok && hi > lo {
		return dm.Slice(lo, hi, 0, d).(*mat.Dense)
	}
	out := mat.NewDense(hi-lo, d, nil)
	for i := lo; i < hi; i++ {
		for j := range d {
			out.Set(i-lo, j, m.At(i, j))
		}
	}
	return out
}

// ByName runs the estimator named "gauss", "projected" or "knn".
func ByName(method string, a, b mat.Matrix, opt Options) (Estimate, error) {
	switch method {
	case "gauss":
		return Gauss(a, b, opt)
	case "projected":
		return Projected(a, b, opt)
	case "knn":
		return KNN(a, b, opt)
	}
	return Estimate{}, fmt.Errorf("unknown estimator %s; want gauss, projected or knn", clip.Quote(method))
}
