package hfaudit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
)

// Reading is which bound on HF's approximation error sizes the noise.
type Reading int

const (
	// PaperBound is Theorem 4's set form, m·(c1 + c2(0)) (Eq. 56), with a priori G and ρ.
	PaperBound Reading = iota
	// CodeReading is the official code's bound (utils/perturbation.py, spec hf §3.12),
	// with its power iteration's ρ = 1.
	CodeReading
)

// Setup is one HF audit: softmax regression trained by Stage I on Data (rows in record
// order, IDs beside them) from w₀ = 0, the records Removals deleted one request at a time,
// and the claim (ε, δ) the noise is calibrated to (analytic Gaussian mechanism).
type Setup struct {
	Model    multiclass.Softmax
	Config   hf.Config // Model is set from Model
	Data     *multiclass.Data
	IDs      []int64
	Removals []int64
	Epsilon  float64
	Delta    float64
	Reading  Reading
}

// Subject is an HF audit subject (trials.Subject): each trial learns with its own batch
// order (stream "hf/schedule"), deletes by HF and publishes with noise; its retrain is
// the paper's retraining on the same order, published with fresh noise.
type Subject struct {
	setup           Setup
	rows            []int
	lip, g, rho     float64 // per-record ‖∇CE‖ bound, G, sup_t ρ_t
	smooth          float64 // the a priori M = ½(‖x‖²max + 1) + λ
	c1, c2, bound   float64 // Theorem 4's terms and the Δ̂ used
	sigma           float64
	steps, perEpoch int
	fp              string
}

// New checks the setup and computes the certificate: G, ρ, the bound Δ̂ of the reading
// and σ.
func New(ctx context.Context, s Setup) (*Subject, error) {
	s.Config.Model = s.Model
	n := s.Data.Len()
	if err := s.Config.Check(n); err != nil {
		return nil, err
	}
	if !(s.Model.Lambda > 0) || s.Config.Eta*s.Model.Lambda > 1 {
		return nil, fmt.Errorf("hf: λ = %v, η = %v; the a priori gradient bound needs λ > 0 and ηλ ≤ 1", s.Model.Lambda, s.Config.Eta)
	}
	if s.Config.Clip > 0 {
		return nil, fmt.Errorf("hf: clipped training is not what HF's statistics linearise; set clip 0")
	}
	if len(s.IDs) != n {
		return nil, fmt.Errorf("hf: %d record IDs for %d rows", len(s.IDs), n)
	}
	index := map[int64]int{}
	for i, id := range s.IDs {
		index[id] = i
	}
	sub := &Subject{setup: s}
	for _, id := range s.Removals {
		row, ok := index[id]
		if !ok {
			return nil, fmt.Errorf("hf: record %d is not in the data: %w", id, reference.ErrUnknownID)
		}
		sub.rows = append(sub.rows, row)
	}
	maxNorm := 0.0
	for i := range n {
		maxNorm = math.Max(maxNorm, floats.Norm(s.Data.Row(i), 2))
	}
	// ‖∇CE‖ = ‖π − e_y‖·‖(x, 1)‖ ≤ √2·√(‖x‖² + 1); SGD from 0 with ηλ ≤ 1 keeps ‖w‖ ≤ that/λ
	// on both trajectories (the paper rule scales both terms of a step alike), so every
	// per-record gradient is at most twice it: G, a priori, for any batch order.
	sub.lip = math.Sqrt2 * math.Sqrt(maxNorm*maxNorm+1)
	sub.g = 2 * sub.lip
	m := s.Model.Smoothness(maxNorm)
	sub.smooth = m
	sub.perEpoch = (n + s.Config.BatchSize - 1) / s.Config.BatchSize
	sub.steps = s.Config.Epochs * sub.perEpoch
	for t := range sub.steps {
		sub.rho = math.Max(sub.rho, Rho(s.Config.Eta*fexp.Pow(s.Config.Decay, float64(t)), s.Model.Lambda, m))
	}
	var err error
	p := Thm4Params{Eta: s.Config.Eta, G: sub.g, Q: s.Config.Decay, Rho: sub.rho, T: sub.steps, B: sub.perEpoch, BatchSize: s.Config.BatchSize}
	if sub.c1, sub.c2, err = Thm4PerSample(p, 0); err != nil {
		return nil, fmt.Errorf("hf: %w", err)
	}
	k := len(s.Removals)
	switch s.Reading {
	case CodeReading:
		sub.bound = CodeBound(s.Config.Eta, sub.g, s.Config.Decay, 1, n, s.Config.Epochs, s.Config.BatchSize, k)
	default:
		sub.bound, _ = Thm4SetPaper(p, k)
	}
	if sub.sigma, err = dp.AnalyticGaussianSigma(sub.bound, s.Epsilon, s.Delta); err != nil {
		return nil, fmt.Errorf("hf: %w", err)
	}
	sub.fp = fingerprint(fmt.Sprintf("hf|%s|%+v|%v|%v|%v|%v", s.Model.Name(), s.Config, s.Removals, s.Epsilon, s.Delta, s.Reading), s)
	return sub, nil
}

// fingerprint hashes the settings with the data themselves — every feature, label and
// ID — so that trials kept for one dataset are never resumed on another of the same size.
func fingerprint(header string, s Setup) string {
	h := sha256.New()
	io.WriteString(h, header+"\n")
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	for i := range s.Data.Len() {
		for _, v := range s.Data.Row(i) {
			put(math.Float64bits(v))
		}
		put(uint64(s.Data.Y[i]))
		put(uint64(s.IDs[i]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readingSource says which bound sized the noise, for the claim and the findings.
func (s *Subject) readingSource() string {
	if s.setup.Reading == CodeReading {
		return "the official code's bound (utils/perturbation.py, spec hf §3.12): T = n(E+1)/|𝓑|, c1·(1 − q)², ρ^B·q^B for every record (B = ⌈n/|𝓑|⌉), ρ = 1 (its power iteration's value), not Theorem 4"
	}
	return "Theorem 4 in its set form m·(c1 + c2(0)) (Eq. 56), G and ρ a priori"
}

// Name is "hf/theorem-4" or "hf/code-bound".
func (s *Subject) Name() string {
	if s.setup.Reading == CodeReading {
		return "hf/code-bound"
	}
	return "hf/theorem-4"
}

// Fingerprint identifies the configuration beyond the claim.
func (s *Subject) Fingerprint() string { return s.fp }

// Params is the softmax model's dimension (trials.Dimensioned).
func (s *Subject) Params() int { return s.setup.Model.Dim() }

func (s *Subject) w0() []float64 { return make([]float64, s.setup.Model.Dim()) }

// Unlearned learns (Stage I on the trial's batch order), computes the deleted records'
// statistics (Stage II), deletes them one request at a time (Stage III) and publishes
// w̄ + N(0, σ²I). The secret model is w̄.
func (s *Subject) Unlearned(ctx context.Context, st reference.Streams) (reference.Release, error) {
	tr, err := hf.Learn(ctx, s.setup.Config, s.setup.Data, s.w0(), st.Rand("hf/schedule"))
	if err != nil {
		return reference.Release{}, err
	}
	stats, err := tr.Statistics(ctx, s.setup.Data, s.rows, hf.PaperOrder)
	if err != nil {
		return reference.Release{}, err
	}
	u := hf.NewUnlearner(tr, stats)
	for _, r := range s.rows {
		if err := u.Delete(r); err != nil {
			return reference.Release{}, err
		}
	}
	return reference.Release{Published: u.Release(s.sigma, st.Rand("hf/unlearned/noise")), Secret: u.Model()}, nil
}

// Retrained replays the trial's batch order without the deleted records (the paper's
// rule) and publishes with fresh noise.
func (s *Subject) Retrained(ctx context.Context, st reference.Streams) (reference.Release, error) {
	tr, err := hf.Plan(s.setup.Config, s.setup.Data.Len(), s.w0(), st.Rand("hf/schedule"))
	if err != nil {
		return reference.Release{}, err
	}
	w, err := tr.Retrain(ctx, s.setup.Data, s.rows, hf.PaperRule, nil)
	if err != nil {
		return reference.Release{}, err
	}
	pub := make([]float64, len(w))
	reference.FillNormal(pub, s.sigma, st.Rand("hf/retrained/noise"))
	for j, v := range w {
		pub[j] += v
	}
	return reference.Release{Published: pub, Secret: w}, nil
}

// Claim is the certificate of the reading with its derivation.
func (s *Subject) Claim() verdict.Claim {
	c := s.setup.Config
	reading := s.readingSource()
	boundFormula := "m·(c1 + c2(0))"
	if s.setup.Reading == CodeReading {
		boundFormula = "code: 2η²G[(ρ^T−q^T)/(ρ−q) − (ρ^T−q^{2T})/(ρ−q²)](1−q) + 2ηG(m/|𝓑|)(ρ^T−q^T)ρ^B·q^B/(ρ^B−q^B), T = n(E+1)/|𝓑|, B = ⌈n/|𝓑|⌉"
	}
	return verdict.Claim{
		Method:    "Hessian-Free online certified unlearning (mini-batch SGD, per-record statistics by Hessian–vector products)",
		Source:    "Qiao, Zhang, Tang, Wei, Definition 1 with the noise of Algorithm 1 sized by " + reading,
		Guarantee: "(ε, δ)-certified unlearning",
		Required:  verdict.StateHolding,
		Epsilon:   s.setup.Epsilon, Delta: s.setup.Delta,
		Rho:      0.5 * (s.bound / s.sigma) * (s.bound / s.sigma),
		Relation: "the published model after the deletions (one request each) against the paper's retraining — the same start and batch order, the deleted records dropped with |B_t| kept — published with the same noise",
		Assumptions: []string{
			"per-record gradients are at most G on both trajectories (a priori here: SGD from 0 with ηλ ≤ 1)",
			"every batch Hessian lies in [λ, M]·I, so each linearised step contracts by ρ_t = max(|1 − η_tλ|, |1 − η_tM|)",
			"the proof's Taylor remainder is at most ‖Δw_k‖ (unproven in the paper; a rigorous reading needs 2M)",
		},
		Constants: []verdict.Value{{Name: "n", Value: float64(s.setup.Data.Len())}, {Name: "d", Value: float64(s.setup.Model.Dim())},
			{Name: "η", Value: c.Eta}, {Name: "q", Value: c.Decay}, {Name: "|𝓑|", Value: float64(c.BatchSize)}, {Name: "epochs", Value: float64(c.Epochs)},
			{Name: "λ", Value: s.setup.Model.Lambda}, {Name: "m (records deleted)", Value: float64(len(s.rows))}},
		Derivation: []verdict.Step{
			{Quantity: "G", Formula: "2√2·√(‖x‖²max + 1)", Value: s.g},
			{Quantity: "ρ", Formula: "sup_t max(|1 − η_tλ|, |1 − η_tM|), M = ½(‖x‖² + 1) + λ", Value: s.rho},
			{Quantity: "T", Formula: "epochs·⌈n/|𝓑|⌉", Value: float64(s.steps)},
			{Quantity: "c1", Formula: "(2η²G/(1 − q))·Σ_k ρ^{T−1−k}(q^k − q^{2k})", Value: s.c1},
			{Quantity: "c2(0)", Formula: "(2ηG/|𝓑|)·Σ_e ρ^{T−eB−1}q^{eB}", Value: s.c2},
			{Quantity: "Δ̂", Formula: boundFormula, Value: s.bound},
			{Quantity: "σ", Formula: "analytic Gaussian mechanism (Balle–Wang 2018) at Δ̂, ε, δ", Value: s.sigma},
		},
		Notes: []string{"The membership attack scores each deleted record by its logit-scaled confidence under the softmax models, log p_y − log Σ_{k≠y} p_k (the LiRA score of spec hf §5.4)."},
	}
}
