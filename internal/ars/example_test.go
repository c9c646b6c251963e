package ars_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/internal/ars"
)

// A block is a function of its counter and key alone: the words at any position of any
// stream are computed directly, here Random123's first ARS-4x32-10 known answer.
func ExampleBlock() {
	x := ars.Block([4]uint32{0, 0, 0, 0}, [4]uint32{0, 0, 0, 0}, 10)
	fmt.Printf("%08x\n", x)
	// Output: [8d73ee19 506401ef 13c2dbe4 0cbe9c0d]
}
