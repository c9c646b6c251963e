package sgluaudit

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/methodkit"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// Check returns the views of an SGLU audit side by side: the certificate recomputed from
// the data's constants; the exact oracle, which runs the same n, b, σ, η, m, slots and
// epochs on the quadratic surrogate f(θ; x) = (m/2)‖θ − x‖² of the same rows, where the
// laws are Gaussian and the divergence is exact, and compares it with the bound; the noise
// the implementation injects, measured two-sided on a zero-feature twin (noise.go); and the
// empirical distinguishing game on the published models of the trials.
func Check(ctx context.Context, s *Subject, results []trials.TrialResult, opt audit.CheckOptions) ([]verdict.Finding, error) {
	conf := opt.Confidence
	if conf == 0 {
		conf = 0.95
	}
	// The noise check costs a few runs, so it is held to a 20× smaller false-alarm rate:
	// it adds at most a twentieth of 1 − conf to an honest subject's chance of a FAIL.
	// The four measured findings are independent: computed side by side, reported in order.
	var noise, coupled, emp, mem verdict.Finding
	var errs [4]error
	game, membership := opt.Attacks.Has(audit.GameAttack), opt.Attacks.Has(audit.MembershipAttack)
	// the published-model phase, its game and attack run beside the noise and coupled checks
	pub := methodkit.Published{Prefix: "sglu", Epsilon: s.setup.Epsilon, Delta: s.delta}
	if membership {
		removed, err := s.setup.Data.Subset(s.setup.Removals) // the removed records, as they were before removal
		if err != nil {
			return nil, fmt.Errorf("sglu check: %w", err)
		}
		pub.Members = &checks.MembershipRelease{Loss: s.setup.Loss, Deleted: removed}
	}
	// the checks, for a progress bar, counted as each ends
	st, ctx := steps.Count(ctx, true, true, game, membership)
	var wg sync.WaitGroup
	wg.Go(func() { noise, errs[0] = s.noiseFinding(ctx, opt.Seed, (1-conf)/20); st.Step() })
	wg.Go(func() { coupled, errs[1] = s.coupledFinding(ctx, opt.Seed); st.Step() })
	if game {
		wg.Go(func() {
			emp, errs[2] = pub.Game(ctx, opt, results)
			st.Step()
		})
	}
	if membership {
		wg.Go(func() { mem, errs[3] = pub.Membership(ctx, opt, results); st.Step() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	fs := []verdict.Finding{s.certificateFinding(), s.oracleFinding(), noise, coupled}
	if game {
		fs = append(fs, emp)
	}
	if membership {
		fs = append(fs, mem)
	}
	return fs, nil
}

func (s *Subject) certificateFinding() verdict.Finding {
	worst := 0.0
	for _, e := range s.eps {
		worst = math.Max(worst, e)
	}
	v := verdict.Pass
	detail := fmt.Sprintf("Theorem 3.2 along Theorem 3.11's recursion certifies ϵ = %.4g at δ = %.3g for the worst of %d requests with K = %v epochs",
		worst, s.delta, len(s.eps), compactInts(s.ks))
	if worst > s.setup.Epsilon {
		v = verdict.Fail
		detail += fmt.Sprintf("; the target needs K = %v", compactInts(s.needed))
	}
	f := verdict.Finding{Check: "sglu/certificate", Title: "certificate recomputed", Kind: verdict.Certificate, Verdict: v,
		Measured: worst, Bound: s.setup.Epsilon, Comparison: "≤", Confidence: 1, Detail: detail}
	if len(s.eps) > 0 {
		t := verdict.Trace{Name: "ϵ certified for request i with the K_i epochs run", BoundName: "claimed ϵ"}
		for _, i := range verdict.TraceRequests(len(s.eps)) {
			t.Requests, t.Values, t.Bound = append(t.Requests, i), append(t.Values, s.eps[i-1]), append(t.Bound, s.setup.Epsilon)
		}
		f.Traces = []verdict.Trace{t} // the worst request already decides the verdict
	}
	return f
}

// oracleFinding: the quadratic surrogate with a = m starts at its stationary law on D
// (the convergent reading), serves the same replacements in the same slots with the same
// K_s, and ends Gaussian with the stationary covariance, so D_α to ν_{D_S} is exact. It
// is checked against Theorem 3.11's bound for the surrogate's constants (M = a·‖x‖max).
func (s *Subject) oracleFinding() verdict.Finding {
	p := s.problem
	q := QuadraticOracle{A: p.StrongConvexity, Eta: p.StepSize, Sigma: s.setup.Sigma, Batch: p.Batch}
	rows := func(ds *reference.Dataset) [][]float64 {
		out := make([][]float64, ds.Len())
		for i := range out {
			out[i] = ds.Row(i)
		}
		return out
	}
	data := rows(s.ordered)
	mu := q.StationaryMean(data)
	for i, id := range s.setup.Removals {
		row, _ := s.ordered.Lookup(id)
		data[row] = s.replacements[i].X
		mu = q.Run(mu, data, s.ks[i])
	}
	dist := reference.Distance(mu, q.StationaryMean(data))
	qp := q.Problem(p.N, p.StrongConvexity*s.ordered.MaxRowNorm())
	const alpha = 2
	bound := SequentialEpsilons(alpha, s.setup.Sigma, qp, s.ks, sglu.PaperPABI, false, sglu.PaperVariance)
	tight := SequentialEpsilons(alpha, s.setup.Sigma, qp, s.ks, sglu.PaperPABI, false, sglu.TrueVariance)
	exact := q.Renyi(alpha, dist)
	last := len(s.ks) - 1
	v := verdict.Pass
	if exact > bound[last]*(1+1e-9) {
		v = verdict.Fail
	}
	return verdict.Finding{Check: "sglu/exact-oracle", Title: "exact divergence on the quadratic surrogate", Kind: verdict.Release, Verdict: v,
		Measured: exact, Bound: bound[last], Comparison: "≤", Confidence: 1,
		Detail: fmt.Sprintf("D_2(unlearned ‖ ν_{D_S}) = %.4g exactly, Theorem 3.11 bounds it by %.4g (%.3g× slack; %.4g with the injected variance 2ησ²)",
			exact, bound[last], bound[last]/exact, tight[last])}
}

func compactInts(ks []int) string {
	if len(ks) <= 6 {
		return fmt.Sprint(ks)
	}
	return fmt.Sprintf("%v … %v", ks[:3], ks[len(ks)-2:])
}
