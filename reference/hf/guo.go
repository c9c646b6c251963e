package hf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// GuoBound selects the data-dependent bound on a Newton removal's gradient residual that
// Guo's mechanism accumulates against its budget.
type GuoBound int

const (
	// GuoIntegral is the bound from the integral form of the Taylor remainder,
	// (1/(2√2))·‖X̃‖₂·(Σ_i ‖δ_i‖⁴)^{1/2}, with δ_i the step's change of row i's logits.
	GuoIntegral GuoBound = iota
	// GuoPrinted is the shape of Guo et al.'s Corollary 1, γ‖X‖₂‖Δw‖‖XΔw‖ (γ = ¼ for binary
	// logistic on rows of norm ≤ 1), carried to softmax: (1/√2)·‖X̃‖₂·max_i‖x̃_i‖·‖Δw‖·‖Δ_Z‖_F.
	// It is at least twice GuoIntegral.
	GuoPrinted
)

func (b GuoBound) String() string {
	if b == GuoPrinted {
		return "printed"
	}
	return "integral"
}

// GuoConfig configures Guo et al.'s certified removal on softmax regression.
type GuoConfig struct {
	Model multiclass.Softmax
	// Sigma is the standard deviation of each entry of the loss perturbation b.
	Sigma float64
	// Epsilon and Delta are the certificate the budget is for (GuoBudget).
	Epsilon, Delta float64
	Bound          GuoBound
	// Tol is the training minimiser's gradient tolerance (0: multiclass.Minimize's
	// default, a mean gradient of 1e-10); SolveTol each Newton step's relative
	// conjugate-gradient tolerance (0: 1e-12). Both residuals are charged to the budget.
	Tol, SolveTol float64
	// Initial is the first training's b (copied); nil draws it from the random source. A
	// retraining always draws a fresh one.
	Initial []float64
}

// GuoConstant is c = √(2 ln(1.5/δ)) of Guo et al.'s Theorem 3: with b ~ N(0, (cβ/ε)²I),
// a removal whose gradient residual is at most β is (ε, δ)-certified.
func GuoConstant(delta float64) float64 { return math.Sqrt(2 * math.Log(1.5/delta)) }

// GuoBudget is the gradient-residual budget σε/c that b ~ N(0, σ²I) pays for at (ε, δ)
// (Guo et al. 2020, Theorem 3); a removal past it retrains.
func GuoBudget(sigma, epsilon, delta float64) (float64, error) {
	if !(sigma > 0) || !(epsilon > 0) || !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("guo budget: σ = %v, ε = %v, δ = %v; want σ > 0, ε > 0 and δ in (0, 1)", sigma, epsilon, delta)
	}
	return sigma * epsilon / GuoConstant(delta), nil
}

// GuoEpsilon is the ε Theorem 3 states for a residual bound β at σ and δ: c·β/σ.
func GuoEpsilon(beta, sigma, delta float64) float64 { return GuoConstant(delta) * beta / sigma }

// softmaxJacobianLipschitz bounds how fast the softmax Jacobian J(z) = diag(π) − ππᵀ moves:
// ‖J(z + v) − J(z)‖₂ ≤ ‖v‖₂/√2. The derivative along v is the third cumulant of the
// one-hot label under π, xᵀ(DJ[v])x = E[A²B] with A = x_Y − E x_Y, B = v_Y − E v_Y, so
// |xᵀ(DJ[v])x| ≤ Var(x_Y)·max|B| ≤ (‖x‖²/2)·(√2‖v‖) by Popoviciu's inequality.
const softmaxJacobianLipschitz = 1 / math.Sqrt2

// Guo is certified removal by a Newton step (Guo, Goldstein, Hannun, van der Maaten, ICML
// 2020) on L2-regularised softmax regression. Training minimises the perturbed loss
// L_b(w; D) = Σ_i ℓ(w; z_i) + bᵀw exactly, b ~ N(0, σ²I). A request U takes one Newton
// step on the records left, w ← w + H⁻¹Δ with H = ∇²L(w; D \ U) and Δ = Σ_{u∈U} ∇ℓ(w; u),
// so that w is the exact minimiser of L_{b−r}(D \ U) for a gradient residual r; the
// density of b against b − r is what the certificate bounds. The residual is never
// released: a data-dependent bound on it (Corollary 1's, for softmax: see GuoBound) is
// added up over requests, and when the sum would pass the budget σε/c the model is
// retrained from scratch with a fresh b. Unlike the paper, the sum also charges the
// solvers' own residuals (training's ‖∇L_b‖ and each step's ‖HΔw − Δ‖), which its
// exact-minimiser assumption sets to zero.
type Guo struct {
	cfg      GuoConfig
	data     *multiclass.Data
	keep     []int // rows not deleted, in order
	deleted  map[int]bool
	b, w     []float64
	xNorm    float64 // ‖X̃‖₂ of every row, X̃ = (X, 1): at least that of any subset
	rowNorm  float64 // max_i ‖x̃_i‖
	budget   float64
	spent    float64
	retrains int
	r        *rand.Rand
}

// NewGuo draws b from r and trains on every row of data; r also draws the fresh b of any
// retraining.
func NewGuo(ctx context.Context, cfg GuoConfig, data *multiclass.Data, r *rand.Rand) (*Guo, error) {
	if !(cfg.Model.Lambda > 0) {
		return nil, fmt.Errorf("hf guo: λ = %v; the Newton removal needs a strongly convex loss, λ > 0", cfg.Model.Lambda)
	}
	if cfg.Model.P != data.X.RawMatrix().Cols {
		return nil, fmt.Errorf("hf guo: the model takes %d inputs, the data have %d features", cfg.Model.P, data.X.RawMatrix().Cols)
	}
	budget, err := GuoBudget(cfg.Sigma, cfg.Epsilon, cfg.Delta)
	if err != nil {
		return nil, fmt.Errorf("hf guo: %w", err)
	}
	if cfg.Initial != nil && len(cfg.Initial) != cfg.Model.Dim() {
		return nil, fmt.Errorf("hf guo: the initial b has %d entries, the model %d parameters", len(cfg.Initial), cfg.Model.Dim())
	}
	if cfg.SolveTol <= 0 {
		cfg.SolveTol = 1e-12
	}
	g := &Guo{cfg: cfg, data: data, deleted: map[int]bool{}, budget: budget, r: r}
	for i := range data.Len() {
		g.keep = append(g.keep, i)
		g.rowNorm = math.Max(g.rowNorm, math.Sqrt(floats.Dot(data.Row(i), data.Row(i))+1))
	}
	if g.xNorm, err = spectralNorm(data); err != nil {
		return nil, fmt.Errorf("hf guo: %w", err)
	}
	if err := g.train(ctx); err != nil {
		return nil, err
	}
	return g, nil
}

// spectralNorm is ‖X̃‖₂, X̃ = (X, 1), from the largest eigenvalue of the (p+1)² Gram matrix.
func spectralNorm(data *multiclass.Data) (float64, error) {
	n, p := data.X.Dims()
	xt := mat.NewDense(n, p+1, nil)
	for i := range n {
		copy(xt.RawRowView(i), data.Row(i))
		xt.Set(i, p, 1)
	}
	gram := mat.NewSymDense(p+1, nil)
	gram.SymOuterK(1, xt.T())
	var eig mat.EigenSym
	if !eig.Factorize(gram, false) {
		return 0, errors.New("the Gram matrix's eigenvalues did not converge")
	}
	vals := eig.Values(nil)
	return math.Sqrt(math.Max(0, vals[len(vals)-1])), nil
}

// train draws b and minimises L_b over the rows kept; what the minimiser leaves of the
// gradient starts the budget.
func (g *Guo) train(ctx context.Context) error {
	d := g.cfg.Model.Dim()
	g.b = make([]float64, d)
	if g.cfg.Initial != nil {
		copy(g.b, g.cfg.Initial)
		g.cfg.Initial = nil
	} else {
		for j := range g.b {
			g.b[j] = g.cfg.Sigma * g.r.NormFloat64()
		}
	}
	o, err := multiclass.NewObjective(g.cfg.Model, g.data, g.keep, g.b)
	if err != nil {
		return fmt.Errorf("hf guo: %w", err)
	}
	res, err := multiclass.Minimize(ctx, o, nil, multiclass.MinimizeOptions{Tol: g.cfg.Tol})
	if err != nil {
		return fmt.Errorf("hf guo: training: %w", err)
	}
	if res.Residual > g.budget {
		return fmt.Errorf("hf guo: training leaves ‖∇L_b‖ = %.3g, above the whole budget σε/c = %.3g; raise σ or tighten Tol", res.Residual, g.budget)
	}
	g.w, g.spent = res.W, res.Residual
	return nil
}

// GuoRemoval is what one request cost the certificate.
type GuoRemoval struct {
	Rows []int
	// Integral and Printed are the two forms of the bound on the Newton step's remainder
	// (GuoBound); Solve is ‖HΔw − Δ‖ left by conjugate gradients. The configured form plus
	// Solve is added to the budget spent.
	Integral, Printed, Solve float64
	// Spent bounds ‖∇L_b(w; D')‖ after the request: Spent·c/σ is the ε it certifies.
	Spent float64
	// Retrained says the request would have passed the budget, so the model was retrained
	// from scratch on the records left with a fresh b, and Spent restarted at training's
	// residual.
	Retrained bool
	// Products counts the Newton step's Hessian–vector products.
	Products int
}

// Delete serves one request: the rows leave the data (a row named twice in one request
// counts once; a row deleted before is refused, and so is deleting every row).
func (g *Guo) Delete(ctx context.Context, rows ...int) (GuoRemoval, error) {
	var out GuoRemoval
	seen := map[int]bool{}
	for _, u := range rows {
		switch {
		case u < 0 || u >= g.data.Len():
			return out, fmt.Errorf("hf guo: row %d is not in the data (%d rows)", u, g.data.Len())
		case g.deleted[u]:
			return out, fmt.Errorf("hf guo: row %d: %w", u, ErrAlreadyDeleted)
		case !seen[u]:
			seen[u] = true
			out.Rows = append(out.Rows, u)
		}
	}
	if len(out.Rows) == 0 {
		out.Spent = g.spent
		return out, nil
	}
	if len(g.keep) == len(out.Rows) {
		return out, errors.New("hf guo: the request would delete every row left; there is nothing to retrain on")
	}
	keep := slices.DeleteFunc(slices.Clone(g.keep), func(i int) bool { return seen[i] })
	m := g.cfg.Model
	d := m.Dim()
	delta, tmp := make([]float64, d), make([]float64, d)
	for _, u := range out.Rows {
		m.Gradient(tmp, g.w, g.data.Row(u), g.data.Y[u])
		floats.Add(delta, tmp)
	}
	o, err := multiclass.NewObjective(m, g.data, keep, g.b)
	if err != nil {
		return out, fmt.Errorf("hf guo: %w", err)
	}
	step, products, err := o.Solve(ctx, g.w, delta, g.cfg.SolveTol)
	out.Products = products
	if err != nil {
		return out, fmt.Errorf("hf guo: Newton step: %w", err)
	}
	o.HVP(tmp, g.w, step)
	out.Solve = floats.Distance(tmp, delta, 2)
	out.Integral, out.Printed = g.remainderBounds(keep, step)
	inc := out.Integral
	if g.cfg.Bound == GuoPrinted {
		inc = out.Printed
	}
	for _, u := range out.Rows {
		g.deleted[u] = true
	}
	g.keep = keep
	if g.spent+inc+out.Solve > g.budget {
		if err := g.train(ctx); err != nil {
			return out, err
		}
		g.retrains++
		out.Retrained, out.Spent = true, g.spent
		return out, nil
	}
	floats.Add(g.w, step)
	g.spent += inc + out.Solve
	out.Spent = g.spent
	return out, nil
}

// remainderBounds bounds ‖∇L(w + Δw) − ∇L(w) − HΔw‖ over the rows kept in both forms. Row
// i's logits move by δ_i = ΔW x_i + Δb; its gradient term is (π_i − e_y) x̃_iᵀ, and
// π(z + δ) − π(z) − J(z)δ = ∫₀¹ (J(z + tδ) − J(z))δ dt has norm at most L_J‖δ‖²/2
// (softmaxJacobianLipschitz). Stacking the rows, ‖Σ_i ρ_i x̃_iᵀ‖_F ≤ ‖X̃‖₂·‖R‖_F.
func (g *Guo) remainderBounds(keep []int, step []float64) (integral, printed float64) {
	m := g.cfg.Model
	z := make([]float64, m.K)
	quartic, square := 0.0, 0.0
	for _, i := range keep {
		x := g.data.Row(i)
		s := 0.0
		for k := range m.K {
			z[k] = step[m.K*m.P+k] + floats.Dot(step[k*m.P:(k+1)*m.P], x)
			s += z[k] * z[k]
		}
		quartic += s * s
		square += s
	}
	integral = softmaxJacobianLipschitz / 2 * g.xNorm * math.Sqrt(quartic)
	printed = softmaxJacobianLipschitz * g.xNorm * g.rowNorm * floats.Norm(step, 2) * math.Sqrt(square)
	return integral, printed
}

// Model is the current model (a copy): the published one, its randomness inside b.
func (g *Guo) Model() []float64 { return slices.Clone(g.w) }

// Perturbation is the current b (a copy): the exact minimiser of L_b on the rows left is
// what the model is within Spent/(λ·rows) of.
func (g *Guo) Perturbation() []float64 { return slices.Clone(g.b) }

// Remaining are the rows not deleted (a copy).
func (g *Guo) Remaining() []int { return slices.Clone(g.keep) }

// Spent is the bound on ‖∇L_b(w; D')‖ accumulated since the last training; Budget the
// most it may reach; Retrains how often the budget forced a retraining.
func (g *Guo) Spent() float64  { return g.spent }
func (g *Guo) Budget() float64 { return g.budget }
func (g *Guo) Retrains() int   { return g.retrains }

// Epsilon is the ε Theorem 3 certifies for the budget spent so far.
func (g *Guo) Epsilon() float64 { return GuoEpsilon(g.spent, g.cfg.Sigma, g.cfg.Delta) }

// Residual measures ‖∇L_b(w; D')‖ — what Spent bounds — through an Objective; the
// mechanism never releases it.
func (g *Guo) Residual() (float64, error) {
	o, err := multiclass.NewObjective(g.cfg.Model, g.data, g.keep, g.b)
	if err != nil {
		return 0, err
	}
	grad := make([]float64, g.cfg.Model.Dim())
	o.Gradient(grad, g.w)
	return floats.Norm(grad, 2), nil
}

// Exact is the retraining oracle Guo's removal approximates: argmin L_b on the rows left,
// with the same b.
func (g *Guo) Exact(ctx context.Context, opt multiclass.MinimizeOptions) (multiclass.MinimizeResult, error) {
	o, err := multiclass.NewObjective(g.cfg.Model, g.data, g.keep, g.b)
	if err != nil {
		return multiclass.MinimizeResult{}, err
	}
	return multiclass.Minimize(ctx, o, g.w, opt)
}
