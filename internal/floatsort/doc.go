// Package floatsort sorts float64s in increasing order with slices.Sort's result, faster
// for the long slices the checks sort (the distinguishing game's scores, 10⁵–10⁶ of them
// per side): a radix sort of the values' bits, four passes of 16 bits, in place of a
// comparison sort.
//
// The result is slices.Sort's exactly. A sorted slice of values is unique when equal
// values have equal bits, which holds for every float64 but two: −0 and +0 compare equal
// and slices.Sort may leave them in either order, and NaNs. Sort hands a slice holding
// both zeros, or a NaN, to slices.Sort itself; so it does slices shorter than Threshold,
// where the comparison sort is faster (a radix pass clears 65 536 counts).
//
//	floatsort.Sort(scores) // as slices.Sort(scores)
//
// (ExampleSort checks it.)
package floatsort
