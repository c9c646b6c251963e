package philox_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/internal/philox"
)

// A trial's noise at a step is drawn by its address alone: a shard that runs trial 7 by
// itself and an engine that runs trials 0–9 in lockstep draw the same values for it,
// without sharing a generator or agreeing on an order. FillWide is the engine's stream
// (v2): Fill32's float32 normals, widened.
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

// A stream is read from any block: FillAt32 draws block 1 (values 4–7) without the one
// before, the values a whole Fill32 puts there, so a run resumed mid-stream or a worker
// given a slice of it draws what one pass would.
func ExampleFillAt32() {
	whole := make([]float32, 8)
	philox.Fill32(whole, 42, 7, 3)
	tail := make([]float32, 4)
	philox.FillAt32(tail, 42, 7, 3, 1)
	fmt.Printf("Fill32's 4–7: %.6f\n", whole[4:])
	fmt.Printf("FillAt32(1):  %.6f\n", tail)
	// Output:
	// Fill32's 4–7: [-0.613795 0.516979 0.841257 0.196037]
	// FillAt32(1):  [-0.613795 0.516979 0.841257 0.196037]
}
