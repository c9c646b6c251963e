package reference

import (
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/internal/logit"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Constants are per-example regularity constants of a loss on Θ = {‖θ‖ ≤ R} for a given
// set of rows. The papers disagree on which letter means what (SGLU's L is smoothness), so
// the toolkit always uses these names.
type Constants struct {
	Lipschitz       float64 `json:"lipschitz"`        // sup over Θ and rows of ‖∇f_z(θ)‖
	Smoothness      float64 `json:"smoothness"`       // ‖∇f_z(θ) − ∇f_z(θ')‖ ≤ Smoothness·‖θ − θ'‖
	StrongConvexity float64 `json:"strong_convexity"` // f_z − (m/2)‖θ‖² is convex
}

// A Loss is an L2-regularised per-example loss f_z(θ) = φ(xᵀθ; y) + (λ/2)‖θ‖².
type Loss interface {
	// Name identifies the loss in reports, e.g. "logistic(λ=0.05)".
	Name() string
	// Regularization is λ.
	Regularization() float64
	// WithRegularization is the same loss with L2 weight λ (the convex D2D variants add
	// their own ridge term this way).
	WithRegularization(lambda float64) Loss
	// Constants are the certified constants of the papers' formulas on the ball of the
	// given radius for the given rows (spec d2d §1.7).
	Constants(ds *Dataset, radius float64) Constants
	// TightConstants are the exact suprema where they have a closed form (the Lipschitz
	// constant always does), for checking declared constants against the data.
	TightConstants(ds *Dataset, radius float64) Constants
	// Objective binds the loss to a dataset: f_D(θ) = (1/n) Σ f_z(θ).
	Objective(ds *Dataset) *Objective
	// ExampleLoss and ExampleGradient evaluate one example.
	ExampleLoss(theta, x []float64, y float64) float64
	ExampleGradient(dst, theta, x []float64, y float64)

	link() link
}

// link is the scalar part φ of a generalised linear loss, with optional clipping of the
// derivative at magnitude c (c = +Inf: no clipping). Clipping |φ'| at c is the derivative
// of a Huberised φ, so a clipped loss is still convex and smooth, and Value, Gradient and
// Hessian stay consistent with one another.
type link interface {
	value(u, y, c float64) float64
	deriv(u, y, c float64) float64
	// derivs sets w[i] = inv·deriv(u[i], y[i], c[i]) for every i, the same bits.
	derivs(w, u, y, c []float64, inv float64)
	curv(u, y, c float64) float64
	// maxDeriv is sup |φ'(u)| over |u| ≤ radius·‖x‖ (with clipping c).
	maxDeriv(xnorm, y, radius, c float64) float64
	// maxCurv is an upper bound on sup φ''.
	maxCurv() float64
}

// Logistic is binary logistic regression with labels ±1 and L2 weight Lambda:
// f_z(θ) = log(1 + exp(−y xᵀθ)) + (λ/2)‖θ‖². Clip > 0 clips the data gradient of each
// example to norm Clip.
type Logistic struct {
	Lambda float64
	Clip   float64
}

// Ridge is least squares with L2 weight Lambda: f_z(θ) = ½(xᵀθ − y)² + (λ/2)‖θ‖².
// Clip > 0 clips the data gradient of each example to norm Clip (a Huber loss).
type Ridge struct {
	Lambda float64
	Clip   float64
}

func (l Logistic) Name() string {
	if l.Clip > 0 {
		return fmt.Sprintf("logistic(λ=%g, clip=%g)", l.Lambda, l.Clip)
	}
	return fmt.Sprintf("logistic(λ=%g)", l.Lambda)
}

func (l Ridge) Name() string {
	if l.Clip > 0 {
		return fmt.Sprintf("ridge(λ=%g, clip=%g)", l.Lambda, l.Clip)
	}
	return fmt.Sprintf("ridge(λ=%g)", l.Lambda)
}

func (l Logistic) Regularization() float64 { return l.Lambda }
func (l Ridge) Regularization() float64    { return l.Lambda }

func (l Logistic) WithRegularization(lambda float64) Loss { l.Lambda = lambda; return l }
func (l Ridge) WithRegularization(lambda float64) Loss    { l.Lambda = lambda; return l }

func (l Logistic) link() link { return logisticLink{} }
func (l Ridge) link() link    { return squareLink{} }

func clipLevel(clip, xnorm float64) float64 {
	if clip <= 0 {
		return math.Inf(1)
	}
	if xnorm == 0 {
		return math.Inf(1)
	}
	return clip / xnorm
}

// Constants (spec d2d §1.7): L = min(‖x‖max, clip) + λR, M = ‖x‖²max/4 + λ, m = λ.
func (l Logistic) Constants(ds *Dataset, radius float64) Constants {
	xm := ds.MaxRowNorm()
	data := xm
	if l.Clip > 0 {
		data = math.Min(data, l.Clip)
	}
	return Constants{Lipschitz: data + l.Lambda*radius, Smoothness: xm*xm/4 + l.Lambda, StrongConvexity: l.Lambda}
}

// Constants (spec d2d §1.7): L = ‖x‖max(‖x‖max R + |y|max) + λR (or clip + λR),
// M = ‖x‖²max + λ, m = λ.
func (l Ridge) Constants(ds *Dataset, radius float64) Constants {
	xm := ds.MaxRowNorm()
	data := xm * (xm*radius + ds.MaxAbsLabel())
	if l.Clip > 0 {
		data = math.Min(data, l.Clip)
	}
	return Constants{Lipschitz: data + l.Lambda*radius, Smoothness: xm*xm + l.Lambda, StrongConvexity: l.Lambda}
}

func (l Logistic) TightConstants(ds *Dataset, radius float64) Constants {
	return tightConstants(logisticLink{}, l.Lambda, l.Clip, ds, radius)
}

func (l Ridge) TightConstants(ds *Dataset, radius float64) Constants {
	return tightConstants(squareLink{}, l.Lambda, l.Clip, ds, radius)
}

// tightConstants: the Lipschitz constant is the exact supremum of ‖x φ'(xᵀθ) + λθ‖ over the
// ball. Both terms reach their maxima at θ = ∓R x/‖x‖ (the sign that makes |φ'| largest),
// and there they point the same way, so the supremum is ‖x‖·sup|φ'| + λR.
func tightConstants(lk link, lambda, clip float64, ds *Dataset, radius float64) Constants {
	var lip, smooth float64
	for i := range ds.Len() {
		xn := ds.rowNormDot(i)
		c := clipLevel(clip, xn)
		lip = math.Max(lip, xn*lk.maxDeriv(xn, ds.Label(i), radius, c))
		smooth = math.Max(smooth, xn*xn*lk.maxCurv())
	}
	return Constants{Lipschitz: lip + lambda*radius, Smoothness: smooth + lambda, StrongConvexity: lambda}
}

func (l Logistic) ExampleLoss(theta, x []float64, y float64) float64 {
	return exampleLoss(logisticLink{}, l.Lambda, l.Clip, theta, x, y)
}
func (l Ridge) ExampleLoss(theta, x []float64, y float64) float64 {
	return exampleLoss(squareLink{}, l.Lambda, l.Clip, theta, x, y)
}
func (l Logistic) ExampleGradient(dst, theta, x []float64, y float64) {
	exampleGradient(logisticLink{}, l.Lambda, l.Clip, dst, theta, x, y)
}
func (l Ridge) ExampleGradient(dst, theta, x []float64, y float64) {
	exampleGradient(squareLink{}, l.Lambda, l.Clip, dst, theta, x, y)
}

func exampleLoss(lk link, lambda, clip float64, theta, x []float64, y float64) float64 {
	c := clipLevel(clip, math.Sqrt(dot(x, x)))
	return lk.value(dot(x, theta), y, c) + lambda/2*dot(theta, theta)
}

func exampleGradient(lk link, lambda, clip float64, dst, theta, x []float64, y float64) {
	c := clipLevel(clip, math.Sqrt(dot(x, x)))
	g := lk.deriv(dot(x, theta), y, c)
	for j := range dst {
		dst[j] = g*x[j] + lambda*theta[j]
	}
}

func (l Logistic) Objective(ds *Dataset) *Objective { return newObjective(l, l.Lambda, l.Clip, ds) }
func (l Ridge) Objective(ds *Dataset) *Objective    { return newObjective(l, l.Lambda, l.Clip, ds) }

// logisticLink: φ(u; y) = log(1 + e^{−yu}); |φ'| = σ(−yu), clipped at c. Beyond the margin
// t₀ where σ(−t₀) = c, φ continues linearly with slope c (a Huberised logistic loss).
type logisticLink struct{}

func softplus(t float64) float64 { // log(1 + e^t), stable
	if t > 0 {
		return t + math.Log1p(fexp.Exp(-t))
	}
	return math.Log1p(fexp.Exp(t))
}

func sigmoid(t float64) float64 { return logit.Sigmoid(t) }

func (logisticLink) value(u, y, c float64) float64 {
	t := y * u
	if c < 1 {
		t0 := math.Log((1 - c) / c) // σ(−t0) = c
		if t < t0 {
			return softplus(-t0) + c*(t0-t)
		}
	}
	return softplus(-t)
}

func (logisticLink) deriv(u, y, c float64) float64 { return logit.Deriv(u, y, c) }

// derivs is logit.Derivs: four at a time, the exps vectorised.
func (logisticLink) derivs(w, u, y, c []float64, inv float64) { logit.Derivs(w, u, y, c, inv) }

func (logisticLink) curv(u, y, c float64) float64 {
	s := sigmoid(-y * u)
	if s > c {
		return 0
	}
	return s * (1 - s)
}

func (logisticLink) maxDeriv(xnorm, _, radius, c float64) float64 {
	return math.Min(sigmoid(radius*xnorm), c)
}

func (logisticLink) maxCurv() float64 { return 0.25 }

// squareLink: φ(u; y) = ½(u − y)², clipped to a Huber loss with threshold c.
type squareLink struct{}

func (squareLink) value(u, y, c float64) float64 {
	r := u - y
	if math.Abs(r) <= c {
		return r * r / 2
	}
	return c*math.Abs(r) - c*c/2
}

func (squareLink) deriv(u, y, c float64) float64 {
	return math.Max(-c, math.Min(c, u-y))
}

func (l squareLink) derivs(w, u, y, c []float64, inv float64) {
	for i := range w {
		w[i] = inv * l.deriv(u[i], y[i], c[i])
	}
}

func (squareLink) curv(u, y, c float64) float64 {
	if math.Abs(u-y) <= c {
		return 1
	}
	return 0
}

func (squareLink) maxDeriv(xnorm, y, radius, c float64) float64 {
	return math.Min(xnorm*radius+math.Abs(y), c)
}

func (squareLink) maxCurv() float64 { return 1 }

func dot(a, b []float64) float64 {
	return blas64.Dot(blas64.Vector{N: len(a), Inc: 1, Data: a}, blas64.Vector{N: len(b), Inc: 1, Data: b})
}

// Objective is a loss bound to a dataset: f_D(θ) = (1/n) Σ_{z∈D} f_z(θ). It owns scratch
// buffers so that evaluations do not allocate; it is not safe for concurrent use, so give
// each goroutine its own (they are cheap: O(n) memory, the data is shared).
type Objective struct {
	loss   Loss
	lk     link
	lambda float64
	ds     *Dataset
	clipAt []float64 // per-row clip level c_i (+Inf when not clipping)
	u      []float64 // scratch: Xθ
	w      []float64 // scratch: per-row weights
	curv   []float64 // φ”(x_iᵀθ)/n at the point of the last CurvatureAt
	scaled *mat.Dense
	stream bool // products with X row by row (see StreamsFromMemory)
	sp     *CSR // the sparse features, when the data are sparse
}

func newObjective(l Loss, lambda, clip float64, ds *Dataset) *Objective {
	n := ds.Len()
	o := &Objective{loss: l, lk: l.link(), lambda: lambda, ds: ds, clipAt: make([]float64, n), u: make([]float64, n), w: make([]float64, n),
		stream: StreamsFromMemory(n, ds.Dim()), sp: ds.sp}
	for i := range n {
		o.clipAt[i] = clipLevel(clip, ds.rowNormDot(i))
	}
	return o
}

// Loss returns the loss the objective evaluates.
func (o *Objective) Loss() Loss { return o.loss }

// Data returns the bound dataset.
func (o *Objective) Data() *Dataset { return o.ds }

// Dim is the parameter dimension.
func (o *Objective) Dim() int { return o.ds.Dim() }

func (o *Objective) raw() blas64.General { return o.ds.x.RawMatrix() }

func vec(s []float64) blas64.Vector { return blas64.Vector{N: len(s), Inc: 1, Data: s} }

// streamBytes is the data size above which a pass over X is taken to come from memory
// rather than cache. There the products Xθ run as one dot product per row: the rows are
// then read as a single sequential stream, which the hardware prefetcher follows at near
// memory bandwidth, while the BLAS kernel interleaves four rows and pulled about 18 GB/s
// from memory where one core streams 26–36 GB/s. In cache the kernel is the faster by
// about 25 %. BenchmarkGradientLayout measured the crossover between 12.5 MB and 25 MB.
const streamBytes = 16 << 20

// StreamsFromMemory reports whether passes over an n×d matrix of float64 are laid out for
// data read from memory (see Objective.SetStreaming).
func StreamsFromMemory(n, d int) bool { return 8*n*d > streamBytes }

// SetStreaming overrides the objective's choice of layout for the products with X: row
// by row (on) suits data that comes from memory on every pass, matrix–vector kernels
// (off) data that stays in cache. By default it follows StreamsFromMemory for the bound
// data; a caller that sweeps many small objectives over one large matrix, as SGLU's
// batches do, knows better. The results agree to rounding either way.
func (o *Objective) SetStreaming(on bool) { o.stream = on }

// rowsTimes sets dst[i−lo] = x_i·v for the rows of the block starting at lo, in the
// layout the objective uses.
func (o *Objective) rowsTimes(dst, v []float64, lo int) {
	if o.sp != nil {
		for i := lo; i < min(lo+gradBlock, o.ds.Len()); i++ {
			dst[i-lo] = o.sp.RowDot(i, v)
		}
		return
	}
	blk, hi := o.block(lo)
	if o.stream {
		for i := lo; i < hi; i++ {
			dst[i-lo] = floats.Dot(o.ds.Row(i), v)
		}
		return
	}
	blas64.Gemv(blas.NoTrans, 1, blk, vec(v), 0, vec(dst[:hi-lo]))
}

// margins sets o.u = Xθ.
func (o *Objective) margins(theta []float64) {
	for lo := 0; lo < o.ds.Len(); lo += gradBlock {
		o.rowsTimes(o.u[lo:], theta, lo)
	}
}

// Value returns f_D(θ).
func (o *Objective) Value(theta []float64) float64 {
	o.checkDim(theta)
	o.margins(theta)
	var s float64
	for i, u := range o.u {
		s += o.lk.value(u, o.ds.y[i], o.clipAt[i])
	}
	return s/float64(o.ds.Len()) + o.lambda/2*dot(theta, theta)
}

// gradBlock is the number of rows whose two products with X run back to back, so a block
// is read from memory once and reused from cache (128 rows of 784 doubles are
// 800 KB). Measured on 12000×784 (BenchmarkLogistic): see the package benchmarks.
const gradBlock = 128

// Gradient sets dst = ∇f_D(θ) = (1/n) Xᵀ φ'(Xθ) + λθ, block by block: for each block of
// rows, u = X_B θ and dst += X_Bᵀ w_B with two BLAS calls while the block is in cache.
func (o *Objective) Gradient(dst, theta []float64) {
	o.checkDim(theta)
	o.checkDim(dst)
	inv := 1 / float64(o.ds.Len())
	copy(dst, theta)
	blas64.Scal(o.lambda, vec(dst))
	for lo := 0; lo < o.ds.Len(); lo += gradBlock {
		hi := o.blockEnd(lo)
		o.rowsTimes(o.u[lo:hi], theta, lo)
		o.lk.derivs(o.w[lo:hi], o.u[lo:hi], o.ds.y[lo:hi], o.clipAt[lo:hi], inv)
		o.addRowsT(dst, o.w[lo:hi], lo)
	}
}

// addRowsT sets dst += X_Bᵀ w for the block of rows starting at lo, w indexed from lo.
func (o *Objective) addRowsT(dst, w []float64, lo int) {
	if o.sp != nil {
		for i := lo; i < min(lo+gradBlock, o.ds.Len()); i++ {
			o.sp.RowAddTo(dst, w[i-lo], i)
		}
		return
	}
	blk, _ := o.block(lo)
	blas64.Gemv(blas.Trans, 1, blk, vec(w), 1, vec(dst))
}

// blockEnd is min(lo+gradBlock, n).
func (o *Objective) blockEnd(lo int) int { return min(lo+gradBlock, o.ds.Len()) }

// block returns rows lo..hi−1 of X as a BLAS matrix view, hi = min(lo+gradBlock, n).
func (o *Objective) block(lo int) (blas64.General, int) {
	raw := o.raw()
	hi := min(lo+gradBlock, raw.Rows)
	return blas64.General{Rows: hi - lo, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data[lo*raw.Stride:]}, hi
}

// BatchGradient sets dst to the mean gradient over the given rows:
// (1/|B|) Σ_{i∈B} ∇f_{z_i}(θ). It does not allocate. dst must not overlap theta (dst is
// scaled from θ first, and a chunk's margins are taken before its terms).
func (o *Objective) BatchGradient(dst, theta []float64, rows []int) {
	o.checkDim(theta)
	o.checkDim(dst)
	if len(rows) == 0 {
		panic("reference: BatchGradient over an empty batch")
	}
	inv := 1 / float64(len(rows))
	copy(dst, theta)
	floats.Scale(o.lambda, dst)
	// floats reaches the same assembly kernels as blas64 without its interface dispatch,
	// which dominates for short rows (BenchmarkBatchSmall). The rows go in chunks: every
	// margin of a chunk first (they depend on θ alone, not on dst), then their derivatives
	// at once (the link's derivs: the logistic link's exps four at a time), then
	// dst += g·x_i in the rows' order — the same operations on the same values in the same
	// order as one row at a time, so the same bits.
	var u, y, c, g [batchChunk]float64
	var raw blas64.General // dense rows, sliced directly: RawRowView, twice a row, was 9 % of the demo's CPU
	if o.sp == nil {
		raw = o.raw()
	}
	row := func(i int) []float64 { return raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] }
	for lo := 0; lo < len(rows); lo += batchChunk {
		chunk := rows[lo:min(lo+batchChunk, len(rows))]
		for k, i := range chunk {
			if o.sp != nil {
				u[k] = o.sp.RowDot(i, theta)
			} else {
				u[k] = floats.Dot(row(i), theta)
			}
			y[k], c[k] = o.ds.y[i], o.clipAt[i]
		}
		n := len(chunk)
		o.lk.derivs(g[:n], u[:n], y[:n], c[:n], inv)
		for k, i := range chunk {
			if o.sp != nil {
				o.sp.RowAddTo(dst, g[k], i)
			} else {
				floats.AddScaled(dst, g[k], row(i))
			}
		}
	}
}

// batchChunk is how many rows BatchGradient takes at a time.
const batchChunk = 64

// BatchValue is the mean loss over the given rows (repeats count):
// (1/|B|) Σ_{i∈B} f_{z_i}(θ).
func (o *Objective) BatchValue(theta []float64, rows []int) float64 {
	o.checkDim(theta)
	var s float64
	for _, i := range rows {
		s += o.lk.value(o.rowDot(i, theta), o.ds.y[i], o.clipAt[i])
	}
	return s/float64(len(rows)) + o.lambda/2*dot(theta, theta)
}

// ExampleGradient sets dst = ∇f_{z_i}(θ) for row i.
func (o *Objective) ExampleGradient(dst, theta []float64, i int) {
	g := o.lk.deriv(o.rowDot(i, theta), o.ds.y[i], o.clipAt[i])
	if o.sp != nil {
		for j := range dst {
			dst[j] = o.lambda * theta[j]
		}
		o.sp.RowAddTo(dst, g, i)
		return
	}
	x := o.ds.x.RawRowView(i)
	for j := range dst {
		dst[j] = g*x[j] + o.lambda*theta[j]
	}
}

// rowDot is x_i·v in the data's own form.
func (o *Objective) rowDot(i int, v []float64) float64 {
	if o.sp != nil {
		return o.sp.RowDot(i, v)
	}
	return dot(o.ds.x.RawRowView(i), v)
}

// HessVec sets dst = ∇²f_D(θ)·v = (1/n) Xᵀ diag(φ”(Xθ)) X v + λv, block by block as in
// Gradient, so the data are read once.
func (o *Objective) HessVec(dst, theta, v []float64) {
	o.checkDim(theta)
	o.checkDim(v)
	o.checkDim(dst)
	inv := 1 / float64(o.ds.Len())
	copy(dst, v)
	blas64.Scal(o.lambda, vec(dst))
	for lo := 0; lo < o.ds.Len(); lo += gradBlock {
		hi := o.blockEnd(lo)
		o.rowsTimes(o.u[lo:hi], theta, lo)
		o.rowsTimes(o.w[lo:hi], v, lo)
		for i := lo; i < hi; i++ {
			o.w[i] *= inv * o.lk.curv(o.u[i], o.ds.y[i], o.clipAt[i])
		}
		o.addRowsT(dst, o.w[lo:hi], lo)
	}
}

// Curvature is ∇²f_D(θ) at one point θ as an operator, for Hessian-free solvers: the
// per-row curvatures φ”(x_iᵀθ) are computed once by Objective.CurvatureAt, after which
// each product costs one pass over X, not HessVec's two. It shares the objective's
// buffer: the next CurvatureAt on the same objective changes it.
type Curvature struct {
	o *Objective
}

// CurvatureAt fixes the point of the Hessian–vector products of the returned operator.
func (o *Objective) CurvatureAt(theta []float64) Curvature {
	o.checkDim(theta)
	if o.curv == nil {
		o.curv = make([]float64, o.ds.Len())
	}
	o.margins(theta)
	inv := 1 / float64(o.ds.Len())
	for i, u := range o.u {
		o.curv[i] = inv * o.lk.curv(u, o.ds.y[i], o.clipAt[i])
	}
	return Curvature{o}
}

// Apply sets dst = ∇²f_D(θ)·v + shift·v = (1/n) Xᵀ diag(φ”) X v + (λ + shift)v, block by
// block so that each block of X is read from memory once. The shift is the damping
// μ‖θ‖²/2 of a penalised problem (zero for the Hessian itself).
func (h Curvature) Apply(dst, v []float64, shift float64) {
	o := h.o
	o.checkDim(v)
	o.checkDim(dst)
	copy(dst, v)
	blas64.Scal(o.lambda+shift, vec(dst))
	for lo := 0; lo < o.ds.Len(); lo += gradBlock {
		hi := o.blockEnd(lo)
		o.rowsTimes(o.w[lo:hi], v, lo)
		for i := lo; i < hi; i++ {
			o.w[i] *= o.curv[i]
		}
		o.addRowsT(dst, o.w[lo:hi], lo)
	}
}

// Hessian sets dst = ∇²f_D(θ) = Xᵀ diag(φ”/n) X + λI. dst must be d×d.
func (o *Objective) Hessian(dst *mat.SymDense, theta []float64) {
	o.checkDim(theta)
	d := o.Dim()
	if dst.SymmetricDim() != d {
		panic(fmt.Sprintf("reference: Hessian destination is %d×%d, want %d×%d", dst.SymmetricDim(), dst.SymmetricDim(), d, d))
	}
	o.margins(theta)
	n := o.ds.Len()
	if o.scaled == nil {
		o.scaled = mat.NewDense(n, d, nil)
	}
	inv := 1 / float64(n)
	for i, u := range o.u {
		s := math.Sqrt(inv * o.lk.curv(u, o.ds.y[i], o.clipAt[i]))
		row := o.scaled.RawRowView(i)
		for j, v := range o.ds.Row(i) {
			row[j] = s * v
		}
	}
	raw := dst.RawSymmetric()
	for i := range d {
		for j := i; j < d; j++ {
			raw.Data[i*raw.Stride+j] = 0
		}
		raw.Data[i*raw.Stride+i] = o.lambda
	}
	blas64.Syrk(blas.Trans, 1, o.scaled.RawMatrix(), 1, raw)
}

func (o *Objective) checkDim(v []float64) {
	if len(v) != o.Dim() {
		panic(fmt.Sprintf("reference: vector of length %d for an objective of dimension %d", len(v), o.Dim()))
	}
}

// ProjectBall projects θ onto the Euclidean ball of the given radius in place and returns
// it: θ ← θ·min(1, R/‖θ‖). A radius of +Inf leaves θ unchanged.
func ProjectBall(theta []float64, radius float64) []float64 {
	nrm := math.Sqrt(dot(theta, theta))
	if nrm > radius {
		blas64.Scal(radius/nrm, vec(theta))
	}
	return theta
}

// Norm is the Euclidean norm.
func Norm(v []float64) float64 { return blas64.Nrm2(vec(v)) }

// Distance is ‖a − b‖₂.
func Distance(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// MinimiserRadius is a radius whose ball holds the unconstrained minimiser of f_D for the
// rows of ds and every subset of them: λ-strong convexity gives ‖θ*‖ ≤ ‖∇f_D(0)‖/λ, and
// ∇f_D(0) is a mean of the per-example data gradients at 0, so ‖θ*‖ ≤ max_i ‖∇f_{z_i}(0)‖/λ
// (max‖x‖/(2λ) for the logistic loss). With this radius the ball constraint never binds
// at the optimum. +Inf when λ = 0.
func MinimiserRadius(l Loss, ds *Dataset) float64 {
	lambda := l.Regularization()
	if lambda <= 0 {
		return math.Inf(1)
	}
	zero := make([]float64, ds.Dim())
	g := make([]float64, ds.Dim())
	var row []float64
	if ds.sp != nil {
		row = make([]float64, ds.Dim())
	}
	worst := 0.0
	for i := range ds.Len() {
		x := row
		if ds.sp != nil {
			ds.sp.DenseRow(row, i)
		} else {
			x = ds.x.RawRowView(i)
		}
		l.ExampleGradient(g, zero, x, ds.Label(i))
		worst = math.Max(worst, Norm(g))
	}
	return worst / lambda
}

// MostInfluential is the row whose example gradient at θ is largest, and that norm: at
// the minimiser, the record whose removal moves the model most (by the first-order
// influence ∇f_z(θ*)/n, up to the Hessian's conditioning).
func (o *Objective) MostInfluential(theta []float64) (row int, norm float64) {
	g := make([]float64, o.Dim())
	row, norm = 0, -1
	for i := range o.ds.Len() {
		o.ExampleGradient(g, theta, i)
		if n := Norm(g); n > norm {
			row, norm = i, n
		}
	}
	return row, norm
}
