package safeaudit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"gonum.org/v1/gonum/floats"
)

// The methods of the streaming comparison (spec safe §2.5), by their names in reports; the
// paper calls Newton "Lcode" and D2D "Desc".
const (
	MethodSAFE     = "SAFE"
	MethodUnroll   = "Unroll"
	MethodCaMU     = "CaMU"
	MethodNewton   = "Newton"
	MethodD2D      = "D2D"
	MethodOriginal = "Original"
	MethodRetrain  = "Retrain"
	// SAFE's ablations (Table 2), as its streamer names them.
	MethodNoTR = "SAFE w/o TR"
	MethodNoDS = "SAFE w/o DS"
)

// Baselines are the methods a stream may compare SAFE with, in report order.
var Baselines = []string{MethodUnroll, MethodCaMU, MethodNewton, MethodD2D}

// StreamConfig is one streaming audit: an original model trained by Recipe on Train,
// then every request of Stream served by SAFE and the chosen baselines, each published
// model measured after every round beside a retrain from scratch on the records left.
type StreamConfig struct {
	Train, Test *multiclass.Data
	Recipe      safe.Recipe
	SAFE        safe.Config // its horizon T is the stream's length
	Baselines   []string    // among Baselines
	// Ablations runs SAFE again with each of these parts switched off (Table 2), beside
	// the full method.
	Ablations []safe.Ablation
	CaMU      safe.CaMUConfig
	Newton    safe.NewtonConfig
	// D2D runs Descent-to-Delete (softmax only) with this many steps per round, for
	// (Epsilon, Delta).
	D2DIterations  int
	Epsilon, Delta float64
	Stream         [][]int
	Seed           uint64
	// MIASamples caps the records of each side the membership attacker trains on:
	// records left as members, test records as non-members, as many of each (0: 500).
	MIASamples int
	// ForgetClass, when 0 or more, is the class the stream deletes (the stream-for-class
	// protocol): RA and TA then count the other classes only, and TAF is the test accuracy
	// on the forgotten class. −1 for a random stream.
	ForgetClass int
	// Theory measures SAFE against its theorems each round: the exact minimiser of the
	// retained loss (convex models only), the true and surrogate risks, the gradient and
	// parameter bounds U and W the theorems assume, and the release's mean shift.
	Theory bool
}

// RoundMetrics are one method's measurements after one round, in percent where the paper
// reports percent: accuracy on the records left (RA), on every record deleted so far
// (FA) and on the test set (TA); the membership attack's share of the deleted records it
// calls members (MIA); the round's wall time; and the distance to the round's retrain. In
// the stream-for-class protocol RA and TA count the other classes only and TAF is the
// test accuracy on the forgotten class (the paper's TA(R) and TA(F)); NaN otherwise.
type RoundMetrics struct {
	RA, FA, TA, TAF, MIA float64
	Seconds              float64
	Distance             float64
}

// MethodStream is one method's measurements along the stream.
type MethodStream struct {
	Name           string
	NeedsRemaining bool
	Setup          time.Duration // precomputation before the first request
	Rounds         []RoundMetrics
	// Final is the model published after the last round.
	Final []float64 `json:"-"`
}

// Mean is the method's measurements averaged over the rounds.
func (m MethodStream) Mean() RoundMetrics {
	var out RoundMetrics
	for _, r := range m.Rounds {
		out.RA += r.RA
		out.FA += r.FA
		out.TA += r.TA
		out.MIA += r.MIA
		out.TAF += r.TAF
		out.Seconds += r.Seconds
		out.Distance += r.Distance
	}
	k := float64(len(m.Rounds))
	out.RA, out.FA, out.TA, out.TAF, out.MIA, out.Seconds, out.Distance = out.RA/k, out.FA/k, out.TA/k, out.TAF/k, out.MIA/k, out.Seconds/k, out.Distance/k
	return out
}

// SAFERound is SAFE against its theorems after one round (StreamConfig.Theory).
type SAFERound struct {
	// Excess is R_t(w_t) − R_t(w_t*), the per-round error Theorem 2(i) bounds, with w_t*
	// the exact minimiser of the retained loss and R_t the streaming risk (Eq. 10).
	Excess float64
	// Gap is |R̃_t(w_t) − R_t(w_t)|, what Theorem 1 bounds; Thm1 its printed bound and
	// Thm1Consistent the λ-consistent scale λ/√|D_t|.
	Gap, Thm1, Thm1Consistent float64
	// Shift is ‖w_t − w_t*‖ before any noise: the release's mean shift Δ_t against a
	// noised retrain.
	Shift float64
	// GradNorm is the largest ‖∇R_t‖ met at w₀, w_t and w_t* (a lower estimate of U).
	GradNorm float64
}

// SAFETheory is the stream's audit of SAFE's theorems.
type SAFETheory struct {
	Gamma, K, Lambda float64
	T                int
	Rounds           []SAFERound
	// U and W are the largest gradient and parameter norms met (lower estimates of the
	// bounds the theorems assume); VT the retrained optima's path length; Regret the sum
	// of the per-round errors.
	U, W, VT, Regret float64
}

// StreamResult is a streaming audit's outcome.
type StreamResult struct {
	Methods []MethodStream // SAFE, the baselines asked, the original model, Retrain last
	Theory  *SAFETheory
	// RecursionError is the largest relative gap, over the rounds, between SAFE's
	// retention gradient (kept by its recursion, never reading the records left) and the
	// mean gradient recomputed on the records left: rounding, if SAFE is right.
	RecursionError float64
}

// Method returns the named method's stream.
func (r *StreamResult) Method(name string) (MethodStream, bool) {
	for _, m := range r.Methods {
		if m.Name == name {
			return m, true
		}
	}
	return MethodStream{}, false
}

// RunStream runs the audit. Timings are this machine's; everything else is a function of
// the configuration and seed.
func RunStream(ctx context.Context, c StreamConfig) (*StreamResult, error) {
	n := c.Train.Len()
	T := len(c.Stream)
	if T == 0 {
		return nil, fmt.Errorf("safe stream: no requests")
	}
	stream := func(name string, i int) *rand.Rand { return reference.Stream(c.Seed, i, "safe-stream/"+name) }
	model := c.Recipe.Model
	start := c.Recipe.Start(stream("init", 0))
	w0, err := c.Recipe.FitFrom(ctx, c.Train, nil, start, stream("original", 0))
	if err != nil {
		return nil, fmt.Errorf("safe stream: the original model: %w", err)
	}
	type runner struct {
		s     safe.Streamer
		setup time.Duration
	}
	var runners []runner
	add := func(s safe.Streamer, err error, began time.Time) error {
		if err != nil {
			return err
		}
		runners = append(runners, runner{s: s, setup: time.Since(began)})
		return nil
	}
	cfg := c.SAFE
	cfg.T = T
	began := time.Now()
	u, err := safe.New(ctx, model, c.Train, w0, cfg, stream("safe", 0))
	if err != nil {
		return nil, err
	}
	if err := add(u.Streamer(), nil, began); err != nil {
		return nil, err
	}
	for _, a := range c.Ablations {
		ac := cfg
		ac.Ablation = a
		began = time.Now()
		v, err := safe.New(ctx, model, c.Train, w0, ac, stream("safe", 0))
		if err != nil {
			return nil, err
		}
		if err := add(v.Streamer(), nil, began); err != nil {
			return nil, err
		}
	}
	for _, name := range c.Baselines {
		began = time.Now()
		switch name {
		case MethodUnroll:
			err = add(safe.NewUnroll(model, w0, start, c.Recipe.Train.LR, n), nil, began)
		case MethodCaMU:
			err = add(safe.NewCaMU(model, c.Train, w0, c.CaMU, stream("camu", 0)), nil, began)
		case MethodNewton:
			err = add(safe.NewNewton(model, c.Train, w0, c.Newton, stream("newton", 0)), nil, began)
		case MethodD2D:
			sm, ok := model.(multiclass.Softmax)
			if !ok {
				return nil, fmt.Errorf("safe stream: D2D needs a convex model's constants; %s has none", model.Name())
			}
			var d *safe.D2D
			d, err = safe.NewD2D(sm, c.Train, w0, c.D2DIterations, c.Epsilon, c.Delta, stream("d2d", 0))
			err = add(d, err, began)
		default:
			err = fmt.Errorf("safe stream: baseline %s; want one of %v", clip.Quote(name), Baselines)
		}
		if err != nil {
			return nil, err
		}
	}
	retrain := safe.NewRetrain(c.Recipe, c.Train, func(round int) *rand.Rand { return stream("retrain", round) })
	res := &StreamResult{}
	for _, r := range runners {
		res.Methods = append(res.Methods, MethodStream{Name: r.s.Name(), NeedsRemaining: r.s.NeedsRemaining(), Setup: r.setup})
	}
	res.Methods = append(res.Methods, MethodStream{Name: MethodOriginal}, MethodStream{Name: MethodRetrain, NeedsRemaining: true})

	var theory *theoryState
	if c.Theory {
		if theory, err = newTheory(ctx, c, u, w0); err != nil {
			return nil, err
		}
	}
	deleted := map[int]bool{}
	var forgot []int
	for t, rows := range c.Stream {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		req := safe.RequestOf(c.Train, rows)
		for _, r := range rows {
			if !deleted[r] {
				deleted[r] = true
				forgot = append(forgot, r)
			}
		}
		var left []int
		for i := range n {
			if !deleted[i] {
				left = append(left, i)
			}
		}
		began = time.Now()
		wRetrain, err := retrain.Round(ctx, req)
		if err != nil {
			return nil, err
		}
		retrainTime := time.Since(began)
		ev, err := newEvaluator(ctx, c, left, forgot, t)
		if err != nil {
			return nil, err
		}
		models := make([][]float64, 0, len(runners)+2)
		times := make([]time.Duration, 0, len(runners)+2)
		for _, r := range runners {
			began = time.Now()
			w, err := r.s.Round(ctx, req)
			if err != nil {
				return nil, fmt.Errorf("safe stream: %s round %d: %w", r.s.Name(), t+1, err)
			}
			times = append(times, time.Since(began))
			models = append(models, w)
		}
		models = append(models, w0, wRetrain)
		times = append(times, 0, retrainTime)
		for i, w := range models {
			met, err := ev.metrics(ctx, model, w)
			if err != nil {
				return nil, fmt.Errorf("safe stream: %s round %d: %w", res.Methods[i].Name, t+1, err)
			}
			met.Seconds = times[i].Seconds()
			met.Distance = floats.Distance(w, wRetrain, 2)
			res.Methods[i].Rounds = append(res.Methods[i].Rounds, met)
			res.Methods[i].Final = w
		}
		if theory != nil {
			if err := theory.round(ctx, models[0], left, forgot); err != nil {
				return nil, err
			}
		}
		want, tmp := make([]float64, model.Dim()), make([]float64, model.Dim())
		multiclass.MeanGradient(model, want, tmp, w0, c.Train, left)
		res.RecursionError = math.Max(res.RecursionError, floats.Distance(u.RetentionGradient(), want, 2)/(1+floats.Norm(want, 2)))
	}
	if theory != nil {
		res.Theory = theory.finish()
	}
	return res, nil
}

// evaluator measures models after one round on the same records: the records left, the
// deleted ones, the test set, and one membership attacker's training sample.
type evaluator struct {
	c                  StreamConfig
	left, forgot       []int
	members, nonMember []int // rows of Train and of Test the attacker trains on
	// the stream-for-class protocol: the records left of the other classes, and the test
	// rows of the other classes and of the forgotten one (testRest nil: every test row)
	leftRest, testRest, testGone []int
}

func newEvaluator(ctx context.Context, c StreamConfig, left, forgot []int, t int) (*evaluator, error) {
	k := c.MIASamples
	if k == 0 {
		k = 500
	}
	// balanced sides, as the paper's 10,000 + 10,000: an attacker trained on more members
	// than non-members learns to call everything a member
	k = min(k, len(left), c.Test.Len())
	r := reference.Stream(c.Seed, t, "safe-stream/mia")
	members := slices.Clone(left)
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	nonMembers := r.Perm(c.Test.Len())
	e := &evaluator{c: c, left: left, forgot: forgot, members: members[:k], nonMember: nonMembers[:k], testRest: nil, testGone: nil}
	e.leftRest = left
	if c.ForgetClass >= 0 {
		e.leftRest = nil
		for _, i := range left {
			if c.Train.Y[i] != c.ForgetClass {
				e.leftRest = append(e.leftRest, i)
			}
		}
		for i, y := range c.Test.Y {
			if y == c.ForgetClass {
				e.testGone = append(e.testGone, i)
			} else {
				e.testRest = append(e.testRest, i)
			}
		}
	}
	return e, ctx.Err()
}

// sortedProbs are the model's class probabilities at x in ascending order: the attack's
// features (the authors' code sorts them).
func sortedProbs(m multiclass.Network, w, x []float64) []float64 {
	p := make([]float64, m.Classes())
	multiclass.Probabilities(m, p, w, x)
	slices.Sort(p)
	return p
}

func (e *evaluator) metrics(ctx context.Context, m multiclass.Network, w []float64) (RoundMetrics, error) {
	out, _, err := e.measure(ctx, m, w)
	return out, err
}

// measure is metrics with the attacker's member calls on the deleted records.
func (e *evaluator) measure(ctx context.Context, m multiclass.Network, w []float64) (RoundMetrics, []bool, error) {
	out := RoundMetrics{
		RA:  100 * multiclass.Accuracy(m, w, e.c.Train, e.leftRest),
		FA:  100 * multiclass.Accuracy(m, w, e.c.Train, e.forgot),
		TA:  100 * multiclass.Accuracy(m, w, e.c.Test, e.testRest),
		TAF: math.NaN(),
	}
	if e.testGone != nil {
		out.TAF = 100 * multiclass.Accuracy(m, w, e.c.Test, e.testGone)
	}
	attacker, err := e.attacker(ctx, m, w)
	if err != nil {
		return out, nil, err
	}
	calls := make([]bool, len(e.forgot))
	hits := 0
	for j, i := range e.forgot {
		if calls[j] = attacker.Predict(sortedProbs(m, w, e.c.Train.Row(i))); calls[j] {
			hits++
		}
	}
	out.MIA = 100 * float64(hits) / float64(len(e.forgot))
	return out, calls, nil
}

// attacker trains the paper's SVC membership attack on the model's sorted softmax
// outputs at the member and non-member samples.
func (e *evaluator) attacker(ctx context.Context, m multiclass.Network, w []float64) (*mia.SVC, error) {
	var x [][]float64
	var pos []bool
	for _, i := range e.members {
		x = append(x, sortedProbs(m, w, e.c.Train.Row(i)))
		pos = append(pos, true)
	}
	for _, i := range e.nonMember {
		x = append(x, sortedProbs(m, w, e.c.Test.Row(i)))
		pos = append(pos, false)
	}
	a, err := mia.FitSVC(ctx, x, pos, mia.SVCOptions{})
	if err != nil {
		return nil, fmt.Errorf("membership attacker: %w", err)
	}
	return a, nil
}

// theoryState follows SAFE against its theorems along the stream.
type theoryState struct {
	c     StreamConfig
	u     *safe.Unlearner
	w0    []float64
	stars [][]float64 // w₀*, w₁*, …
	out   SAFETheory
	wNorm float64
}

func newTheory(ctx context.Context, c StreamConfig, u *safe.Unlearner, w0 []float64) (*theoryState, error) {
	if _, ok := c.Recipe.Model.(multiclass.Softmax); !ok || !c.Recipe.Exact {
		return nil, fmt.Errorf("safe stream: the theorems' audit needs a convex model trained exactly (its original model the minimiser, as the theorems assume); %s, exact %v, is not", c.Recipe.Model.Name(), c.Recipe.Exact)
	}
	o, err := multiclass.NewObjective(c.Recipe.Model, c.Train, nil, nil)
	if err != nil {
		return nil, err
	}
	star, err := multiclass.Minimize(ctx, o, w0, multiclass.MinimizeOptions{})
	if err != nil {
		return nil, fmt.Errorf("safe stream: w₀*: %w", err)
	}
	th := &theoryState{c: c, u: u, w0: w0, stars: [][]float64{star.W}, wNorm: math.Max(floats.Norm(w0, 2), floats.Norm(star.W, 2))}
	th.out = SAFETheory{Gamma: u.Gamma(), K: c.SAFE.K, Lambda: c.SAFE.Lambda, T: len(c.Stream)}
	return th, nil
}

// round measures SAFE's published (noiseless unless φ > 0) model wt after a round.
func (th *theoryState) round(ctx context.Context, wt []float64, left, forgot []int) error {
	c := th.c
	m := c.Recipe.Model
	o, err := multiclass.NewObjective(m, c.Train, left, nil)
	if err != nil {
		return err
	}
	res, err := multiclass.Minimize(ctx, o, th.stars[len(th.stars)-1], multiclass.MinimizeOptions{})
	if err != nil {
		return fmt.Errorf("safe stream: the exact retrain: %w", err)
	}
	star := res.W
	th.stars = append(th.stars, star)
	xs := make([][]float64, len(forgot))
	truth := make([][]float64, len(forgot))
	for i, r := range forgot {
		xs[i] = c.Train.Row(r)
		truth[i] = make([]float64, m.Classes())
		multiclass.Probabilities(m, truth[i], star, xs[i])
	}
	lambda, dir := c.SAFE.Lambda, c.SAFE.KL
	risk := func(w []float64, targets [][]float64) float64 {
		return safe.RetentionRisk(m, w, c.Train, left) + safe.ForgettingRisk(m, w, xs, targets, lambda, dir)
	}
	var r SAFERound
	r.Excess = risk(wt, truth) - risk(star, truth)
	r.Gap = math.Abs(safe.ForgettingRisk(m, wt, xs, th.u.Targets(), lambda, dir) - safe.ForgettingRisk(m, wt, xs, truth, lambda, dir))
	r.Thm1 = Thm1Bound(m.Classes(), len(forgot), len(left))
	r.Thm1Consistent = Thm1BoundConsistent(lambda, 1, len(left))
	r.Shift = floats.Distance(wt, star, 2)
	g := make([]float64, m.Dim())
	for _, w := range [][]float64{th.w0, wt, star} {
		safe.RiskGradient(g, m, w, c.Train, left, xs, truth, lambda, dir)
		r.GradNorm = math.Max(r.GradNorm, floats.Norm(g, 2))
		th.wNorm = math.Max(th.wNorm, floats.Norm(w, 2))
	}
	th.out.Rounds = append(th.out.Rounds, r)
	return nil
}

func (th *theoryState) finish() *SAFETheory {
	out := th.out
	out.W = th.wNorm
	for _, r := range out.Rounds {
		out.U = math.Max(out.U, r.GradNorm)
		out.Regret += r.Excess
	}
	out.VT = PathLength(th.stars)
	return &out
}
