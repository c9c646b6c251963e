package audit_test

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// shift publishes a fixed model plus N(0, σ²I); its retrain is the same model shifted by
// gap in the first coordinate.
type shift struct{ gap, sigma float64 }

func (s shift) Name() string { return "shift" }
func (s shift) Claim() verdict.Claim {
	return verdict.Claim{Guarantee: "(ε, δ)-unlearning", Epsilon: 1, Delta: 1e-6, Rho: 0.0175}
}
func (s shift) publish(mean float64, st reference.Streams, purpose string) reference.Release {
	secret := []float64{mean, 0, 0}
	pub := make([]float64, 3)
	reference.FillNormal(pub, s.sigma, st.Rand(purpose))
	for j := range pub {
		pub[j] += secret[j]
	}
	return reference.Release{Published: pub, Secret: secret}
}
func (s shift) Unlearned(_ context.Context, st reference.Streams) (reference.Release, error) {
	return s.publish(s.gap, st, "unlearned"), nil
}
func (s shift) Retrained(_ context.Context, st reference.Streams) (reference.Release, error) {
	return s.publish(0, st, "retrained"), nil
}

// The exact D_2 here is 2·0.01²/(2·0.1²) = 0.01; the check measures the noise actually
// added, so its estimate is 0.0097 with an interval around the exact value.
func ExampleEngine_Run() {
	s := shift{gap: 0.01, sigma: 0.1}
	trials, err := trials.Engine{Workers: 2}.Run(context.Background(), s, 1, 500)
	if err != nil {
		panic(err)
	}
	findings, _ := checks.GaussianRelease{Prefix: "shift", Sigma: 0.1, Rho: 0.0175, Epsilon: 1, Delta: 1e-6}.Check(trials)
	for _, f := range findings {
		fmt.Printf("%s %s: %.4f ≤ %.4f\n", f.Verdict, f.Check, f.Measured, f.Bound)
	}
	// Output:
	// PASS shift/release/renyi: 0.0097 ≤ 0.0350
	// PASS shift/release/exact-epsilon: 0.3899 ≤ 1.0000
}

// One production model against 64 retrains, by the rank of its mean loss on the deleted
// records (the pre-registered primary statistic): remembering them shows, and the check
// can FAIL but never PASS.
func ExampleRankCheck() {
	retrains := make([]float64, 64)
	for i := range retrains {
		retrains[i] = 0.30 + float64(i)/1000
	}
	f, _ := checks.RankCheck{Check: "rank", Epsilon: 1, Delta: 1e-3, Seed: 1}.Play(context.Background(), "mean loss over the deleted records", []float64{0.12}, retrains)
	fmt.Println(f.Verdict, f.Comparison, fmt.Sprintf("%.4f", f.Bound))
	f, _ = checks.RankCheck{Check: "rank", Epsilon: 1, Delta: 1e-3, Seed: 1}.Play(context.Background(), "mean loss over the deleted records", []float64{0.33}, retrains)
	fmt.Println(f.Verdict)
	// Output:
	// FAIL > 0.0180
	// INCONCLUSIVE
}

// A trial line of a model of p parameters holds at most six vectors of p numbers (two
// releases of published, secret and coupled models), each number at most 32 bytes of
// JSON with its comma, and 64 KiB for the rest: a resuming or merging run refuses a longer
// line having read no more than that.
func ExampleMaxTrialLineBytes() {
	for _, p := range []int{20, 1_000_000} {
		fmt.Printf("p = %d: %d bytes\n", p, trials.MaxTrialLineBytes(p))
	}
	fmt.Println("unknown:", trials.MaxTrialLineBytes(0))
	// Output:
	// p = 20: 69376 bytes
	// p = 1000000: 192065536 bytes
	// unknown: 1073741824
}
