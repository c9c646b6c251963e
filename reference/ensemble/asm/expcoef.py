"""exp32's constants (reference/ensemble/deriv32.go's exp32Coef, ln2Hi32, ln2Lo32, log2e32,
and gen.go's copies in exp32Consts): P(r) ≈ (eʳ − 1 − r)/r² on |r| ≤ ln2/2 (widened by
2⁻²⁰), a near-minimax Chebyshev fit (mpmath.chebyfit, 60 digits) of 5 terms, each
coefficient rounded once to float32 (through numpy, printed as Go literals), with the worst
relative error of 1 + r + r²·P(r), evaluated exactly, on 4001 points; and the Cody–Waite
split of ln 2: ln2Hi = 355/512 (9 bits), ln2Lo = ln 2 − ln2Hi rounded to float32.

    /usr/bin/python3 expcoef.py
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 60
h = mp.log(2) / 2 * (1 + mp.mpf(2)**-20)


def P(r):
    if abs(r) < mp.mpf(10)**-30:
        return mp.mpf(1) / 2
    return (mp.exp(r) - 1 - r) / r**2


poly = mp.chebyfit(P, [-h, h], 5)
coef = [float(np.float32(float(c))) for c in poly[::-1]]
worst = max(abs(1 + r + r * r * sum(mp.mpf(c) * r**k for k, c in enumerate(coef)) - mp.exp(r)) / mp.exp(r)
            for r in (-h + 2 * h * i / 4000 for i in range(4001)))
lits = ', '.join(repr(c) for c in coef)
print(f"exp32Coef = [5]float32{{{lits}}} // eʳ within 2^{float(mp.log(worst, 2)):.2f}")
hi = mp.mpf(355) / 512
print(f"ln2Hi32 = {float(hi)!r}, ln2Lo32 = {float(np.float32(float(mp.log(2) - hi)))!r}")
print(f"log2e32 = {float(np.float32(float(1 / mp.log(2))))!r}")
