"""The float32 transform's polynomial coefficients (transform32.go's atanh32Coef, sin32Coef,
cos32Coef and gen32.go's copies): near-minimax Chebyshev fits (mpmath.chebyfit, 60 digits)
on the reduced ranges, each coefficient rounded once to float32 (through numpy, printed as
Go literals), with the worst relative error of the rounded polynomial, evaluated exactly,
on 2001 points.

    python3 coef.py
"""
import mpmath as mp
import numpy as np

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


# −4·atanh(s)/s: the radius's −2 ln m is s times it. (Stream v1's float64 fits, of
# atanh(s)/s, sin and cos with 8, 7 and 8 terms, were made here too until v1 was removed.)
for name, f, a, terms in [("atanh32Coef", lambda z: -4 * atanh_over(z), mp.mpf("0.02944"), 4),
                          ("sin32Coef", sin_over, mp.mpf("0.25"), 4),
                          ("cos32Coef", cos_of, mp.mpf("0.25"), 5)]:
    poly = mp.chebyfit(f, [0, a], terms)
    coef = [float(np.float32(float(c))) for c in poly[::-1]]
    worst = max(abs(sum(mp.mpf(c) * z**k for k, c in enumerate(coef)) - f(z)) / abs(f(z))
                for z in (a * i / 2000 for i in range(2001)))
    lits = ', '.join(repr(float(np.float32(c))) for c in coef)
    print(f"{name} = [{len(coef)}]float32{{{lits}}} // within 2^{float(mp.log(worst, 2)):.2f}")
