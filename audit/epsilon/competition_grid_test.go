package epsilon

import (
	"math"
	"runtime"
	"strings"
	"testing"
)

// The scorer lays 100 thresholds per unit of score: scores 2.3e9 apart (the HF demo's
// projections at --epsilon 5e-324) asked for 2.3e11 of them and ran the process out of
// memory. Past maxCompetitionGrid the scorer refuses, by name and before allocating.
func TestCompetitionGridIsBounded(t *testing.T) {
	u := []float64{0, 1e9, 2e9, 2.3e9} // both wide: the "peaky" guard (ε = 50) does not apply
	r := []float64{0.5, 1.1e9, 2e9, 2.2e9}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	eps := CompetitionEpsilon(u, r)
	_, err := Competition(column(u), column(r))
	runtime.ReadMemStats(&after)
	if !math.IsNaN(eps) {
		t.Errorf("CompetitionEpsilon = %v, want NaN past the grid's cap", eps)
	}
	if err == nil || !strings.Contains(err.Error(), "example 0: scores from 0 to 2.3e+09") {
		t.Errorf("Competition: %v", err)
	}
	// a refusal allocates nothing like a grid: a grid at the cap is 32 MiB of float64
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("allocated %d bytes before refusing", got)
	}
	// just inside the cap the grid is laid as before
	if eps := CompetitionEpsilon([]float64{0, 1, 2, 3}, []float64{0.5, 1.5, 2.5, 10}); math.IsNaN(eps) {
		t.Errorf("scores spanning 10 units: NaN")
	}
}

func column(s []float64) [][]float64 {
	out := make([][]float64, len(s))
	for i := range s {
		out[i] = s[i : i+1]
	}
	return out
}
