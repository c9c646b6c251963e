package sgluaudit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// Setup is an SGLU deployment to audit: PNSGD on L2-regularised logistic regression (the
// paper's model), learning T epochs from θ = 0 on fixed cyclic batches, then serving
// removal requests in turn, each by replacing the record in its slot and running K_s
// epochs on the updated data.
type Setup struct {
	Loss     reference.Logistic // λ > 0 is the strong convexity m
	Data     *reference.Dataset // D; its size must be a multiple of Batch
	Removals []int64            // record IDs removed in turn
	Batch    int                // b (0: full batch)
	Sigma    float64            // σ: each step adds √(2ησ²)·N(0, I)
	Epochs   int                // T, learning epochs
	Radius   float64            // R of the projection (and of Theorem 3.2's initial-law terms)
	Epsilon  float64            // target ϵ of every request
	Delta    float64            // δ (0: 1/n, the paper's)
	// UnlearnEpochs, when set, are the K_s the deployment runs instead of the least its
	// certificate needs; the certificate check then says whether they suffice.
	UnlearnEpochs []int
	// Seed fixes the ordered partition B and the replacement records, which the theorem
	// holds fixed; the trials' noise comes from the engine's streams.
	Seed uint64
	// Lockstep > 0 runs trials through sglu.Ensemble, up to Lockstep of them advancing
	// together, one pass over each batch's rows for all (trials.BatchSubject); every trial,
	// alone or batched, then takes the ensemble's kernel, so its results are the same bits
	// however it is batched. They differ from the one-at-a-time Model's by rounding only,
	// but differ: lockstep is part of the configuration's fingerprint (its size is not).
	Lockstep int
	// Float32 computes the lockstep gradients in float32 (sglu.LearnOrderedEnsemble32):
	// for measuring what float32 changes in the audit's statistics, never the default.
	// It needs Lockstep and is part of the fingerprint.
	Float32 bool
}

// Subject is an SGLU setup the audit engine can sample (it implements trials.Subject).
type Subject struct {
	setup        Setup
	problem      sglu.Problem
	delta        float64
	nc           NonConvergent
	ks           []int     // the epochs the deployment runs
	needed       []int     // the least epochs the certificate needs
	eps          []float64 // what each request certifies with ks
	ordered      *reference.Dataset
	final        *reference.Dataset // the final data, in slot order
	replacements []reference.Record
	fp           string
	bug          bug     // a negative control's planted bug (controls.go); none in a real audit
	staleFactor  float64 // the stale-epochs control's σ multiple
}

// New validates the setup, fixes B and the replacement records, and runs the accountant.
func New(ctx context.Context, s Setup) (*Subject, error) {
	if s.Data == nil || s.Data.Len() == 0 {
		return nil, fmt.Errorf("sglu audit: no data")
	}
	n := s.Data.Len()
	if s.Batch == 0 {
		s.Batch = n
	}
	if len(s.Removals) == 0 {
		return nil, fmt.Errorf("sglu audit: no removal requests; an unlearning audit needs at least one")
	}
	if s.Float32 && s.Lockstep < 1 {
		return nil, fmt.Errorf("sglu audit: float32 gradients run in lockstep only: set a lockstep size")
	}
	if !(s.Loss.Lambda > 0) {
		return nil, fmt.Errorf("sglu audit: loss: λ = %v; SGLU's bounds need strong convexity λ > 0", s.Loss.Lambda)
	}
	if !(s.Radius > 0) || math.IsInf(s.Radius, 0) {
		return nil, fmt.Errorf("sglu audit: radius: R = %v; Theorem 3.2 needs a finite projection radius", s.Radius)
	}
	if !(s.Epsilon > 0) {
		return nil, fmt.Errorf("sglu audit: epsilon: ϵ = %v; want > 0", s.Epsilon)
	}
	if s.Delta == 0 {
		s.Delta = 1 / float64(n)
	}
	if !(s.Delta > 0 && s.Delta < 1) {
		return nil, fmt.Errorf("sglu audit: delta: δ = %v; want 0 < δ < 1", s.Delta)
	}
	if s.Epochs < 1 {
		return nil, fmt.Errorf("sglu audit: epochs: T = %d; want T ≥ 1", s.Epochs)
	}
	seen := map[int64]bool{}
	for _, id := range s.Removals {
		if !s.Data.Has(id) {
			return nil, fmt.Errorf("sglu audit: removal of record %d: %w", id, reference.ErrUnknownID)
		}
		if seen[id] {
			return nil, fmt.Errorf("sglu audit: record %d is removed twice", id)
		}
		seen[id] = true
	}
	// B and the replacements are part of the configuration, drawn once.
	r := reference.Stream(s.Seed, 0, "sglu/partition")
	perm := r.Perm(n)
	ids := make([]int64, n)
	for k, row := range perm {
		ids[k] = s.Data.ID(row)
	}
	ordered, err := s.Data.Subset(ids)
	if err != nil {
		return nil, fmt.Errorf("sglu audit: %w", err)
	}
	var maxID int64
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	rr := reference.Stream(s.Seed, 0, "sglu/replacements")
	recs := make([]reference.Record, n)
	for k := range n {
		recs[k] = ordered.Record(k)
	}
	var replacements []reference.Record
	for i, id := range s.Removals {
		row, _ := ordered.Lookup(id)
		rec := sglu.RandomReplacement(maxID+1+int64(i), ordered.Row(row), rr)
		replacements = append(replacements, rec)
		recs[row] = rec
	}
	final, err := reference.FromRecords(s.Data.Dim(), recs)
	if err != nil {
		return nil, fmt.Errorf("sglu audit: %w", err)
	}
	p := LogisticProblem(s.Loss, ordered, s.Batch, s.Radius)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("sglu audit: %w", err)
	}
	if !(s.Sigma > 0) {
		return nil, fmt.Errorf("sglu audit: sigma: σ = %v; want > 0", s.Sigma)
	}
	sub := &Subject{setup: s, problem: p, delta: s.Delta, ordered: ordered, final: final, replacements: replacements,
		nc: NonConvergent{T: s.Epochs, InitRadius: s.Radius, FT: ProofFT}}
	sub.needed, _, err = SequentialNonConvergent(s.Epsilon, s.Delta, s.Sigma, p, sub.nc, len(s.Removals), sglu.PaperVariance, sglu.NonConvergentAlphas)
	if err != nil {
		return nil, fmt.Errorf("sglu audit: %w", err)
	}
	sub.ks = sub.needed
	if s.UnlearnEpochs != nil {
		if len(s.UnlearnEpochs) != len(s.Removals) {
			return nil, fmt.Errorf("sglu audit: unlearn epochs: %d values for %d removals", len(s.UnlearnEpochs), len(s.Removals))
		}
		for i, k := range s.UnlearnEpochs {
			if k < 1 {
				return nil, fmt.Errorf("sglu audit: unlearn epochs: K_%d = %d; want ≥ 1", i+1, k)
			}
		}
		sub.ks = s.UnlearnEpochs
	}
	sub.eps = sub.certified(sub.ks)
	header := fmt.Sprintf("sglu|%s|%+v|%v|%d|%v|%v", s.Loss.Name(), p, s.Sigma, s.Epochs, sub.ks, s.Seed)
	if s.Lockstep > 0 {
		header += "|lockstep" // the ensemble's kernel: the same trials up to rounding
	}
	if s.Float32 {
		header += "|float32"
	}
	sub.fp = trials.ConfigFingerprint(header, ordered, nil, replacements)
	return sub, nil
}

// TrimToBatches cuts ds to the largest multiple of the batch size b, as the paper cuts
// its training set to n = 11,264 = 88·128: it keeps every record in keep (the ones to be
// removed), first, and fills up with the others, each group in the order of ds. Errors when b is not in 1 … |ds|
// or keep names more records than fit.
func TrimToBatches(ds *reference.Dataset, b int, keep []int64) (*reference.Dataset, error) {
	if b <= 0 || b > ds.Len() {
		return nil, fmt.Errorf("sglu audit: batch size %d: want 1 … %d", b, ds.Len())
	}
	n := ds.Len() / b * b
	if len(keep) > n {
		return nil, fmt.Errorf("sglu audit: %d records to keep, but %d batches of %d hold only %d", len(keep), n/b, b, n)
	}
	kept := map[int64]bool{}
	for _, id := range keep {
		if !ds.Has(id) {
			return nil, fmt.Errorf("sglu audit: record %d to keep: %w", id, reference.ErrUnknownID)
		}
		kept[id] = true
	}
	// the kept records first, then the others, each in the order of ds: Subset keeps this
	// order, which fixes every record's batch slot
	ids := make([]int64, 0, n)
	for i := range ds.Len() {
		if kept[ds.ID(i)] {
			ids = append(ids, ds.ID(i))
		}
	}
	for i := 0; i < ds.Len() && len(ids) < n; i++ {
		if id := ds.ID(i); !kept[id] {
			ids = append(ids, id)
		}
	}
	return ds.Subset(ids)
}

// LogisticProblem is the constants of L2-logistic regression on ds for PNSGD with batch b
// and radius R: L = ‖x‖²max/4 + λ, m = λ, η = 1/L, and the data gradient's bound
// M = ‖x‖max (or the clip), Remark 3.7's constant. Replacements keep the removed row's
// norm, so the constants hold for every D_s.
func LogisticProblem(loss reference.Logistic, ds *reference.Dataset, b int, radius float64) sglu.Problem {
	xm := ds.MaxRowNorm()
	M := xm
	if loss.Clip > 0 {
		M = math.Min(M, loss.Clip)
	}
	L := xm*xm/4 + loss.Lambda
	return sglu.Problem{Smoothness: L, Lipschitz: M, StrongConvexity: loss.Lambda, StepSize: 1 / L, N: ds.Len(), Batch: b, Radius: radius}
}

// BurnIn is the least T ≥ 1 with 2R·c^{Tn/b} ≤ frac·Z_B: learning long enough that Theorem
// 3.2's initial-law terms are negligible beside the removal's own.
func BurnIn(p sglu.Problem, frac float64) int {
	per := float64(p.StepsPerEpoch())
	t := math.Log(frac*p.ZB()/(2*p.Radius)) / (per * math.Log1p(-p.StepSize*p.StrongConvexity))
	if !(t > 1) {
		return 1
	}
	return int(math.Ceil(t))
}

// certified is what each request certifies when the deployment runs ks: Theorem 3.2 along
// Theorem 3.11's recursion (SequentialNonConvergent with the epochs given).
func (s *Subject) certified(ks []int) []float64 {
	z := NonConvergentZ(s.problem, s.nc)
	out := make([]float64, len(ks))
	for i, k := range ks {
		out[i], _ = sglu.BestEpsilonWeakTriangle(nonConvergentCoefficient(z, s.setup.Sigma, s.problem, k, s.nc, sglu.PaperVariance), s.delta, sglu.NonConvergentAlphas)
		z = s.problem.NextZ(z, k)
	}
	return out
}

// Name is "sglu/b=128" or "sglu/full-batch".
func (s *Subject) Name() string {
	name := fmt.Sprintf("sglu/b=%d", s.problem.Batch)
	if s.problem.Batch == s.problem.N {
		name = "sglu/full-batch"
	}
	if s.bug != none {
		name += "~" + string(s.bug)
	}
	return name
}

// Fingerprint identifies the configuration beyond the claim.
func (s *Subject) Fingerprint() string { return s.fp }

// NoiseStream is the generator of the runs' Langevin noise, sglu.NoiseStream
// (trials.NoiseStreamer): checkpoints and reports name it, and a checkpoint of another
// stream is refused.
func (s *Subject) NoiseStream() string { return sglu.NoiseStream }

// UnnamedNoiseStream is what SGLU's checkpoints that name no stream drew from,
// sglu.LegacyNoiseStream (trials.NoiseStreamer).
func (s *Subject) UnnamedNoiseStream() string { return sglu.LegacyNoiseStream }

// Params is the model's dimension, the data's (trials.Dimensioned).
func (s *Subject) Params() int { return s.setup.Data.Dim() }

// Problem is the constants the bounds use.
func (s *Subject) Problem() sglu.Problem { return s.problem }

// UnlearnEpochs are the K_s the deployment runs; Needed the least its certificate needs.
func (s *Subject) UnlearnEpochs() []int { return s.ks }

// Needed are the least epochs per request that meet the target.
func (s *Subject) Needed() []int { return s.needed }

// Certified is the ϵ each request certifies with the epochs run.
func (s *Subject) Certified() []float64 { return s.eps }

func (s *Subject) params() sglu.Params {
	sigma := s.setup.Sigma
	switch s.bug {
	case halfNoise:
		sigma /= math.Sqrt2
	case staleSigma:
		sigma /= 2
	}
	return sglu.Params{Problem: s.problem, Sigma: sigma, Epochs: s.setup.Epochs, Init: sglu.ZeroInit, Removal: sglu.ReplaceRemoval}
}

// Unlearned learns T epochs on D with the fixed B, then serves each removal (its fixed
// replacement in the slot) and runs K_s epochs. Noise from the stream "sglu/unlearned".
func (s *Subject) Unlearned(ctx context.Context, st reference.Streams) (reference.Release, error) {
	if s.setup.Lockstep > 0 {
		e, err := s.unlearnedEnsemble(ctx, st.Seed, []int{st.Trial})
		if err != nil {
			return reference.Release{}, err
		}
		return reference.Release{Published: e.Published(0)}, nil
	}
	r := st.Rand("sglu/unlearned")
	m, err := sglu.LearnOrdered(ctx, s.params(), s.setup.Loss, s.ordered, r)
	if err != nil {
		return reference.Release{}, err
	}
	for i, id := range s.setup.Removals {
		if s.bug != noUnlearning {
			if err := m.Replace(id, s.replacements[i]); err != nil {
				return reference.Release{}, err
			}
		}
		if err := m.Epochs(ctx, s.runEpochs(i), r); err != nil {
			return reference.Release{}, err
		}
	}
	return m.Release(), nil
}

// Retrained learns T epochs from θ = 0 on the final data with the same B and fresh
// noise (stream "sglu/retrained"): Theorem 3.2's reference.
func (s *Subject) Retrained(ctx context.Context, st reference.Streams) (reference.Release, error) {
	if s.setup.Lockstep > 0 {
		e, err := s.learnEnsemble(ctx, s.final, ensembleStreams(st.Seed, []int{st.Trial}, "sglu/retrained"))
		if err != nil {
			return reference.Release{}, err
		}
		return reference.Release{Published: e.Published(0)}, nil
	}
	m, err := sglu.LearnOrdered(ctx, s.params(), s.setup.Loss, s.final, st.Rand("sglu/retrained"))
	if err != nil {
		return reference.Release{}, err
	}
	return m.Release(), nil
}

// Claim is the deployment's certificate with its derivation.
func (s *Subject) Claim() verdict.Claim {
	p, S := s.problem, len(s.setup.Removals)
	steps := []verdict.Step{
		{Quantity: "c", Formula: "1 − ηm, η = 1/L", Value: p.C()},
		{Quantity: "Z_B", Formula: "2ηM/(b(1 − c^{n/b}))  (Cor 3.8; proof F_T)", Value: p.ZB()},
		{Quantity: "Z_1", Formula: "2R·c^{Tn/b} + min(Z_B, 2R)  (Thm 3.2)", Value: NonConvergentZ(p, s.nc)},
	}
	A1, _ := NonConvergentTerms(s.setup.Sigma, p, 1, s.nc, sglu.PaperVariance)
	steps = append(steps, verdict.Step{Quantity: "A1", Formula: "(2R)²c^{2Tn/b}/(2ησ²)  (retrain vs ν_{D_s})", Value: A1})
	total := 0
	for i, k := range s.ks {
		total += k
		if i < 3 || i == S-1 {
			steps = append(steps, verdict.Step{Quantity: fmt.Sprintf("K_%d", i+1), Formula: "least K meeting ϵ̂ (or the deployment's)", Value: float64(k)},
				verdict.Step{Quantity: fmt.Sprintf("ϵ_%d", i+1), Formula: "min_α (α−½)/(α−1)·2α(A1 + Z_s²c^{2K_s n/b}/(2ησ²)) + log(1/δ)/(α−1), α ∈ [2, 1e4]", Value: s.eps[i]})
		}
	}
	steps = append(steps, verdict.Step{Quantity: "Σ K_s", Formula: "unlearning epochs over all requests", Value: float64(total)})
	return verdict.Claim{
		Method:    "Stochastic Gradient Langevin Unlearning (PNSGD, fixed cyclic batches)",
		Source:    "Chien, Wang, Chen, Li 2024, Theorem 3.2 (finite T) carried along Theorem 3.11's W∞ recursion",
		Guarantee: "(ϵ, δ)-unlearning of every request",
		Required:  verdict.StateHolding, // the toolkit runs the method: the empirical game supports
		Epsilon:   s.setup.Epsilon, Delta: s.delta,
		Relation: "one record replaced per request (the paper's adjacency); the published model after request s against T epochs of retraining on D_s with the same B and fresh noise",
		Assumptions: []string{
			"every f_z is m-strongly convex and L-smooth, and ‖∇f(θ; z) − ∇f(θ; z')‖ ≤ 2M (Remark 3.7)",
			"θ₀ = 0 lies in the ball C_R the iterates are projected on (Theorem 3.2's initial law)",
			"the ordered partition B is fixed in advance and the requests do not depend on it",
			"the noise variance is read as the paper's ησ² per step (conservative by 2×; spec sglu §3.1)",
		},
		Constants: []verdict.Value{{Name: "L (smoothness)", Value: p.Smoothness}, {Name: "M (data gradient)", Value: p.Lipschitz},
			{Name: "m (strong convexity)", Value: p.StrongConvexity}, {Name: "η", Value: p.StepSize}, {Name: "R", Value: p.Radius},
			{Name: "n", Value: float64(p.N)}, {Name: "b", Value: float64(p.Batch)}, {Name: "σ", Value: s.setup.Sigma},
			{Name: "T", Value: float64(s.setup.Epochs)}, {Name: "requests", Value: float64(S)}},
		Derivation: steps,
		Notes:      []string{"The sequential finite-T composition is the toolkit's: the weak triangle inequality of Theorem 3.2 with its ε2 term taken from Theorem 3.11's recursion started at Theorem 3.2's Z. For one request it is Theorem 3.2."},
	}
}

// BatchSize is how many trials run in lockstep (trials.BatchSubject); 0 when they run one
// at a time on sglu.Model.
func (s *Subject) BatchSize() int { return s.setup.Lockstep }

// RunTrials runs the given trials in lockstep: the unlearned runs as one sglu.Ensemble
// (learning, then each removal and its K_s epochs, for all at once) and the retrains as
// another, each trial drawing from its own streams exactly what Unlearned and Retrained
// draw.
func (s *Subject) RunTrials(ctx context.Context, seed uint64, indices []int) ([]trials.TrialResult, error) {
	u, err := s.unlearnedEnsemble(ctx, seed, indices)
	if err != nil {
		return nil, err
	}
	r, err := s.learnEnsemble(ctx, s.final, ensembleStreams(seed, indices, "sglu/retrained"))
	if err != nil {
		return nil, err
	}
	out := make([]trials.TrialResult, len(indices))
	for k, i := range indices {
		out[k] = trials.TrialResult{Index: i, Unlearned: reference.Release{Published: u.Published(k)}, Retrained: reference.Release{Published: r.Published(k)}}
	}
	return out, nil
}

// unlearnedEnsemble runs the trials' unlearned runs in lockstep: learning, then each
// removal and its K_s epochs.
func (s *Subject) unlearnedEnsemble(ctx context.Context, seed uint64, indices []int) (*sglu.Ensemble, error) {
	u, err := s.learnEnsemble(ctx, s.ordered, ensembleStreams(seed, indices, "sglu/unlearned"))
	if err != nil {
		return nil, err
	}
	for i, id := range s.setup.Removals {
		if s.bug != noUnlearning {
			if err := u.Replace(id, s.replacements[i]); err != nil {
				return nil, err
			}
		}
		if err := u.Epochs(ctx, s.runEpochs(i)); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// learnEnsemble learns T epochs of the runs on ds in lockstep, in the setup's precision.
func (s *Subject) learnEnsemble(ctx context.Context, ds *reference.Dataset, rs []*rand.Rand) (*sglu.Ensemble, error) {
	if s.setup.Float32 {
		return sglu.LearnOrderedEnsemble32(ctx, s.params(), s.setup.Loss, ds, rs)
	}
	return sglu.LearnOrderedEnsemble(ctx, s.params(), s.setup.Loss, ds, rs)
}

// ensembleStreams are the trials' streams of one purpose, in order.
func ensembleStreams(seed uint64, indices []int, purpose string) []*rand.Rand {
	rs := make([]*rand.Rand, len(indices))
	for k, i := range indices {
		rs[k] = reference.Streams{Seed: seed, Trial: i}.Rand(purpose)
	}
	return rs
}
