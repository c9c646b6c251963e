package onerun

import (
	"errors"
	"math"
)

// Defaults of scipy.optimize.brentq, which jax_privacy and dp_accounting call.
const (
	brentRelTol  = 4 * 0x1p-52 // 4·(float64 machine epsilon)
	brentMaxIter = 100
)

var errNoBracket = errors.New("root not bracketed: f(a) and f(b) have the same sign")

// brentRoot finds a zero of f in [a, b] by Brent's method, step for step as
// scipy.optimize.brentq (scipy/optimize/Zeros/brentq.c) takes it, so that a search
// stopped at tolerance xtol lands where jax_privacy's does, not merely within xtol of the
// root. f(a) and f(b) must not share a sign.
func brentRoot(f func(float64) float64, a, b, xtol float64) (float64, error) {
	xpre, xcur := a, b
	fpre, fcur := f(xpre), f(xcur)
	if math.IsNaN(fpre) || math.IsNaN(fcur) {
		return 0, errors.New("objective is NaN at an end of the bracket")
	}
	if fpre*fcur > 0 {
		return 0, errNoBracket
	}
	if fpre == 0 {
		return xpre, nil
	}
	if fcur == 0 {
		return xcur, nil
	}
	var xblk, fblk, spre, scur float64
	for range brentMaxIter {
		if fpre*fcur < 0 {
			xblk, fblk = xpre, fpre
			spre = xcur - xpre
			scur = spre
		}
		if math.Abs(fblk) < math.Abs(fcur) {
			xpre, xcur, xblk = xcur, xblk, xcur
			fpre, fcur, fblk = fcur, fblk, fcur
		}
		tol := (xtol + brentRelTol*math.Abs(xcur)) / 2
		sbis := (xblk - xcur) / 2
		if fcur == 0 || math.Abs(sbis) < tol {
			return xcur, nil
		}
		bisect := true
		if math.Abs(spre) > tol && math.Abs(fcur) < math.Abs(fpre) {
			var stry float64
			if xpre == xblk { // secant step inside the bracket
				stry = -fcur * (xcur - xpre) / (fcur - fpre)
			} else { // inverse quadratic extrapolation
				dpre := (fpre - fcur) / (xpre - xcur)
				dblk := (fblk - fcur) / (xblk - xcur)
				stry = -fcur * (fblk*dblk - fpre*dpre) / (dblk * dpre * (fblk - fpre))
			}
			if 2*math.Abs(stry) < math.Min(math.Abs(spre), 3*math.Abs(sbis)-tol) {
				spre, scur = scur, stry
				bisect = false
			}
		}
		if bisect {
			spre, scur = sbis, sbis
		}
		xpre, fpre = xcur, fcur
		if math.Abs(scur) > tol {
			xcur += scur
		} else if sbis > 0 {
			xcur += tol
		} else {
			xcur -= tol
		}
		fcur = f(xcur)
		if math.IsNaN(fcur) {
			return 0, errors.New("objective is NaN inside the bracket")
		}
	}
	return xcur, errors.New("root search did not converge in 100 iterations")
}
