package hfaudit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
)

// OnlineConfig is the paper's Application I (spec hf §5.3, Table 2): a fraction of the
// training records forgotten one request at a time, each method timed per request.
type OnlineConfig struct {
	Model       multiclass.Softmax
	Learn       hf.Config // Model is set from Model
	Train, Test *multiclass.Data
	Fraction    float64 // of the training records, forgotten one per request
	Seed        uint64
	Damping     float64 // NS/IJ
	// NSRequests and RetrainRequests cap the requests NS and retraining are timed on;
	// their totals are extrapolated from the mean (a request's cost does not depend on
	// its place for either). 0 times every request.
	NSRequests, RetrainRequests int
	Epsilon, Delta              float64 // the release's (ε, δ), the paper's 1 and 1e-3 for LR
	// D2DIterations is Descent-to-Delete's budget I per request (0: no D2D row).
	D2DIterations int
	// GuoSigma is the standard deviation of Guo et al.'s loss perturbation (0: no Guo
	// row); its certificate is for (Epsilon, Delta) too.
	GuoSigma float64
}

// OnlineMethod is one method's line of Table 2.
type OnlineMethod struct {
	Name string
	// Timed is how many requests were timed of Requests; Total is PerRequest·Requests.
	Requests, Timed   int
	PerRequest, Total time.Duration
	Precompute        time.Duration
	Storage           int     // bytes kept between requests
	Accuracy          float64 // test accuracy after the last request (noiseless)
	Distance          float64 // to the paper-rule retrain after the last request (NaN when not all requests ran)
}

// OnlineResult is Table 2 at this machine's scale.
type OnlineResult struct {
	Methods []OnlineMethod // HF, NS, IJ, D2D (when run), Retrain
	// Released accuracies of HF's published model after the last request, with σ sized
	// by Theorem 4 (PaperBound) and by the official code's bound (CodeReading).
	PaperSigma, CodeSigma       float64
	PaperAccuracy, CodeAccuracy float64 // NaN where σ is +Inf
	// Rho and G are Theorem 4's contraction (from the a priori smoothness) and gradient
	// bound on this data.
	Rho, G float64
	// D2DSigma is D2D's publishing noise and D2DPublishedAccuracy its published model's
	// test accuracy after the last request.
	D2DSigma, D2DPublishedAccuracy float64
	// Float32Gap is max_j |w_j| between HF's final noiseless models from float64 and
	// float32 statistics, and Float32Bound StoreFloat32's bound 2⁻²⁴·Σ_u|a^{-u}_j| at
	// that coordinate's worst.
	Float32Gap, Float32Bound float64
	Float32Storage           int
	// Guo is Guo et al.'s certified removal's accounting, when it ran.
	Guo *GuoOnline
}

// GuoOnline is what Guo et al.'s certified removal spent serving the requests.
type GuoOnline struct {
	Sigma, Budget float64 // b ~ N(0, σ²I), and the residual budget σε/c it pays for
	Retrains      int     // requests the budget sent back to training from scratch
	// Spent bounds the gradient residual ‖∇L_b(w; D')‖ after the last request, and
	// Residual is that residual measured; Epsilon is the ε Theorem 3 states for Spent.
	Spent, Residual, Epsilon float64
	// ExactDelta is the Gaussian mechanism's exact δ at (ε, δ)'s ε for a shift of the whole
	// budget (Balle–Wang): what Theorem 3's δ = 1.5·e^{−c²/2} must be at least.
	ExactDelta float64
	// BoundRatio is the median over requests served by a Newton step of the accumulated
	// bound over the residual it bounds.
	BoundRatio float64
	// OracleDistance is ‖w − argmin L_b(D')‖ after the last request, and OracleBound
	// what strong convexity allows: (Spent + the oracle's residual)/(λ|D'|).
	OracleDistance, OracleBound float64
}

// Online runs the experiment. Timings are this machine's; the other figures are
// deterministic in the seed.
func Online(ctx context.Context, c OnlineConfig) (*OnlineResult, error) {
	n := c.Train.Len()
	m := int(math.Round(c.Fraction * float64(n)))
	if m < 1 || m >= n {
		return nil, fmt.Errorf("hf online: fraction %v of %d records; want at least one and not all", c.Fraction, n)
	}
	c.Learn.Model = c.Model
	timed := func(cap int) int {
		if cap <= 0 || cap > m {
			return m
		}
		return cap
	}
	start := time.Now()
	w0 := make([]float64, c.Model.Dim())
	tr, err := hf.Learn(ctx, c.Learn, c.Train, w0, reference.Stream(c.Seed, 0, "hf-online/batches"))
	if err != nil {
		return nil, err
	}
	learn := time.Since(start)
	stats, err := tr.Statistics(ctx, c.Train, nil, hf.PaperOrder)
	if err != nil {
		return nil, err
	}
	hfPre := time.Since(start)
	stats32, err := tr.Statistics(ctx, c.Train, nil, hf.PaperOrder)
	if err != nil {
		return nil, err
	}
	order := reference.Stream(c.Seed, 0, "hf-online/forget").Perm(n)[:m]
	res := &OnlineResult{}

	// HF: one vector addition per request
	bound32 := make([]float64, c.Model.Dim())
	for _, u := range order {
		a, _ := stats.Of(u)
		for j, v := range a {
			bound32[j] += 0x1p-24*math.Abs(v) + 0x1p-149
		}
	}
	storage := stats.Bytes()
	un := hf.NewUnlearner(tr, stats)
	start = time.Now()
	for _, u := range order {
		if err := un.Delete(u); err != nil {
			return nil, err
		}
	}
	hfTotal := time.Since(start)
	retrained, err := tr.Retrain(ctx, c.Train, order, hf.PaperRule, nil)
	if err != nil {
		return nil, err
	}
	final := un.Model()
	res.Methods = append(res.Methods, OnlineMethod{Name: MethodHF, Requests: m, Timed: m, PerRequest: hfTotal / time.Duration(m), Total: hfTotal,
		Precompute: hfPre, Storage: storage, Accuracy: Accuracy(c.Model, final, c.Test), Distance: floats.Distance(final, retrained, 2)})
	stats32.StoreFloat32()
	res.Float32Storage = stats32.Bytes()
	un32 := hf.NewUnlearner(tr, stats32)
	if err := un32.Delete(order...); err != nil {
		return nil, err
	}
	for j, v := range un32.Model() {
		if gap := math.Abs(v - final[j]); gap > res.Float32Gap {
			res.Float32Gap, res.Float32Bound = gap, bound32[j]
		}
	}

	// the release's σ under both readings, for the accuracy the published model keeps
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	removals := make([]int64, m)
	for k, u := range order {
		removals[k] = int64(u)
	}
	for _, reading := range []Reading{PaperBound, CodeReading} {
		sub, err := New(ctx, Setup{Model: c.Model, Config: c.Learn, Data: c.Train, IDs: ids, Removals: removals, Epsilon: c.Epsilon, Delta: c.Delta, Reading: reading})
		if err != nil {
			return nil, err
		}
		acc := math.NaN()
		if !math.IsInf(sub.sigma, 0) {
			acc = Accuracy(c.Model, un.Release(sub.sigma, reference.Stream(c.Seed, 0, "hf-online/noise")), c.Test)
		}
		res.Rho, res.G = sub.rho, sub.g
		if reading == PaperBound {
			res.PaperSigma, res.PaperAccuracy = sub.sigma, acc
		} else {
			res.CodeSigma, res.CodeAccuracy = sub.sigma, acc
		}
	}

	// NS and IJ, each request on every record forgotten so far
	start = time.Now()
	so, err := hf.NewSecondOrder(ctx, c.Model, c.Train, tr.Final, hf.SecondOrderOptions{Damping: c.Damping})
	if err != nil {
		return nil, err
	}
	soPre := learn + time.Since(start)
	for _, name := range []string{MethodNS, MethodIJ} {
		k := m
		if name == MethodNS {
			k = timed(c.NSRequests)
		}
		var w []float64
		start = time.Now()
		for i := 1; i <= k; i++ {
			if name == MethodNS {
				w, err = so.NewtonStep(ctx, order[:i])
			} else {
				w, err = so.Jackknife(order[:i])
			}
			if err != nil {
				return nil, err
			}
		}
		el := time.Since(start)
		om := OnlineMethod{Name: name, Requests: m, Timed: k, PerRequest: el / time.Duration(k), Precompute: soPre, Storage: so.Bytes(),
			Accuracy: math.NaN(), Distance: math.NaN()}
		om.Total = om.PerRequest * time.Duration(m)
		if k == m {
			om.Accuracy, om.Distance = Accuracy(c.Model, w, c.Test), floats.Distance(w, retrained, 2)
		}
		res.Methods = append(res.Methods, om)
	}

	// Descent-to-Delete (secret-state mode, Theorem 3.1) with reference/d2d's plan
	if c.D2DIterations > 0 {
		maxNorm := 0.0
		for i := range n {
			maxNorm = math.Max(maxNorm, floats.Norm(c.Train.Row(i), 2))
		}
		params := hf.SoftmaxD2DParams(c.Model, maxNorm, d2d.Params{N: n, NFloor: n - m, Dim: c.Model.Dim(), Budget: c.D2DIterations, Epsilon: c.Epsilon, Delta: c.Delta})
		plan, err := d2d.NewPlan(d2d.SecretState, params)
		if err != nil {
			return nil, err
		}
		noise := reference.Stream(c.Seed, 0, "hf-online/d2d")
		start = time.Now()
		dd, err := hf.NewD2D(ctx, c.Model, c.Train, plan, noise)
		if err != nil {
			return nil, err
		}
		pre := time.Since(start)
		start = time.Now()
		for _, u := range order {
			if err := dd.Delete(ctx, u, noise); err != nil {
				return nil, err
			}
		}
		el := time.Since(start)
		res.Methods = append(res.Methods, OnlineMethod{Name: "D2D", Requests: m, Timed: m, PerRequest: el / time.Duration(m), Total: el,
			Precompute: pre, Storage: 8 * c.Model.Dim(), Accuracy: Accuracy(c.Model, dd.Secret(), c.Test), Distance: math.NaN()})
		res.D2DSigma, res.D2DPublishedAccuracy = plan.Sigma, Accuracy(c.Model, dd.Published(), c.Test)
	}

	if c.GuoSigma > 0 {
		row, acct, err := onlineGuo(ctx, c, order)
		if err != nil {
			return nil, err
		}
		res.Methods = append(res.Methods, row)
		res.Guo = acct
	}

	// retraining from scratch after every request
	k := timed(c.RetrainRequests)
	start = time.Now()
	for i := 1; i <= k; i++ {
		if _, err := tr.Retrain(ctx, c.Train, slices.Clone(order[:i]), hf.PaperRule, nil); err != nil {
			return nil, err
		}
	}
	el := time.Since(start)
	om := OnlineMethod{Name: "Retrain", Requests: m, Timed: k, PerRequest: el / time.Duration(k), Storage: 0,
		Accuracy: Accuracy(c.Model, retrained, c.Test), Distance: 0}
	om.Total = om.PerRequest * time.Duration(m)
	res.Methods = append(res.Methods, om)
	return res, nil
}

// Speedup is the retrain's time per request over the method's.
func (r *OnlineResult) Speedup(method OnlineMethod) float64 {
	retrain := r.Methods[len(r.Methods)-1]
	return float64(retrain.PerRequest) / float64(max(method.PerRequest, 1))
}

// onlineGuo serves the requests by Guo et al.'s certified removal, one Newton step each,
// measuring after each what the mechanism never releases: the true gradient residual its
// accumulated bound stands for.
func onlineGuo(ctx context.Context, c OnlineConfig, order []int) (OnlineMethod, *GuoOnline, error) {
	cfg := hf.GuoConfig{Model: c.Model, Sigma: c.GuoSigma, Epsilon: c.Epsilon, Delta: c.Delta}
	start := time.Now()
	g, err := hf.NewGuo(ctx, cfg, c.Train, reference.Stream(c.Seed, 0, "hf-online/guo"))
	if err != nil {
		return OnlineMethod{}, nil, err
	}
	pre := time.Since(start)
	var el time.Duration
	var ratios []float64
	for _, u := range order {
		start = time.Now()
		rem, err := g.Delete(ctx, u)
		el += time.Since(start)
		if err != nil {
			return OnlineMethod{}, nil, err
		}
		if !rem.Retrained {
			res, err := g.Residual()
			if err != nil {
				return OnlineMethod{}, nil, err
			}
			ratios = append(ratios, rem.Spent/res)
		}
	}
	acct := &GuoOnline{Sigma: c.GuoSigma, Budget: g.Budget(), Retrains: g.Retrains(), Spent: g.Spent(), Epsilon: g.Epsilon(),
		ExactDelta: dp.GaussianExactDelta(c.Epsilon, g.Budget()/c.GuoSigma), BoundRatio: math.NaN()}
	if acct.Residual, err = g.Residual(); err != nil {
		return OnlineMethod{}, nil, err
	}
	if len(ratios) > 0 {
		slices.Sort(ratios)
		acct.BoundRatio = ratios[len(ratios)/2]
	}
	exact, err := g.Exact(ctx, multiclass.MinimizeOptions{})
	if err != nil {
		return OnlineMethod{}, nil, err
	}
	acct.OracleDistance = floats.Distance(g.Model(), exact.W, 2)
	acct.OracleBound = (g.Spent() + exact.Residual) / (c.Model.Lambda * float64(len(g.Remaining())))
	m := len(order)
	return OnlineMethod{Name: MethodGuo, Requests: m, Timed: m, PerRequest: el / time.Duration(m), Total: el, Precompute: pre,
		Storage: 16 * c.Model.Dim(), Accuracy: Accuracy(c.Model, g.Model(), c.Test), Distance: math.NaN()}, acct, nil
}
