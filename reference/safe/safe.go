package safe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// DefaultRidgeScale is the ridge Config.Ridge = 0 adds to a class covariance, relative to
// that class's mean variance at t = 0, tr(S₀)/k.
const DefaultRidgeScale = 1e-6

// ProjDim is the projection dimension k the config gives p-dimensional features: Proj,
// or min(8, p) when Proj is 0 (the default).
func (cfg Config) ProjDim(p int) int {
	if cfg.Proj == 0 {
		return min(8, p)
	}
	return cfg.Proj
}

// QMode is how the forgetting term's target reweights the original model's prediction at
// a deleted point (spec safe §2.1 step 4 and §7 item 1).
type QMode int

const (
	// PerClass reweights every class c by r_t(c)·ρ_t(c) and normalises: Bayes' rule (Eq. 17)
	// holds for every candidate label. The default.
	PerClass QMode = iota
	// OwnLabelOnly reweights only the point's own label's entry, then normalises.
	OwnLabelOnly
	// LiteralScalar is the paper's notation q_t^{(y)}(x)·f(x; w₀) read literally: a scalar
	// times a distribution, whose divergence has zero gradient at w₀ — the forgetting term
	// does nothing. Kept to document the degeneracy.
	LiteralScalar
)

func (q QMode) String() string {
	return [...]string{"per-class", "own-label-only", "literal-scalar"}[q]
}

// KLDirection is which divergence the forgetting term takes between the model's
// prediction f_w and the target p̃.
type KLDirection int

const (
	// ModelToTarget is KL(f_w ‖ p̃), what the proof of Theorem 1 uses. The default.
	ModelToTarget KLDirection = iota
	// TargetToModel is KL(p̃ ‖ f_w), the authors' CaMU code's convention.
	TargetToModel
)

func (k KLDirection) String() string {
	if k == TargetToModel {
		return "KL(p̃ ‖ f_w)"
	}
	return "KL(f_w ‖ p̃)"
}

// Standardize is the fixed affine map z = B(Vᵀx − a) applied to projected features before
// the class Gaussians; density ratios do not depend on it, only the numerics do.
type Standardize int

const (
	// Global whitens with D₀'s projected features: zero mean, identity covariance (App.
	// B.6: once, before the stream). The default.
	Global Standardize = iota
	// NoStandardize uses Vᵀx as it is.
	NoStandardize
	// PerClassMap whitens each class with its own D₀ statistics.
	PerClassMap
)

func (s Standardize) String() string {
	return [...]string{"global", "none", "per-class"}[s]
}

// Ablation switches parts of the update off (Table 2).
type Ablation int

const (
	// Full is SAFE.
	Full Ablation = iota
	// NoTR ("w/o TR") drops the original data's gradient (N₀/|D_t|)·∇R₀(w₀) from the
	// retention term, leaving −(1/|D_t|)·Σ_{F≤t}∇ℓ (the spec's most likely reading).
	NoTR
	// NoRetention drops the whole retention gradient (the other reading of "w/o TR").
	NoRetention
	// NoDS ("w/o DS") drops the forgetting term: g_t is the retention gradient (λ = 0).
	NoDS
)

func (a Ablation) String() string {
	return [...]string{"SAFE", "w/o TR", "w/o retention", "w/o DS"}[a]
}

// NoiseReading is what φ_t is: the paper calls it a variance and gives a standard
// deviation's formula.
type NoiseReading int

const (
	// PhiIsStd draws b_t ~ N(0, φ_t²I): the Gaussian mechanism's formula. The default.
	PhiIsStd NoiseReading = iota
	// PhiIsVariance draws b_t ~ N(0, φ_t·I), the paper's word.
	PhiIsVariance
)

// Config is SAFE's settings. The zero value of every option is the spec's default.
type Config struct {
	// Lambda is the forgetting term's weight λ.
	Lambda float64
	// K and T set the step γ = √W/(K√T) (T the horizon, known in advance); Gamma > 0
	// overrides the formula.
	K     float64
	T     int
	Gamma float64
	// W bounds the parameters' norm; 0 means ‖w₀‖.
	W float64
	// Proj is the projection dimension k; 0 means min(8, p).
	Proj        int
	Standardize Standardize
	Q           QMode
	KL          KLDirection
	// CacheQ freezes each deleted point's target at the round it was deleted (Algorithm 1
	// line 8's wording) instead of recomputing every target with the current statistics
	// each round (Eq. 25, the default).
	CacheQ     bool
	Covariance CovarianceUpdate
	Ablation   Ablation
	// Phi is the noise parameter φ_t (0: deterministic), read by Noise.
	Phi   float64
	Noise NoiseReading
	// Ridge is added to a class covariance with no more points than dimensions (or
	// numerically singular); 0 means DefaultRidgeScale·tr(S₀)/k for that class
	// (DefaultRidgeScale if the trace is 0).
	Ridge float64
	// PMin clamps target probabilities from below for KL(f_w ‖ p̃) (0: 10⁻¹²).
	PMin float64
	// IgnoreRepeats serves a request that names a record deleted before, or twice, by
	// ignoring those records, as the paper does; by default such a request is refused.
	IgnoreRepeats bool
}

// ErrAlreadyDeleted refuses a request naming a record deleted in an earlier round.
var ErrAlreadyDeleted = errors.New("record already deleted")

// A Request is one round's deletions: the records (rows of D₀) with their features and
// labels. It is all SAFE reads after New.
type Request struct {
	Rows []int
	X    [][]float64
	Y    []int
}

// RequestOf gathers the rows of data into a Request.
func RequestOf(data *multiclass.Data, rows []int) Request {
	req := Request{Rows: slices.Clone(rows)}
	for _, i := range rows {
		req.X = append(req.X, data.Row(i))
		req.Y = append(req.Y, data.Y[i])
	}
	return req
}

// forgotten is a deleted point as SAFE keeps it: its class, its standardised projected
// features under every class's map, and the original model's log-probabilities.
type forgotten struct {
	row    int
	x      []float64
	y      int
	z      [][]float64 // z[c]: under class c's map
	logF0  []float64
	target []float64 // the cached p̃ (CacheQ)
}

// Unlearner is SAFE (Algorithm 1) in the canonical form of spec safe §2.1: every round
// takes one normalised step from the original model w₀ along the gradient, at w₀, of a
// surrogate of the retrained model's risk — a retention term kept by a recursion over the
// deleted points' gradients, and a forgetting term pulling the prediction at every deleted
// point toward an estimate of the retrained model's, from label proportions and
// class-conditional Gaussian densities in a random projection — plus optional noise. It
// reads the training data once, in New, and keeps no reference to it: after that it sees
// only the requests.
type Unlearner struct {
	cfg     Config
	m       multiclass.Network
	w0      []float64
	classes int
	n0, rem int
	n0c     []int
	gRet    []float64 // ∇R_t^ret(w₀) by the recursion
	sumF    []float64 // Σ_{F≤t} ∇ℓ(w₀)
	proj    *mat.Dense
	maps    []affineMap // per class (all equal for Global)
	g0, gt  []gaussian
	ridge   []float64
	d0      []*density // the t = 0 densities, fixed
	forgot  []forgotten
	deleted map[int]bool
	gamma   float64
	bound   float64 // W
	rounds  int
	noise   *rand.Rand
	// the last round's gradients, for the tests and the audit
	lastRet, lastFg []float64
	ridgedAtStart   []int
}

// affineMap is z = B(u − a) for projected features u = Vᵀx.
type affineMap struct {
	a []float64
	b *mat.Dense
}

func (am affineMap) apply(u []float64) []float64 {
	k := len(u)
	c := make([]float64, k)
	for j := range k {
		c[j] = u[j] - am.a[j]
	}
	if am.b == nil {
		return c
	}
	out := mat.NewVecDense(k, nil)
	out.MulVec(am.b, mat.NewVecDense(k, c))
	return out.RawVector().Data
}

// New precomputes SAFE's state from the original model w₀ (copied) and its training data
// D₀ — the one time D₀ is read: the mean gradient at w₀, the class counts, the projection
// V (drawn from r) and the class Gaussians. r also draws each round's noise.
func New(ctx context.Context, m multiclass.Network, data *multiclass.Data, w0 []float64, cfg Config, r *rand.Rand) (*Unlearner, error) {
	n := data.Len()
	p := m.Inputs()
	switch {
	case n == 0:
		return nil, errors.New("safe: no training data")
	case len(w0) != m.Dim():
		return nil, fmt.Errorf("safe: w0 has %d entries, the model %d parameters", len(w0), m.Dim())
	case data.X.RawMatrix().Cols != p:
		return nil, fmt.Errorf("safe: the data have %d features, the model takes %d", data.X.RawMatrix().Cols, p)
	case cfg.T < 1:
		return nil, fmt.Errorf("safe: horizon T = %d; want at least 1 round", cfg.T)
	case cfg.Gamma <= 0 && !(cfg.K > 0):
		return nil, fmt.Errorf("safe: K = %v; want K > 0 (or a step γ)", cfg.K)
	case cfg.Lambda < 0 || math.IsInf(cfg.Lambda, 0) || math.IsNaN(cfg.Lambda):
		return nil, fmt.Errorf("safe: λ = %v; want a finite λ ≥ 0", cfg.Lambda)
	case cfg.Phi < 0:
		return nil, fmt.Errorf("safe: φ = %v; want φ ≥ 0", cfg.Phi)
	case cfg.Proj < 0 || cfg.Proj > p:
		return nil, fmt.Errorf("safe: projection dimension %d; want 0 (the default) to %d", cfg.Proj, p)
	}
	cfg.Proj = cfg.ProjDim(p)
	if cfg.PMin == 0 {
		cfg.PMin = 1e-12
	}
	k, C, d := cfg.Proj, m.Classes(), m.Dim()
	u := &Unlearner{cfg: cfg, m: m, w0: slices.Clone(w0), classes: C, n0: n, rem: n, n0c: make([]int, C),
		gRet: make([]float64, d), sumF: make([]float64, d), deleted: map[int]bool{}, noise: r}
	u.bound = cfg.W
	if u.bound == 0 {
		u.bound = floats.Norm(w0, 2)
	}
	u.gamma = cfg.Gamma
	if u.gamma <= 0 {
		u.gamma = Gamma(u.bound, cfg.K, cfg.T)
	}
	// step 0.1: the mean gradient on D₀ at w₀
	tmp := make([]float64, d)
	for i := range n {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		m.Gradient(tmp, w0, data.Row(i), data.Y[i])
		floats.Add(u.gRet, tmp)
		u.n0c[data.Y[i]]++
	}
	floats.Scale(1/float64(n), u.gRet)
	// step 0.3: V with iid N(0, 1) entries, the projected features, the fixed maps
	u.proj = mat.NewDense(p, k, nil)
	for j := range p * k {
		u.proj.RawMatrix().Data[j] = r.NormFloat64()
	}
	proj := make([][]float64, n)
	for i := range n {
		proj[i] = u.project(data.Row(i))
	}
	byClass := make([][][]float64, C)
	for i, v := range proj {
		byClass[data.Y[i]] = append(byClass[data.Y[i]], v)
	}
	var err error
	if u.maps, err = standardiser(cfg.Standardize, proj, byClass, k); err != nil {
		return nil, fmt.Errorf("safe: %w", err)
	}
	// step 0.4: the class Gaussians at t = 0, in each class's map
	u.g0, u.gt, u.ridge, u.d0 = make([]gaussian, C), make([]gaussian, C), make([]float64, C), make([]*density, C)
	for c := range C {
		zs := make([][]float64, len(byClass[c]))
		for j, v := range byClass[c] {
			zs[j] = u.maps[c].apply(v)
		}
		u.g0[c] = newGaussian(zs, k)
		u.gt[c] = u.g0[c].clone()
		u.ridge[c] = cfg.Ridge
		if u.ridge[c] == 0 {
			tr := 0.0
			for j := range k {
				tr += u.g0[c].cov.At(j, j)
			}
			u.ridge[c] = DefaultRidgeScale * tr / float64(k)
			if u.ridge[c] == 0 {
				u.ridge[c] = DefaultRidgeScale
			}
		}
		if u.g0[c].n > 0 {
			if u.d0[c], err = newDensity(u.g0[c], u.ridge[c]); err != nil {
				return nil, fmt.Errorf("safe: class %d at t = 0: %w", c, err)
			}
			if u.d0[c].ridged {
				u.ridgedAtStart = append(u.ridgedAtStart, c)
			}
		}
	}
	return u, nil
}

// standardiser builds each class's map from D₀'s projected features.
func standardiser(kind Standardize, all []([]float64), byClass [][][]float64, k int) ([]affineMap, error) {
	maps := make([]affineMap, len(byClass))
	whiten := func(us [][]float64) (affineMap, error) {
		g := newGaussian(us, k)
		if g.n < 2 {
			return affineMap{a: g.mean}, nil // too few points to whiten: centre only
		}
		var eig mat.EigenSym
		if !eig.Factorize(g.cov, true) {
			return affineMap{}, errors.New("the projected features' covariance: eigenvalues did not converge")
		}
		vals := eig.Values(nil)
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		top := vals[len(vals)-1]
		// B = Σ^{-1/2} on the eigenbasis, directions below 10⁻¹²·top left unscaled
		scale := mat.NewDiagDense(k, nil)
		for j, v := range vals {
			if v > 1e-12*top && v > 0 {
				scale.SetDiag(j, 1/math.Sqrt(v))
			} else {
				scale.SetDiag(j, 1)
			}
		}
		var b mat.Dense
		b.Product(&vecs, scale, vecs.T())
		return affineMap{a: g.mean, b: &b}, nil
	}
	switch kind {
	case NoStandardize:
		for c := range maps {
			maps[c] = affineMap{a: make([]float64, k)}
		}
	case Global:
		am, err := whiten(all)
		if err != nil {
			return nil, err
		}
		for c := range maps {
			maps[c] = am
		}
	case PerClassMap:
		for c, us := range byClass {
			am, err := whiten(us)
			if err != nil {
				return nil, fmt.Errorf("class %d: %w", c, err)
			}
			maps[c] = am
		}
	default:
		return nil, fmt.Errorf("standardisation %d unknown", kind)
	}
	return maps, nil
}

// project is u = Vᵀx.
func (u *Unlearner) project(x []float64) []float64 {
	var out mat.VecDense
	out.MulVec(u.proj.T(), mat.NewVecDense(len(x), slices.Clone(x)))
	return out.RawVector().Data
}

// Gamma is the step γ = √W/(K√T) of Theorem 2.
func Gamma(W, K float64, T int) float64 { return math.Sqrt(W) / (K * math.Sqrt(float64(T))) }

// Result is what one round did.
type Result struct {
	Round int
	// W is the published model w_t = w₀ − γ·g_t/‖g_t‖ − b_t.
	W []float64
	// Removed are the records this round deleted; Ignored those it passed over
	// (IgnoreRepeats only).
	Removed, Ignored []int
	// GradNorm is ‖g_t‖; Sigma the noise's standard deviation.
	GradNorm, Sigma float64
	// Clamped counts target probabilities raised to PMin this round; Ridged lists the
	// classes whose covariance needed the ridge, Extinct those with no record left.
	Clamped         int
	Ridged, Extinct []int
}

// Round serves one request. A record named twice within it counts once; a record deleted
// in an earlier round, or out of range, refuses the whole request with the state unchanged
// (unless Config.IgnoreRepeats); deleting every record left is an error.
func (u *Unlearner) Round(ctx context.Context, req Request) (Result, error) {
	res := Result{Round: u.rounds + 1}
	if u.rounds >= u.cfg.T {
		return res, fmt.Errorf("safe: round %d is beyond the horizon T = %d that the step γ was set for", u.rounds+1, u.cfg.T)
	}
	if len(req.X) != len(req.Rows) || len(req.Y) != len(req.Rows) {
		return res, fmt.Errorf("safe: the request names %d rows with %d feature rows and %d labels", len(req.Rows), len(req.X), len(req.Y))
	}
	seen := map[int]bool{}
	var take []int // indices into the request
	for j, row := range req.Rows {
		switch {
		case row < 0 || row >= u.n0:
			if !u.cfg.IgnoreRepeats {
				return res, fmt.Errorf("safe: row %d is not in the training data (%d rows)", row, u.n0)
			}
			res.Ignored = append(res.Ignored, row)
		case u.deleted[row]:
			if !u.cfg.IgnoreRepeats {
				return res, fmt.Errorf("safe: row %d: %w", row, ErrAlreadyDeleted)
			}
			res.Ignored = append(res.Ignored, row)
		case seen[row]:
		default:
			if y := req.Y[j]; y < 0 || y >= u.classes || len(req.X[j]) != u.m.Inputs() {
				return res, fmt.Errorf("safe: row %d has label %d and %d features; want a label in 0 … %d and %d features", row, y, len(req.X[j]), u.classes-1, u.m.Inputs())
			}
			seen[row] = true
			take = append(take, j)
		}
	}
	if len(take) >= u.rem {
		return res, fmt.Errorf("safe: the request would delete the %d records left: the retention term is then undefined", u.rem)
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	// step 2: the retention recursion (Eq. 15)
	d := u.m.Dim()
	mt := len(take)
	if mt > 0 {
		sum, tmp := make([]float64, d), make([]float64, d)
		for _, j := range take {
			u.m.Gradient(tmp, u.w0, req.X[j], req.Y[j])
			floats.Add(sum, tmp)
		}
		n, n2 := float64(u.rem), float64(u.rem-mt)
		floats.Scale(n/n2, u.gRet)
		floats.AddScaled(u.gRet, -1/n2, sum)
		floats.Add(u.sumF, sum)
		u.rem -= mt
	}
	// step 3: the class Gaussians, and the new points' standing
	byClass := make([][][]float64, u.classes)
	for _, j := range take {
		x, y := req.X[j], req.Y[j]
		pu := u.project(x)
		f := forgotten{row: req.Rows[j], x: slices.Clone(x), y: y, z: make([][]float64, u.classes), logF0: make([]float64, u.classes)}
		for c := range u.classes {
			f.z[c] = u.maps[c].apply(pu)
		}
		z := make([]float64, u.classes)
		u.m.Logits(z, u.w0, x)
		lse := multiclass.LogSumExp(z)
		for c := range z {
			f.logF0[c] = z[c] - lse
		}
		byClass[y] = append(byClass[y], f.z[y])
		u.forgot = append(u.forgot, f)
		u.deleted[f.row] = true
		res.Removed = append(res.Removed, f.row)
	}
	for c, zs := range byClass {
		u.gt[c].remove(zs, u.cfg.Covariance)
	}
	dens, ridged, err := u.densities()
	if err != nil {
		return res, err
	}
	res.Ridged = ridged
	for c := range u.classes {
		if u.gt[c].n == 0 {
			res.Extinct = append(res.Extinct, c)
		}
	}
	// steps 4–5: targets and the forgetting gradient (Eq. 24–26)
	gFg := make([]float64, d)
	if u.cfg.Ablation != NoDS && u.cfg.Lambda > 0 && len(u.forgot) > 0 {
		gz, tmp := make([]float64, u.classes), make([]float64, d)
		for i := range u.forgot {
			f := &u.forgot[i]
			if f.target == nil || !u.cfg.CacheQ {
				t, clamped := u.target(f, dens)
				res.Clamped += clamped
				f.target = t
			}
			u.klLogitGradient(gz, f)
			u.m.BackLogits(tmp, u.w0, f.x, gz)
			floats.Add(gFg, tmp)
		}
		floats.Scale(u.cfg.Lambda/float64(len(u.forgot)), gFg)
	} else {
		for i := range u.forgot { // keep the targets current for Targets
			if u.forgot[i].target == nil || !u.cfg.CacheQ {
				var clamped int
				u.forgot[i].target, clamped = u.target(&u.forgot[i], dens)
				res.Clamped += clamped
			}
		}
	}
	ret := slices.Clone(u.gRet)
	switch u.cfg.Ablation {
	case NoTR:
		ret = slices.Clone(u.sumF)
		floats.Scale(-1/float64(u.rem), ret)
	case NoRetention:
		clear(ret)
	}
	u.lastRet, u.lastFg = ret, gFg
	// steps 6–8: the normalised step from w₀ and the noise
	g := make([]float64, d)
	floats.AddTo(g, ret, gFg)
	res.GradNorm = floats.Norm(g, 2)
	w := slices.Clone(u.w0)
	if res.GradNorm >= 1e-300 {
		floats.AddScaled(w, -u.gamma/res.GradNorm, g)
	}
	res.Sigma = u.cfg.Phi
	if u.cfg.Noise == PhiIsVariance {
		res.Sigma = math.Sqrt(u.cfg.Phi)
	}
	if res.Sigma > 0 {
		for j := range w {
			w[j] += res.Sigma * u.noise.NormFloat64()
		}
	}
	u.rounds++
	res.W = w
	return res, nil
}

// densities factorises every class's current Gaussian (nil for an extinct class) and lists
// the ones that needed a ridge.
func (u *Unlearner) densities() ([]*density, []int, error) {
	out := make([]*density, u.classes)
	var ridged []int
	for c := range u.classes {
		if u.gt[c].n == 0 {
			continue
		}
		var err error
		if out[c], err = newDensity(u.gt[c], u.ridge[c]); err != nil {
			return nil, nil, fmt.Errorf("safe: class %d: %w", c, err)
		}
		if out[c].ridged {
			ridged = append(ridged, c)
		}
	}
	return out, ridged, nil
}

// logQ is log q_t(c) = log r_t(c) + log ρ_t(c) for one point and class: the label ratio
// (n_t(c)/n₀(c))·(N₀/|D_t|) and the Gaussian density ratio; −Inf for an extinct class. A
// class untouched since t = 0 has ρ = 1 exactly.
func (u *Unlearner) logQ(f *forgotten, c int, dens []*density) float64 {
	if u.gt[c].n == 0 {
		return math.Inf(-1)
	}
	lq := math.Log(float64(u.gt[c].n)/float64(u.n0c[c])) + math.Log(float64(u.n0)/float64(u.rem))
	if u.gt[c].n != u.g0[c].n {
		lq += dens[c].logPDF(f.z[c]) - u.d0[c].logPDF(f.z[c])
	}
	return lq
}

// target is p̃_t(·|x) for a deleted point under the QMode, and how many entries were
// clamped to PMin (ModelToTarget needs p̃ > 0 where f > 0). LiteralScalar's target is
// q_t(y)·f(x; w₀), unnormalised.
func (u *Unlearner) target(f *forgotten, dens []*density) ([]float64, int) {
	C := u.classes
	lp := make([]float64, C) // log of the unnormalised target
	switch u.cfg.Q {
	case PerClass:
		for c := range C {
			lp[c] = u.logQ(f, c, dens) + f.logF0[c]
		}
	case OwnLabelOnly:
		copy(lp, f.logF0)
		lp[f.y] += u.logQ(f, f.y, dens)
	case LiteralScalar:
		q := u.logQ(f, f.y, dens)
		out := make([]float64, C)
		for c := range C {
			out[c] = fexp.Exp(q + f.logF0[c])
		}
		return out, 0
	}
	lse := multiclass.LogSumExp(lp)
	out := make([]float64, C)
	sum := 0.0
	for c := range C {
		out[c] = fexp.Exp(lp[c] - lse)
		sum += out[c]
	}
	// lse is top + log s: for a far-off point the log-densities are ~1e5 and top's last
	// bit alone is ~1e-11, which exp(lp − lse) carries into the sum. The target is a
	// distribution: renormalised then (and only then, so that ordinary targets keep the
	// bits they always had).
	if math.Abs(sum-1) > 8*float64(C)*0x1p-53 {
		for c := range C {
			out[c] /= sum
		}
	}
	clamped := 0
	for c := range C {
		if u.cfg.KL == ModelToTarget && out[c] < u.cfg.PMin {
			out[c] = u.cfg.PMin
			clamped++
		}
	}
	return out, clamped
}

// klLogitGradient sets gz to the gradient in the logits, at w₀, of the point's divergence
// from its target: f ⊙ (a − ⟨f, a⟩) with a = log f − log p̃ for KL(f_w ‖ p̃), and
// (Σp̃)·f − p̃ for KL(p̃ ‖ f_w) (Σp̃ = 1 unless the target is LiteralScalar's).
func (u *Unlearner) klLogitGradient(gz []float64, f *forgotten) {
	C := u.classes
	if u.cfg.KL == TargetToModel {
		s := floats.Sum(f.target)
		for c := range C {
			gz[c] = s*fexp.Exp(f.logF0[c]) - f.target[c]
		}
		return
	}
	mean := 0.0
	a := make([]float64, C)
	for c := range C {
		if u.cfg.Q == LiteralScalar {
			// log f − log(q·f) = −log q for every class, and f ⊙ (a − ⟨f, a⟩) does not
			// change when a constant is added to a (Σf = 1): a shifted by log q is 0. Read
			// through exp and log instead, a far-off point's q·f is a subnormal whose log
			// has lost the digits that cancel (I12 failed at 3.4e-3).
			a[c] = 0
			continue
		}
		a[c] = f.logF0[c] - math.Log(f.target[c])
		mean += fexp.Exp(f.logF0[c]) * a[c]
	}
	for c := range C {
		gz[c] = fexp.Exp(f.logF0[c]) * (a[c] - mean)
	}
}

// Gamma is the step γ this unlearner takes; Bound the W it was computed from.
func (u *Unlearner) Gamma() float64 { return u.gamma }
func (u *Unlearner) Bound() float64 { return u.bound }

// Rounds is how many rounds were served; Remaining how many records are left.
func (u *Unlearner) Rounds() int    { return u.rounds }
func (u *Unlearner) Remaining() int { return u.rem }

// Original is w₀ (a copy).
func (u *Unlearner) Original() []float64 { return slices.Clone(u.w0) }

// RetentionGradient is ∇R_t^ret(w₀) as the recursion holds it (a copy): the mean gradient
// over the records left, never computed from them.
func (u *Unlearner) RetentionGradient() []float64 { return slices.Clone(u.gRet) }

// LastGradients are the last round's retention and forgetting gradients at w₀, after the
// ablation (copies).
func (u *Unlearner) LastGradients() (retention, forgetting []float64) {
	return slices.Clone(u.lastRet), slices.Clone(u.lastFg)
}

// Deleted are the deleted records in the order they were deleted.
func (u *Unlearner) Deleted() []int {
	out := make([]int, len(u.forgot))
	for i, f := range u.forgot {
		out[i] = f.row
	}
	return out
}

// Targets are the current targets p̃_t(·|x) of the deleted points, in Deleted's order
// (copies).
func (u *Unlearner) Targets() [][]float64 {
	out := make([][]float64, len(u.forgot))
	for i, f := range u.forgot {
		out[i] = slices.Clone(f.target)
	}
	return out
}

// ClassGaussian is class c's count, mean and unbiased covariance now (t) or at t = 0, in
// that class's standardised projection (copies).
func (u *Unlearner) ClassGaussian(c int, now bool) (n int, mean []float64, cov *mat.SymDense) {
	g := u.g0[c]
	if now {
		g = u.gt[c]
	}
	g = g.clone()
	return g.n, g.mean, g.cov
}

// Standardized maps a point's features into class c's standardised projection.
func (u *Unlearner) Standardized(c int, x []float64) []float64 { return u.maps[c].apply(u.project(x)) }

// LabelRatios are r_t(c) = (n_t(c)/n₀(c))·(N₀/|D_t|) (Eq. 20), 0 for an extinct class.
func (u *Unlearner) LabelRatios() []float64 {
	out := make([]float64, u.classes)
	for c := range u.classes {
		if u.n0c[c] > 0 {
			out[c] = float64(u.gt[c].n) / float64(u.n0c[c]) * float64(u.n0) / float64(u.rem)
		}
	}
	return out
}

// RidgedAtStart lists the classes whose D₀ covariance already needed the ridge (no more
// points than projected dimensions, or singular): their density ratios are regularised
// from the start (spec E8).
func (u *Unlearner) RidgedAtStart() []int { return slices.Clone(u.ridgedAtStart) }

// RidgeAmplification is how much more than at full rank the targets, and so the model,
// amplify rounding in the class statistics once left[c] records of each class c are left:
// 1 where no class left has more than none and no more than the projection's k records,
// else what SAFE's ridge makes of such a class. Two orders of deletion that reach the same
// records downdate a class's covariance in different steps, each rounding at about 2⁻⁵³ of
// the class's scale tr(Σ₀)/k; a class down to k records or fewer is singular and ridged,
// its near-null directions have variance ridge alone, so their relative error, and the
// Mahalanobis distances and targets read through them, are tr(Σ₀)/(k·ridge) times larger:
// 1/DefaultRidgeScale = 10⁶ at the default ridge, the largest ridged class's ratio for an
// explicit Config.Ridge. A test of path independence (I7) widens its tolerance by it.
func (u *Unlearner) RidgeAmplification(left []int) float64 {
	k := u.cfg.ProjDim(u.m.Inputs())
	worst := 1.0
	for c, n := range left {
		if n <= 0 || n > k {
			continue
		}
		if u.cfg.Ridge == 0 { // the default ridge, DefaultRidgeScale·tr(Σ₀)/k
			return 1 / DefaultRidgeScale
		}
		worst = max(worst, mat.Trace(u.g0[c].cov)/(float64(k)*u.cfg.Ridge))
	}
	return worst
}
