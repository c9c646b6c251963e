package testenv

import (
	"math"
	"runtime"
	"testing"
)

//go:noinline
func mulAdd(x, y, z float64) float64 { return x*y + z }

// ReferenceFloats must say what the compiler does: x·y + z with x = y = 1 + 2⁻³⁰ and z = −1
// is 2⁻²⁹ rounded after the product (its 2⁻⁶⁰ is lost there) and 2⁻²⁹ + 2⁻⁶⁰ fused. A
// reference build never fuses; arm64 and amd64 at GOAMD64=v3 fuse this one.
func TestReferenceFloatsIsTheCompilers(t *testing.T) {
	x, z := 1+0x1p-30, -1.0
	unfused, fused := float64(x*x)+z, math.FMA(x, x, z)
	if unfused == fused {
		t.Fatalf("the probe does not tell the two apart: %g", unfused)
	}
	got := mulAdd(x, x, z)
	switch {
	case ReferenceFloats && got != unfused:
		t.Errorf("ReferenceFloats, but this build (%s) fused x*y + z: %g, not %g", runtime.GOARCH, got, unfused)
	case !ReferenceFloats && (runtime.GOARCH == "arm64" || runtime.GOARCH == "amd64") && got != fused:
		t.Errorf("not ReferenceFloats, but this build (%s) did not fuse x*y + z: %g, not %g", runtime.GOARCH, got, fused)
	}
}
