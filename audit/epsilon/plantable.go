package epsilon

import (
	_ "embed"
	"encoding/json"
	"sync"
)

// planTable is TrialsToDetect's answers to the questions audits ask most — the demo's
// game and membership questions, the documented examples — computed by the search and
// kept here, so that an audit that asks one gets it at once instead of after seconds of
// simulation. TestPlanTable recomputes every entry and requires the same count and the
// same μ to the bit; `go test ./audit/epsilon -run TestPlanTable -args -update-plan-table`
// rewrites the file from the search.
//
//go:embed plantable.json
var planTable []byte

// planTableEntry is one of planTable's answers.
type planTableEntry struct {
	Spec   PowerSpec
	Trials int
	Mu     float64
}

// seedPlans fills the memo from planTable once, before its first use.
var seedPlans = sync.OnceFunc(func() {
	var entries []planTableEntry
	if err := json.Unmarshal(planTable, &entries); err != nil {
		panic("epsilon: plantable.json: " + err.Error()) // embedded: a build-time file, checked by its test
	}
	for _, e := range entries {
		plans.Store(e.Spec, plan{trials: e.Trials, mu: e.Mu})
	}
})
