package logit

import "github.com/unlearnaudit/unlearnaudit/internal/fexp"

// Sigmoid is σ(t) = 1/(1 + e^(−t)), computed without overflow.
func Sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + fexp.Exp(-t))
	}
	e := fexp.Exp(t)
	return e / (1 + e)
}

// Deriv is the logistic link's derivative in the margin u for label y (±1), the loss
// clipped at c (+Inf: no clipping): −y·min(σ(−y·u), c), where a NaN σ stays NaN.
func Deriv(u, y, c float64) float64 {
	s := Sigmoid(-y * u)
	if s > c { // a plain comparison: math.Min's NaN and signed-zero handling costs 9 % here
		s = c
	}
	return -y * s
}

// Derivs sets w[i] = inv · Deriv(u[i], y[i], c[i]) for every i < len(w), bit for bit (see
// the package comment), for any inv but a NaN: when inv and the derivative are both NaN,
// the assembly keeps inv's payload and Go's product may keep the other's. u, y and c must
// be at least as long as w (w must not overlap them: a redone block rereads them).
func Derivs(w, u, y, c []float64, inv float64) {
	n := len(w)
	u, y, c = u[:n], y[:n], c[:n]
	head := 0
	if HasAsm {
		head = n &^ 3
		if head > 0 && derivsAVX2(&w[0], &u[0], &y[0], &c[0], head, inv) != 0 {
			head = 0 // a lane left math.Exp's normal path: Go does them all
		}
	}
	for i := head; i < n; i++ {
		w[i] = inv * Deriv(u[i], y[i], c[i])
	}
}
