package verify_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
)

// Measured without a claim, a model below all of 64 retrains refutes every ε up to
// ln(65·(0.05 − δ)) — exactly the most one model among 64 retrains can show
// (epsilon.RanksMaxEpsilon) — and a game's finding keeps its ε lower bound and gains the
// μ of its Gaussian pair; neither keeps a power, a bound or a claim's verdict. A spec
// without a claim measures; half a claim is refused naming the spec's claim field. Planted
// bugs caught: the rank's ε without its p-value's k models (k = 2: ln(65·0.024) = 0.45 is
// what two models show, not 1.16), and SetClaim leaving a spec's half claim unrefused.
func TestMeasurements(t *testing.T) {
	ctx := context.Background()
	s := spec.DefaultSpec()
	if s.Claimed {
		t.Fatal("the default spec claims")
	}
	delta := 1e-3
	if err := s.SetClaim("", nil, &delta); err != nil || s.Claimed || s.Delta != 1e-3 {
		t.Fatalf("δ alone: %v, claimed %t, δ %v; want a measurement at δ = 1e-3", err, s.Claimed, s.Delta)
	}
	for _, c := range []struct {
		k    int
		want float64
	}{{1, epsilon.RanksMaxEpsilon(1, 64, 1e-3, 0.95)}, {2, epsilon.RanksMaxEpsilon(2, 64, 1e-3, 0.95)}} {
		_, fs, err := verify.VerifyScores(ctx, seedCase(1, c.k, 30, 0.05), seedCase(3, 64, 30, 0.5), s)
		if err != nil {
			t.Fatal(err)
		}
		m := spec.AsMeasurements(fs, s.Delta, s.Confidence)[0]
		if m.Kind != verdict.Measurement || m.Power != nil || !math.IsNaN(m.Bound) || math.Abs(m.Measured-c.want) > 1e-12 {
			t.Errorf("%d model(s) below all 64 retrains, measured: %s, ε %v (want %v), power %v, bound %v", c.k, m.Kind, m.Measured, c.want, m.Power, m.Bound)
		}
		if strings.Contains(m.Detail, "under the claim") {
			t.Errorf("the rank measurement speaks of a claim: %s", m.Detail)
		}
	}
	_, fs, err := verify.VerifyScores(ctx, seedCase(5, 32, 30, 0.3), seedCase(6, 32, 30, 0.5), s)
	if err != nil {
		t.Fatal(err)
	}
	m := spec.AsMeasurements(fs, s.Delta, s.Confidence)[0]
	if m.Measured != fs[0].Measured || !strings.HasPrefix(m.Detail, "A measurement, no claim, no verdict") || m.Estimates[len(m.Estimates)-1].Value != epsilon.GDPMu(m.Measured, 1e-3) {
		t.Errorf("the game, measured: ε %v (game %v), %s", m.Measured, fs[0].Measured, m.Detail)
	}
	half, err := spec.ParseSpec(strings.NewReader(`{"claim": {"delta": 1e-3}}`), "half.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := half.SetClaim("half.json", nil, nil); err == nil || !strings.Contains(err.Error(), "half.json: claim: want both") {
		t.Errorf("half a claim: %v; want it refused naming half.json: claim", err)
	}
	eps := 2.0
	if err := half.SetClaim("half.json", &eps, nil); err != nil || !half.Claimed || half.Epsilon != 2 || half.Delta != 1e-3 {
		t.Errorf("half a claim completed by --epsilon: %v, claimed %t, (%v, %v)", err, half.Claimed, half.Epsilon, half.Delta)
	}
}
