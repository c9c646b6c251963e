package dp

import (
	"fmt"
	"math"
)

// Conversion turns an (α, ε_R)-RDP guarantee into ε at a given δ.
type Conversion int

const (
	// Classic is Mironov 2017, Prop. 3: ε = ε_R + ln(1/δ)/(α−1).
	Classic Conversion = iota
	// Improved is Balle et al. 2020 (AISTATS), Thm 21, also Canonne–Kamath–Steinke 2020,
	// Prop. 12: ε = ε_R + ln((α−1)/α) − (ln δ + ln α)/(α−1).
	Improved
)

func (c Conversion) String() string {
	if c == Classic {
		return "classic (Mironov 2017, Prop. 3)"
	}
	return "improved (Balle et al. 2020, Thm 21)"
}

// RDPToDP converts (α, ε_R)-RDP to (ε, δ)-DP with the given conversion. The result is
// clipped at 0. It panics on α ≤ 1 or δ ∉ (0, 1): those are programmer errors here.
func RDPToDP(conv Conversion, alpha, epsR, delta float64) float64 {
	if !(alpha > 1) || !(delta > 0 && delta < 1) {
		panic(fmt.Sprintf("dp: RDP conversion at α=%v, δ=%v; want α > 1, 0 < δ < 1", alpha, delta))
	}
	if math.IsInf(epsR, 1) {
		return math.Inf(1)
	}
	var eps float64
	switch conv {
	case Classic:
		eps = epsR + math.Log(1/delta)/(alpha-1)
	case Improved:
		eps = epsR + math.Log((alpha-1)/alpha) - (math.Log(delta)+math.Log(alpha))/(alpha-1)
	default:
		panic(fmt.Sprintf("dp: unknown conversion %d", conv))
	}
	return math.Max(0, eps)
}

// DefaultOrders is a grid of Rényi orders in the style of the common accountants:
// 1.25 to 10 in small steps, then up to 256.
func DefaultOrders() []float64 {
	var out []float64
	for a := 1.25; a < 10; a += 0.25 {
		out = append(out, a)
	}
	return append(out, 10, 12, 14, 16, 20, 24, 28, 32, 48, 64, 128, 256)
}

// CurveToDP converts a Rényi curve α ↦ ε_R(α) to (ε, δ) by taking the best order in the
// grid. It returns ε and the order that achieved it.
func CurveToDP(conv Conversion, curve func(alpha float64) float64, orders []float64, delta float64) (eps, bestAlpha float64) {
	eps = math.Inf(1)
	for _, a := range orders {
		if e := RDPToDP(conv, a, curve(a), delta); e < eps {
			eps, bestAlpha = e, a
		}
	}
	return eps, bestAlpha
}

// ZCDPToDPOptimal converts ρ-zCDP (the curve α ↦ αρ) to (ε, δ) with the improved RDP
// conversion minimised over every real α > 1 (golden-section search on the convex
// objective), the conversion OpenDP's make_zCDP_to_approxDP uses.
func ZCDPToDPOptimal(rho, delta float64) float64 {
	if rho == 0 {
		return 0
	}
	f := func(a float64) float64 { return RDPToDP(Improved, a, a*rho, delta) }
	// The classic minimiser 1 + sqrt(ln(1/δ)/ρ) brackets the optimum well.
	hi := 2 + 4*math.Sqrt(math.Log(1/delta)/rho)
	return goldenMin(f, 1+1e-9, hi)
}

func goldenMin(f func(float64) float64, lo, hi float64) float64 {
	_, v := GoldenSection(f, lo, hi, 1e-12)
	return v
}

// GoldenSection minimises a unimodal f on [lo, hi] by golden-section search until the
// bracket is narrower than tol·max(1, |lo|) and returns the better inner point and its
// value.
func GoldenSection(f func(float64) float64, lo, hi, tol float64) (x, fx float64) {
	const g = 0.6180339887498949
	a, b := lo, hi
	c := b - g*(b-a)
	d := a + g*(b-a)
	fc, fd := f(c), f(d)
	for b-a > tol*math.Max(1, math.Abs(a)) {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(d)
		}
	}
	if fc < fd {
		return c, fc
	}
	return d, fd
}

// Bisect narrows a bracket [lo, hi] of a monotone predicate — ok(lo) false, ok(hi) true —
// until done(lo, hi), choosing each next point with mid (the arithmetic mean, or the
// geometric one for scale parameters), and returns hi: the least point found where ok
// holds. An error from ok stops it.
func Bisect(lo, hi float64, mid func(lo, hi float64) float64, done func(lo, hi float64) bool, ok func(float64) (bool, error)) (float64, error) {
	for !done(lo, hi) {
		m := mid(lo, hi)
		yes, err := ok(m)
		if err != nil {
			return 0, err
		}
		if yes {
			hi = m
		} else {
			lo = m
		}
	}
	return hi, nil
}
