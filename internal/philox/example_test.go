package philox_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/internal/philox"
)

// A trial's noise at a step is drawn by its address alone: a shard that runs trial 7 by
// itself and an engine that runs trials 0–9 in lockstep draw the same values for it,
// without sharing a generator or agreeing on an order. FillWide is the engine's stream
// (v2): float32 Box–Muller normals, widened.
func ExampleFillWide() {
	const seed = 42
	const step = 3

	alone := make([]float64, 4)
	philox.FillWide(alone, seed, 7, step)

	lockstep := make([][]float64, 10)
	for trial := range lockstep {
		lockstep[trial] = make([]float64, 4)
		philox.FillWide(lockstep[trial], seed, uint64(trial), step)
	}

	fmt.Printf("trial 7 alone:    %.6f\n", alone)
	fmt.Printf("trial 7 of 0–9:   %.6f\n", lockstep[7])
	fmt.Printf("trial 8, for one: %.6f\n", lockstep[8])
	// Output:
	// trial 7 alone:    [-1.524613 -1.106332 0.819374 -0.324855]
	// trial 7 of 0–9:   [-1.524613 -1.106332 0.819374 -0.324855]
	// trial 8, for one: [0.694519 0.573116 0.531098 0.309475]
}

// Block is the generator itself: Random123's first philox4x32-10 known answer, the block
// of the all-zero counter under the all-zero key.
func ExampleBlock() {
	fmt.Printf("%08x\n", philox.Block([4]uint32{}, [2]uint32{}))
	// Output:
	// [6627e8d5 e169c58d bc57ac4c 9b00dbd8]
}
