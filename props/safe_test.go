package props

import (
	"context"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"pgregory.net/rapid"
)

// The reference SAFE passes CheckSAFERun on generated problems (spec safe §4.2–4.3): every
// step γ from w₀, path independence, repeats refused, the exact retrain minimising the
// streaming risk.
func TestSAFEReference(t *testing.T) {
	rapid.Check(t, SAFEProperty(ReferenceSAFE))
}

// drifting is a planted bug: a SAFE that steps from its previous round's model instead of
// from w₀ — the natural online-gradient reading the paper rejects.
type drifting struct {
	s    safe.Streamer
	w0   []float64
	last []float64
}

func (d *drifting) Name() string         { return "drifting" }
func (d *drifting) NeedsRemaining() bool { return false }
func (d *drifting) Round(ctx context.Context, req safe.Request) ([]float64, error) {
	w, err := d.s.Round(ctx, req)
	if err != nil {
		return nil, err
	}
	if d.last == nil {
		d.last = slices.Clone(w)
		return w, nil
	}
	for j := range w {
		d.last[j] += w[j] - d.w0[j]
	}
	return slices.Clone(d.last), nil
}

// The check catches the drifting bug on a two-round stream: the second model is 2γ from
// w₀ along one direction, not γ.
func TestSAFECheckCatchesDrift(t *testing.T) {
	factory := func(ctx context.Context, m multiclass.Network, data *multiclass.Data, w0 []float64, cfg safe.Config) (safe.Streamer, error) {
		s, err := ReferenceSAFE(ctx, m, data, w0, cfg)
		return &drifting{s: s, w0: slices.Clone(w0)}, err
	}
	caught := false
	rapid.Check(t, func(rt *rapid.T) {
		in := SAFEProblem(rt)
		if len(in.Stream) < 2 {
			return
		}
		if fails(func(tb TB) { CheckSAFERun(tb, factory, in) }) {
			caught = true
		}
	})
	if !caught {
		t.Fatal("a SAFE that drifts from its previous model passed every check")
	}
}

// fails reports whether check calls Fatal or Fatalf on the TB it is given.
func fails(check func(TB)) (failed bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stop); !ok {
				panic(r)
			}
			failed = true
		}
	}()
	check(recorder{})
	return false
}

// recorder is a TB whose Fatal stops the check by a panic that fails recovers.
type recorder struct{}

type stop struct{}

func (recorder) Helper()               {}
func (recorder) Fatal(...any)          { panic(stop{}) }
func (recorder) Fatalf(string, ...any) { panic(stop{}) }

// The reference SAFE's state equals its recomputation from the data after every round of
// generated streams (I1–I3).
func TestSAFEInvariants(t *testing.T) {
	rapid.Check(t, SAFEInvariantsProperty)
}
