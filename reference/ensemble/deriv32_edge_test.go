package ensemble

import (
	"math"
	"testing"
)

// The float32 weights kernels give logisticDeriv32's bits, always on (TestWeights32Exhaustive
// is opt-in), where exp32's steps turn: 64 margins either side of each |t| = (k + ½)·ln2,
// k = 0..125, where round(x·log₂e) changes and r is largest; ±87 and its neighbours; ±0,
// the least subnormals and normals; both labels. Planted and caught: the AVX2 kernel's
// VROUNDPS rounding down, not to nearest (a bit change at every turn).
func TestWeights32MatchDeriv32WhereKTurns(t *testing.T) {
	if !HasAsm {
		t.Skip("no AVX2 here: the kernels never run")
	}
	var us []float32
	for k := range 126 {
		edge := (float32(k) + 0.5) * float32(math.Ln2)
		u := edge
		for range 64 {
			u = math.Nextafter32(u, 0)
		}
		for range 129 {
			us = append(us, u, -u)
			u = math.Nextafter32(u, 100)
		}
	}
	for _, u := range []float32{87, math.Nextafter32(87, 0), 0, 0x1p-149, 0x1p-126, math.Nextafter32(0x1p-126, 0)} {
		us = append(us, u, -u)
	}
	us = append(us, float32(math.Copysign(0, -1)))
	for len(us)%16 != 0 {
		us = append(us, 1)
	}
	const inv = float32(1.0 / 96)
	kernels := weights32Kernels()
	got := make([]float32, len(us))
	for _, y := range []float32{1, -1} {
		for _, k := range kernels {
			if !k.f(&got[0], &us[0], &y, 1, len(us), inv) {
				t.Fatalf("%s: a margin flagged beyond 87", k.name)
			}
			for i, u := range us {
				if want := inv * logisticDeriv32(u, y); math.Float32bits(got[i]) != math.Float32bits(want) {
					t.Fatalf("%s: margin %v (bits %#x), y = %v: kernel %v, logisticDeriv32 %v", k.name, u, math.Float32bits(u), y, got[i], want)
				}
			}
		}
	}
}
