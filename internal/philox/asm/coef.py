"""The transform's polynomial coefficients (transform.go's atanhCoef, sinCoef, cosCoef and
gen.go's copies): near-minimax Chebyshev fits (mpmath.chebyfit, 60 digits) on the reduced
ranges, then rounded once to float64 (printed as Go literals, shortest round-trip), with
the worst relative error of the rounded polynomial, evaluated exactly, on 2001 points.

    python3 coef.py
"""
import mpmath as mp

mp.mp.dps = 60


def atanh_over(z):  # atanh(s)/s, z = s², |s| <= (√2−1)/(√2+1)
    if z == 0:
        return mp.mpf(1)
    r = mp.sqrt(z)
    return mp.atanh(r) / r


def sin_over(z):  # sin(πf/2)/f, z = f², |f| <= ½
    if z == 0:
        return mp.pi / 2
    r = mp.sqrt(z)
    return mp.sin(mp.pi / 2 * r) / r


def cos_of(z):  # cos(πf/2), z = f²
    return mp.cos(mp.pi / 2 * mp.sqrt(z))


for name, f, a, terms in [("atanhCoef", atanh_over, mp.mpf("0.02944"), 8),
                          ("sinCoef", sin_over, mp.mpf("0.25"), 7),
                          ("cosCoef", cos_of, mp.mpf("0.25"), 8)]:
    poly = mp.chebyfit(f, [0, a], terms)
    coef = [float(c) for c in poly[::-1]]  # z⁰ first
    worst = max(abs(sum(mp.mpf(c) * z**k for k, c in enumerate(coef)) - f(z)) / abs(f(z))
                for z in (a * i / 2000 for i in range(2001)))
    print(f"{name} = [{len(coef)}]float64{{{', '.join(repr(c) for c in coef)}}} // within 2^{float(mp.log(worst, 2)):.2f}")

# transform32.go's float32 series (Fill32's): the same fits with fewer terms, −4·atanh(s)/s
# in place of atanh(s)/s (the radius's −2 ln m is s times it), each coefficient rounded
# once to float32 (through numpy), the worst relative error of the rounded polynomial.
import numpy as np

for name, f, a, terms in [("atanh32Coef", lambda z: -4 * atanh_over(z), mp.mpf("0.02944"), 4),
                          ("sin32Coef", sin_over, mp.mpf("0.25"), 4),
                          ("cos32Coef", cos_of, mp.mpf("0.25"), 5)]:
    poly = mp.chebyfit(f, [0, a], terms)
    coef = [float(np.float32(float(c))) for c in poly[::-1]]
    worst = max(abs(sum(mp.mpf(c) * z**k for k, c in enumerate(coef)) - f(z)) / abs(f(z))
                for z in (a * i / 2000 for i in range(2001)))
    lits = ', '.join(repr(float(np.float32(c))) for c in coef)
    print(f"{name} = [{len(coef)}]float32{{{lits}}} // within 2^{float(mp.log(worst, 2)):.2f}")
