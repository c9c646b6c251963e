package ars_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/internal/ars"
)

// A trial's noise at a step is drawn by its address alone: a shard that runs trial 7 by
// itself and an engine that runs trials 0–9 in lockstep draw the same values for it,
// without sharing a generator or agreeing on an order. FillWide is the engine's stream
// (v3): float32 Box–Muller normals of ARS-4x32-7's words, widened.
func ExampleFillWide() {
	const seed = 42
	const step = 3

	alone := make([]float64, 4)
	ars.FillWide(alone, seed, 7, step)

	lockstep := make([][]float64, 10)
	for trial := range lockstep {
		lockstep[trial] = make([]float64, 4)
		ars.FillWide(lockstep[trial], seed, uint64(trial), step)
	}

	fmt.Printf("trial 7 alone:    %.6f\n", alone)
	fmt.Printf("trial 7 of 0–9:   %.6f\n", lockstep[7])
	fmt.Printf("trial 8, for one: %.6f\n", lockstep[8])
	// Output:
	// trial 7 alone:    [-0.345624 1.088374 -2.131480 -0.600682]
	// trial 7 of 0–9:   [-0.345624 1.088374 -2.131480 -0.600682]
	// trial 8, for one: [1.364856 1.034227 0.266751 -0.672330]
}
