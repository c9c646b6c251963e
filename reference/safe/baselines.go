package safe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
)

// A Streamer serves one deletion request per round and publishes a model after each: SAFE
// and every baseline of the paper's comparison (spec safe §2.5).
type Streamer interface {
	// Name is the method's name in reports ("SAFE", "Retrain", "Unroll", …).
	Name() string
	// Round serves the request and returns the published model.
	Round(ctx context.Context, req Request) ([]float64, error)
	// NeedsRemaining says whether the method reads the records left (the paper's Table 1
	// marks the methods that do not).
	NeedsRemaining() bool
}

// Streamer is SAFE as a Streamer.
func (u *Unlearner) Streamer() Streamer { return safeStreamer{u} }

type safeStreamer struct{ u *Unlearner }

func (s safeStreamer) Name() string {
	if s.u.cfg.Ablation != Full {
		return "SAFE " + s.u.cfg.Ablation.String()
	}
	return "SAFE"
}
func (s safeStreamer) NeedsRemaining() bool { return false }
func (s safeStreamer) Round(ctx context.Context, req Request) ([]float64, error) {
	res, err := s.u.Round(ctx, req)
	return res.W, err
}

// A Recipe trains a model from scratch: the original training and every retraining use
// it, with fresh randomness each time.
type Recipe struct {
	Model multiclass.Network
	// Exact minimises the summed loss to its tolerance (multiclass.Minimize), the convex
	// models' retrain whose theory speaks of the minimiser; otherwise Train runs from Init.
	Exact bool
	Train multiclass.TrainConfig
	// Init draws the start (nil: zeros), e.g. multiclass.MLP's Init.
	Init func(w []float64, r *rand.Rand)
}

// Fit trains on rows of data (every row when nil) with randomness from r, from a start
// drawn from r.
func (rc Recipe) Fit(ctx context.Context, data *multiclass.Data, rows []int, r *rand.Rand) ([]float64, error) {
	return rc.FitFrom(ctx, data, rows, rc.Start(r), r)
}

// Start draws the recipe's starting parameters from r (zeros without Init).
func (rc Recipe) Start(r *rand.Rand) []float64 {
	w0 := make([]float64, rc.Model.Dim())
	if rc.Init != nil {
		rc.Init(w0, r)
	}
	return w0
}

// FitFrom trains on rows of data from w0 (copied), with randomness from r.
func (rc Recipe) FitFrom(ctx context.Context, data *multiclass.Data, rows []int, w0 []float64, r *rand.Rand) ([]float64, error) {
	w0 = slices.Clone(w0)
	if rc.Exact {
		o, err := multiclass.NewObjective(rc.Model, data, rows, nil)
		if err != nil {
			return nil, err
		}
		res, err := multiclass.Minimize(ctx, o, w0, multiclass.MinimizeOptions{})
		return res.W, err
	}
	return multiclass.Train(ctx, rc.Model, data, rows, w0, rc.Train, r)
}

// deletions is the bookkeeping every baseline shares: the records deleted so far and the
// rows left, with a request's rows validated as SAFE validates them.
type deletions struct {
	n       int
	deleted map[int]bool
	order   []int // deleted rows, in order
}

func newDeletions(n int) deletions { return deletions{n: n, deleted: map[int]bool{}} }

// take validates the request's rows and records them: a duplicate counts once, a row
// deleted before or out of range refuses the request, as does deleting every row.
func (d *deletions) take(rows []int) ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for _, r := range rows {
		switch {
		case r < 0 || r >= d.n:
			return nil, fmt.Errorf("row %d is not in the training data (%d rows)", r, d.n)
		case d.deleted[r]:
			return nil, fmt.Errorf("row %d: %w", r, ErrAlreadyDeleted)
		case !seen[r]:
			seen[r] = true
			out = append(out, r)
		}
	}
	if len(out) >= d.n-len(d.order) {
		return nil, errors.New("the request would delete every record left")
	}
	for _, r := range out {
		d.deleted[r] = true
	}
	d.order = append(d.order, out...)
	return out, nil
}

// left lists the rows not deleted.
func (d *deletions) left() []int {
	var out []int
	for i := range d.n {
		if !d.deleted[i] {
			out = append(out, i)
		}
	}
	return out
}

// Retrain retrains from scratch on the records left after every round, with the original
// recipe and a fresh random stream per round (Round's seed, so that two runs of one
// stream retrain alike): the reference every method is compared with.
type Retrain struct {
	recipe Recipe
	data   *multiclass.Data
	dels   deletions
	stream func(round int) *rand.Rand
	round  int
}

// NewRetrain makes the retraining reference; stream(t) is round t's randomness.
func NewRetrain(recipe Recipe, data *multiclass.Data, stream func(round int) *rand.Rand) *Retrain {
	return &Retrain{recipe: recipe, data: data, dels: newDeletions(data.Len()), stream: stream}
}

func (*Retrain) Name() string         { return "Retrain" }
func (*Retrain) NeedsRemaining() bool { return true }
func (s *Retrain) Round(ctx context.Context, req Request) ([]float64, error) {
	if _, err := s.dels.take(req.Rows); err != nil {
		return nil, fmt.Errorf("retrain: %w", err)
	}
	s.round++
	w, err := s.recipe.Fit(ctx, s.data, s.dels.left(), s.stream(s.round))
	if err != nil {
		return nil, fmt.Errorf("retrain round %d: %w", s.round, err)
	}
	return w, nil
}

// Unroll is Thudi et al.'s single-gradient unrolling (EuroS&P 2022; spec safe §2.5): the
// original training's first step saw each record's gradient at the initial weights, so a
// deletion adds it back, w ← w + η·Σ_{F_t} ∇ℓ(w_init; x, y), η the training rate. It reads
// no record left.
type Unroll struct {
	m     multiclass.Network
	wInit []float64
	eta   float64
	w     []float64
	dels  deletions
}

// NewUnroll starts from the original model w0 (copied), which was trained from wInit at
// rate eta over n records.
func NewUnroll(m multiclass.Network, w0, wInit []float64, eta float64, n int) *Unroll {
	return &Unroll{m: m, wInit: slices.Clone(wInit), eta: eta, w: slices.Clone(w0), dels: newDeletions(n)}
}

func (*Unroll) Name() string         { return "Unroll" }
func (*Unroll) NeedsRemaining() bool { return false }
func (s *Unroll) Round(ctx context.Context, req Request) ([]float64, error) {
	rows, err := s.dels.take(req.Rows)
	if err != nil {
		return nil, fmt.Errorf("unroll: %w", err)
	}
	todo := map[int]bool{}
	for _, r := range rows {
		todo[r] = true
	}
	tmp := make([]float64, s.m.Dim())
	for j, r := range req.Rows {
		if todo[r] { // a duplicate counts once
			delete(todo, r)
			s.m.Gradient(tmp, s.wInit, req.X[j], req.Y[j])
			floats.AddScaled(s.w, s.eta, tmp)
		}
	}
	return slices.Clone(s.w), nil
}

// CaMUConfig is CaMU's recipe (Shen et al. 2024a; the settings of the authors' repository,
// spec safe §2.5).
type CaMUConfig struct {
	Epochs            int
	ImpairLR, KLLR    float64
	WeightDecay       float64 // Adam's coupled weight decay (1e-4)
	BatchSize         int     // 32
	NoiseScale        float64 // the counterfactual's uniform noise width (1)
	RestartFromOrigin bool    // re-run on F_{≤t} from w₀ each round (B.7's reading) rather than continue
}

// CaMUDefaults are the repository's random-deletion settings for MNIST and Fashion-MNIST.
var CaMUDefaults = CaMUConfig{Epochs: 10, ImpairLR: 5e-4, KLLR: 4e-4, WeightDecay: 1e-4, BatchSize: 32, NoiseScale: 1, RestartFromOrigin: true}

// CaMU is counterfactual unlearning: each forget point is paired with a random record left
// and a counterfactual (the record plus uniform noise, relabelled away from the forget
// point's label); per batch one Adam step on the divergence between the original and new
// models' embeddings (softmax over the embedding) of the record, and of the counterfactual
// against the forget point, then one on 0.9·CE of the record plus 0.01·CE of the forget
// point at the counterfactual's label. For softmax regression the embedding is the input,
// so the first step has no gradient and only the second acts (the spec's caveat). It reads
// the records left.
type CaMU struct {
	cfg  CaMUConfig
	m    multiclass.Network
	data *multiclass.Data
	w0   []float64
	w    []float64
	dels deletions
	r    *rand.Rand
}

// NewCaMU starts from the original model w0 (copied); r draws the pairings, the noise and
// the batch order.
func NewCaMU(m multiclass.Network, data *multiclass.Data, w0 []float64, cfg CaMUConfig, r *rand.Rand) *CaMU {
	return &CaMU{cfg: cfg, m: m, data: data, w0: slices.Clone(w0), w: slices.Clone(w0), dels: newDeletions(data.Len()), r: r}
}

func (*CaMU) Name() string         { return "CaMU" }
func (*CaMU) NeedsRemaining() bool { return true }

// adam is one Adam optimiser's state.
type adam struct {
	m, v []float64
	step int
}

func (a *adam) apply(w, g []float64, lr, wd float64) {
	if a.m == nil {
		a.m, a.v = make([]float64, len(w)), make([]float64, len(w))
	}
	a.step++
	c1, c2 := 1-fexp.Pow(0.9, float64(a.step)), 1-fexp.Pow(0.999, float64(a.step))
	for j := range w {
		gj := g[j] + wd*w[j]
		a.m[j] = 0.9*a.m[j] + 0.1*gj
		a.v[j] = 0.999*a.v[j] + 0.001*gj*gj
		w[j] -= lr * (a.m[j] / c1) / (math.Sqrt(a.v[j]/c2) + 1e-8)
	}
}

func (s *CaMU) Round(ctx context.Context, req Request) ([]float64, error) {
	if _, err := s.dels.take(req.Rows); err != nil {
		return nil, fmt.Errorf("camu: %w", err)
	}
	forget := s.dels.order
	if !s.cfg.RestartFromOrigin {
		forget = req.Rows
	} else {
		s.w = slices.Clone(s.w0)
	}
	left := s.dels.left()
	C, d := s.m.Classes(), s.m.Dim()
	p := s.m.Inputs()
	var klOpt, impairOpt adam
	h := s.m.EmbeddingDim()
	hOld, hNew, gh := make([]float64, h), make([]float64, h), make([]float64, h)
	z, gz, tmp := make([]float64, C), make([]float64, C), make([]float64, d)
	g := make([]float64, d)
	for range s.cfg.Epochs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		order := slices.Clone(forget)
		s.r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for start := 0; start < len(order); start += s.cfg.BatchSize {
			batch := order[start:min(start+s.cfg.BatchSize, len(order))]
			type pair struct {
				xf, xr, xc []float64
				yr, yc     int
			}
			pairs := make([]pair, len(batch))
			for i, f := range batch {
				r := left[s.r.IntN(len(left))]
				xc := slices.Clone(s.data.Row(r))
				for j := range p {
					xc[j] += s.cfg.NoiseScale * s.r.Float64()
				}
				yc := s.data.Y[r]
				if yc == s.data.Y[f] {
					yc = (yc + 1 + s.r.IntN(C-1)) % C
				}
				pairs[i] = pair{xf: s.data.Row(f), xr: s.data.Row(r), xc: xc, yr: s.data.Y[r], yc: yc}
			}
			// step 1: 0.5·KL(σ(h_old(x_r)) ‖ σ(h_new(x_r))) + 0.5·KL(σ(h_old(x_c)) ‖ σ(h_new(x_f))), summed
			clear(g)
			for _, pr := range pairs {
				for _, c := range [][2][]float64{{pr.xr, pr.xr}, {pr.xc, pr.xf}} {
					s.m.Embedding(hOld, s.w0, c[0])
					s.m.Embedding(hNew, s.w, c[1])
					po, pn := softmaxOf(hOld), softmaxOf(hNew)
					for j := range gh {
						gh[j] = 0.5 * (pn[j] - po[j]) // ∂KL(po ‖ σ(h))/∂h = σ(h) − po
					}
					s.m.BackEmbedding(tmp, s.w, c[1], gh)
					floats.Add(g, tmp)
				}
			}
			klOpt.apply(s.w, g, s.cfg.KLLR, s.cfg.WeightDecay)
			// step 2: 0.9·CE(new(x_r), y_r) + 0.01·CE(new(x_f), y_c), batch means
			clear(g)
			for _, pr := range pairs {
				for _, c := range []struct {
					x  []float64
					y  int
					wt float64
				}{{pr.xr, pr.yr, 0.9}, {pr.xf, pr.yc, 0.01}} {
					s.m.Logits(z, s.w, c.x)
					pz := softmaxOf(z)
					for k := range gz {
						gz[k] = pz[k]
					}
					gz[c.y]--
					s.m.BackLogits(tmp, s.w, c.x, gz)
					floats.AddScaled(g, c.wt/float64(len(pairs)), tmp)
				}
			}
			impairOpt.apply(s.w, g, s.cfg.ImpairLR, s.cfg.WeightDecay)
		}
	}
	return slices.Clone(s.w), nil
}

func softmaxOf(z []float64) []float64 {
	lse := multiclass.LogSumExp(z)
	out := make([]float64, len(z))
	for k, v := range z {
		out[k] = fexp.Exp(v - lse)
	}
	return out
}

// NewtonConfig configures the L-CODEC-style Newton removal.
type NewtonConfig struct {
	// Fraction of the parameters updated, those with the largest |Σ_{F_t}∇ℓ| — a stand-in
	// for L-CODEC's conditional-independence selection (Mehta et al., CVPR 2022); 1 is
	// every parameter, Sekhari et al.'s Newton removal.
	Fraction float64
	// Damping μ is added to the Hessian (needed where it is indefinite, as for an MLP).
	Damping float64
	// Sigma is the publishing noise's standard deviation (0: none).
	Sigma float64
	// Tol is the solve's relative tolerance (0: 1e-6) and MaxProducts caps its
	// Hessian–vector products, keeping the iterate reached (0: no cap).
	Tol         float64
	MaxProducts int
}

// Newton removes a request by one Newton step on the records left from the current model,
// w_S ← w_S + (H_S + μI)⁻¹ Σ_{F_t} ∇_S ℓ over the selected parameters S (conjugate
// gradients on Hessian–vector products, to Tol relative or MaxProducts products), plus
// noise; where H_S is indefinite, μ is raised until it is not. It reads the records left.
type Newton struct {
	// Raised counts the times the damping was raised to get past negative curvature.
	Raised int
	cfg    NewtonConfig
	m      multiclass.Network
	data   *multiclass.Data
	w      []float64
	dels   deletions
	r      *rand.Rand
}

// NewNewton starts from the original model w0 (copied); r draws the noise.
func NewNewton(m multiclass.Network, data *multiclass.Data, w0 []float64, cfg NewtonConfig, r *rand.Rand) *Newton {
	if cfg.Fraction <= 0 || cfg.Fraction > 1 {
		cfg.Fraction = 1
	}
	if cfg.Tol <= 0 {
		cfg.Tol = 1e-6
	}
	return &Newton{cfg: cfg, m: m, data: data, w: slices.Clone(w0), dels: newDeletions(data.Len()), r: r}
}

func (*Newton) Name() string         { return "Newton" }
func (*Newton) NeedsRemaining() bool { return true }
func (s *Newton) Round(ctx context.Context, req Request) ([]float64, error) {
	rows, err := s.dels.take(req.Rows)
	if err != nil {
		return nil, fmt.Errorf("newton: %w", err)
	}
	d := s.m.Dim()
	g, tmp := make([]float64, d), make([]float64, d)
	for _, r := range rows {
		s.m.Gradient(tmp, s.w, s.data.Row(r), s.data.Y[r])
		floats.Add(g, tmp)
	}
	mask := make([]bool, d)
	keep := int(math.Ceil(s.cfg.Fraction * float64(d)))
	idx := make([]int, d)
	for j := range idx {
		idx[j] = j
	}
	sort.SliceStable(idx, func(a, b int) bool { return math.Abs(g[idx[a]]) > math.Abs(g[idx[b]]) })
	for _, j := range idx[:keep] {
		mask[j] = true
	}
	o, err := multiclass.NewObjective(s.m, s.data, s.dels.left(), nil)
	if err != nil {
		return nil, err
	}
	w := s.w
	masked, full := make([]float64, d), make([]float64, d)
	apply := func(dst, v []float64) {
		for j := range v {
			masked[j] = 0
			if mask[j] {
				masked[j] = v[j]
			}
		}
		o.HVP(full, w, masked)
		for j := range dst {
			dst[j] = 0
			if mask[j] {
				dst[j] = full[j] + s.cfg.Damping*v[j]
			}
		}
	}
	rhs := make([]float64, d)
	for j := range rhs {
		if mask[j] {
			rhs[j] = g[j]
		}
	}
	// Where the Hessian is indefinite (a non-convex model), raise the damping tenfold
	// until conjugate gradients meet only positive curvature (Levenberg's remedy), and
	// remember it for the next round.
	var step []float64
	for {
		step, _, err = multiclass.ConjugateGradient(ctx, apply, rhs, s.cfg.Tol, s.cfg.MaxProducts)
		if !errors.Is(err, multiclass.ErrNegativeCurvature) {
			break
		}
		s.cfg.Damping = math.Max(10*s.cfg.Damping, 1e-3*float64(len(s.dels.left())))
		s.Raised++
	}
	if err != nil {
		return nil, fmt.Errorf("newton: %w", err)
	}
	floats.Add(s.w, step)
	out := slices.Clone(s.w)
	if s.cfg.Sigma > 0 {
		for j := range out {
			out[j] += s.cfg.Sigma * s.r.NormFloat64()
		}
	}
	return out, nil
}

// D2D is Descent-to-Delete (Neel et al. 2021, reference/d2d's plan through reference/hf's
// multiclass D2D) as a Streamer: each round one update, I full-batch projected steps on
// the records left from the secret model, published with the plan's σ. Its secret state
// starts at the original model every method shares (hf.NewD2DFrom), not at D2D's own
// learning phase, which at weak regularisation takes millions of full-batch steps; and
// the plan's σ is for one record per update, so a round of m records is covered only by
// group privacy (m times the sensitivity) — neither is a certified deployment, both as
// the comparison runs it. It reads the records left — the paper's Table 1 caption says
// otherwise (spec §7 item 13).
type D2D struct {
	d *hf.D2D
	r *rand.Rand
}

// NewD2D plans D2D for softmax regression's constants on the data's largest row norm,
// with I steps per update at (ε, δ), starting its secret state at w0.
func NewD2D(m multiclass.Softmax, data *multiclass.Data, w0 []float64, iterations int, eps, delta float64, r *rand.Rand) (*D2D, error) {
	maxNorm := 0.0
	for i := range data.Len() {
		maxNorm = math.Max(maxNorm, floats.Norm(data.Row(i), 2))
	}
	n := data.Len()
	params := hf.SoftmaxD2DParams(m, maxNorm, d2d.Params{N: n, NFloor: n / 2, Dim: m.Dim(), Budget: iterations, Epsilon: eps, Delta: delta})
	plan, err := d2d.NewPlan(d2d.SecretState, params)
	if err != nil {
		return nil, fmt.Errorf("d2d: %w", err)
	}
	dd, err := hf.NewD2DFrom(m, data, plan, w0, r)
	if err != nil {
		return nil, err
	}
	return &D2D{d: dd, r: r}, nil
}

func (*D2D) Name() string         { return "D2D" }
func (*D2D) NeedsRemaining() bool { return true }
func (s *D2D) Round(ctx context.Context, req Request) ([]float64, error) {
	if err := s.d.DeleteBatch(ctx, req.Rows, s.r); err != nil {
		return nil, err
	}
	return s.d.Published(), nil
}

// Sigma is the plan's publishing noise.
func (s *D2D) Sigma() float64 { return s.d.Plan.Sigma }
