package testenv

import (
	"runtime"
	"testing"
)

// ReferenceFloats reports whether this build rounds floating point as the builds the
// project's bit-pinned results were written with (CI's): amd64 below GOAMD64=v3, where Go
// never fuses x*y + z into one rounding. On arm64, ppc64le, s390x, riscv64 and loong64,
// and on amd64 from GOAMD64=v3, the compiler fuses such expressions where it chooses, so
// the same code's results agree with those pins to rounding only.
const ReferenceFloats = !fusesMultiplyAdds

// SkipUnlessReferenceFloats skips a test that compares results to the bit with results
// written on amd64, on a build whose compiler fuses multiply–adds (ReferenceFloats false).
func SkipUnlessReferenceFloats(tb testing.TB) {
	tb.Helper()
	if !ReferenceFloats {
		tb.Skipf("results pinned to the bit on amd64; this build (%s/%s) fuses multiply–adds, so its numbers differ in their last digits", runtime.GOOS, runtime.GOARCH)
	}
}
