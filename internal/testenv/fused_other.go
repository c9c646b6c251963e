//go:build !amd64 && !386

package testenv

// Every other architecture Go builds for either has a fused multiply–add the compiler uses
// for x*y + z (arm64, ppc64le, s390x, riscv64, loong64) or is not one the pins were
// checked on: either way its results are compared to rounding, not to the bit.
const fusesMultiplyAdds = true
