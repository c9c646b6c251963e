//go:build !amd64

package logit

// HasAsm reports whether Derivs runs its assembly: never on this architecture.
var HasAsm = false

func derivsAVX2(w, u, y, c *float64, n int, inv float64) int { panic("logit: no assembly") }
