package epsilon

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"testing"
)

var updatePlanTable = flag.Bool("update-plan-table", false, "rewrite plantable.json from the search")

// tabledQuestions are the questions plantable.json answers: a claim of ε = 1 against a 2×
// violation with 80 % power, at the demo's δ = 1e-6 — its two-family game (each family
// at 1 − 0.05/2), its membership games on 3 and on 143 deleted records (1 − 0.05/k), and
// plan's default 95 % — at δ = 1e-5 (the documented plan example), and at δ = 1e-3 (the
// decisive SGLU spec's game and its membership game on 3 records).
func tabledQuestions() []PowerSpec {
	const c = 0.95
	q := func(delta, conf float64) PowerSpec {
		return PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: delta, Conf: conf}
	}
	game, three, many := 1-(1-c)/2, 1-(1-c)/3, 1-(1-c)/143
	return []PowerSpec{q(1e-6, game), q(1e-6, three), q(1e-6, many), q(1e-6, c),
		q(1e-5, c), q(1e-5, game), q(1e-3, game), q(1e-3, three), q(1e-3, c)}
}

// TestPlanTable: the table is the search's own answers, to the trial and to the bit of μ,
// for every tabled question and no other; a question it holds is answered from it. (The
// searches run here, not the memo, which the table seeds: a cached answer would compare
// nothing.) With -update-plan-table the file is rewritten from the search.
func TestPlanTable(t *testing.T) {
	questions := tabledQuestions()
	var want []planTableEntry
	for _, p := range questions {
		n, mu, err := searchTrials(context.Background(), p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		want = append(want, planTableEntry{Spec: p, Trials: n, Mu: mu})
	}
	if *updatePlanTable {
		b, err := json.MarshalIndent(want, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("plantable.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []planTableEntry
	if err := json.Unmarshal(planTable, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("plantable.json holds %d answers, want the %d tabled questions' (rerun with -update-plan-table)", len(got), len(want))
	}
	seedPlans()
	for i := range want {
		g, w := got[i], want[i]
		if g.Spec != w.Spec || g.Trials != w.Trials || math.Float64bits(g.Mu) != math.Float64bits(w.Mu) {
			t.Errorf("entry %d: the table says %+v, the search %+v", i, g, w)
		}
		if v, ok := plans.Load(w.Spec); !ok || v.(plan).trials != w.Trials {
			t.Errorf("entry %d: %+v is not answered from the table", i, w.Spec)
		}
	}
}
