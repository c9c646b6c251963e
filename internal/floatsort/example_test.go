package floatsort_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/floatsort"
)

// The package comment's call: the result is slices.Sort's, bit for bit, on a slice long
// enough for the radix sort.
func ExampleSort() {
	r := rand.New(rand.NewPCG(1, 2))
	scores := make([]float64, 4*floatsort.Threshold)
	for i := range scores {
		scores[i] = r.NormFloat64()
	}
	want := slices.Clone(scores)
	slices.Sort(want)
	floatsort.Sort(scores) // as slices.Sort(scores)
	fmt.Println(slices.Equal(scores, want), slices.IsSorted(scores))
	// Output:
	// true true
}
