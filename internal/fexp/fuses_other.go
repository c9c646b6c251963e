//go:build !amd64

package fexp

// mathFuses is false: math.Exp's FMA path is amd64's (other architectures' math.Exp is
// another algorithm), so Exp computes it.
const mathFuses = false
