package philox_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/internal/philox"
)

// A trial's noise at a step is drawn by its address alone: a shard that runs trial 7 by
// itself and an engine that runs trials 0–9 in lockstep draw the same values for it,
// without sharing a generator or agreeing on an order.
func ExampleFill() {
	const seed = 42
	const step = 3

	alone := make([]float64, 4)
	philox.Fill(alone, seed, 7, step)

	lockstep := make([][]float64, 10)
	for trial := range lockstep {
		lockstep[trial] = make([]float64, 4)
		philox.Fill(lockstep[trial], seed, uint64(trial), step)
	}

	fmt.Printf("trial 7 alone:    %.6f\n", alone)
	fmt.Printf("trial 7 of 0–9:   %.6f\n", lockstep[7])
	fmt.Printf("trial 8, for one: %.6f\n", lockstep[8])
	// Output:
	// trial 7 alone:    [0.939757 -0.372583 1.339057 0.312038]
	// trial 7 of 0–9:   [0.939757 -0.372583 1.339057 0.312038]
	// trial 8, for one: [1.816099 1.058254 1.834175 0.911161]
}

// Block is the generator itself: Random123's first philox4x32-10 known answer, the block
// of the all-zero counter under the all-zero key.
func ExampleBlock() {
	fmt.Printf("%08x\n", philox.Block([4]uint32{}, [2]uint32{}))
	// Output:
	// [6627e8d5 e169c58d bc57ac4c 9b00dbd8]
}

// A stream is read from any block: FillAt draws blocks 2 and 3 (values 4–7) without the
// two before, the values a whole Fill puts there, so a run resumed mid-stream or a worker
// given a slice of it draws what one pass would.
func ExampleFillAt() {
	whole := make([]float64, 8)
	philox.Fill(whole, 42, 7, 3)
	tail := make([]float64, 4)
	philox.FillAt(tail, 42, 7, 3, 2)
	fmt.Printf("Fill's 4–7: %.6f\n", whole[4:])
	fmt.Printf("FillAt(2):  %.6f\n", tail)
	// Output:
	// Fill's 4–7: [0.689984 -0.301283 -1.023262 -1.498729]
	// FillAt(2):  [0.689984 -0.301283 -1.023262 -1.498729]
}
