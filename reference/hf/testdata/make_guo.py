#!/usr/bin/python3
"""Writes reference/hf's golden values for Guo et al.'s certified removal on softmax
regression, computed with NumPy and SciPy (Debian's python3-numpy, python3-scipy) from
their own formulas: the exact minimiser of the perturbed loss by scipy.optimize's
trust-exact method polished with NumPy Newton steps on the explicit Hessian, the Newton
removal by numpy.linalg.solve, ‖X̃‖₂ by an SVD, and both forms of the remainder bound and
the true gradient residual. The Go test holds reference/hf's Guo to them.

Run from the repository root: /usr/bin/python3 reference/hf/testdata/make_guo.py
"""
import json
import os

import numpy as np
import scipy
from scipy.optimize import minimize

out = os.path.dirname(os.path.abspath(__file__))


def unpack(w, k, p):
    return w[: k * p].reshape(k, p), w[k * p:]


def probs(w, x, k, p):
    W, b = unpack(w, k, p)
    z = x @ W.T + b
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def loss(w, x, y, lam, lin, k, p):
    W, b = unpack(w, k, p)
    z = x @ W.T + b
    top = z.max(axis=1, keepdims=True)
    lse = (top[:, 0] + np.log(np.exp(z - top).sum(axis=1)))
    return float((lse - z[np.arange(len(y)), y]).sum() + len(y) * lam / 2 * w @ w + lin @ w)


def grad(w, x, y, lam, lin, k, p):
    pi = probs(w, x, k, p)
    pi[np.arange(len(y)), y] -= 1
    xt = np.hstack([x, np.ones((len(y), 1))])
    g = pi.T @ xt  # K × (p+1)
    return np.concatenate([g[:, :p].ravel(), g[:, p]]) + len(y) * lam * w + lin


def hessian(w, x, lam, k, p):
    """Σ_i J_i ⊗ x̃_i x̃_iᵀ + nλI in the parameter layout (W row by row, then b)."""
    n = x.shape[0]
    pi = probs(w, x, k, p)
    xt = np.hstack([x, np.ones((n, 1))])
    d = k * (p + 1)
    idx = np.array([[c * p + j if j < p else k * p + c for j in range(p + 1)] for c in range(k)])
    h = np.zeros((d, d))
    for i in range(n):
        J = np.diag(pi[i]) - np.outer(pi[i], pi[i])
        outer = np.outer(xt[i], xt[i])
        for a in range(k):
            for c in range(k):
                h[np.ix_(idx[a], idx[c])] += J[a, c] * outer
    return h + n * lam * np.eye(d)


def argmin(x, y, lam, lin, k, p):
    d = k * (p + 1)
    res = minimize(loss, np.zeros(d), args=(x, y, lam, lin, k, p), jac=grad,
                   hess=lambda w, *a: hessian(w, x, lam, k, p), method="trust-exact", options={"gtol": 1e-10})
    w = res.x
    for _ in range(5):  # polish: full Newton steps near the minimiser
        w = w - np.linalg.solve(hessian(w, x, lam, k, p), grad(w, x, y, lam, lin, k, p))
    return w, float(np.linalg.norm(grad(w, x, y, lam, lin, k, p)))


cases = []
rng = np.random.default_rng(20261124)
for k, p, n, lam, sigma, removed in [(2, 3, 12, 0.1, 1.0, [4]), (3, 4, 20, 0.05, 2.0, [0, 7]), (4, 2, 16, 0.5, 0.5, [3, 9, 15])]:
    x = rng.standard_normal((n, p)) * 2 / np.sqrt(p)
    y = rng.integers(0, k, n)
    lin = sigma * rng.standard_normal(k * (p + 1))
    w, res = argmin(x, y, lam, lin, k, p)
    keep = [i for i in range(n) if i not in removed]
    xk, yk = x[keep], y[keep]
    delta = sum(grad(w, x[[u]], y[[u]], lam, np.zeros_like(lin), k, p) for u in removed)
    step = np.linalg.solve(hessian(w, xk, lam, k, p), delta)
    wr = w + step
    xt = np.hstack([x, np.ones((n, 1))])
    xnorm = float(np.linalg.norm(xt, 2))
    rownorm = float(np.linalg.norm(xt, axis=1).max())
    W, b = unpack(step, k, p)
    dz = xk @ W.T + b  # each kept row's logit change
    sq = (dz ** 2).sum(axis=1)
    integral = float(xnorm * np.sqrt((sq ** 2).sum()) / (2 * np.sqrt(2)))
    printed = float(xnorm * rownorm * np.linalg.norm(step) * np.sqrt(sq.sum()) / np.sqrt(2))
    residual = float(np.linalg.norm(grad(wr, xk, yk, lam, lin, k, p)))
    exact, exact_res = argmin(xk, yk, lam, lin, k, p)
    cases.append({"K": k, "p": p, "lambda": lam, "x": x.ravel().tolist(), "y": y.tolist(), "b": lin.tolist(),
                  "removed": removed, "trained": w.tolist(), "trained_residual": res, "unlearned": wr.tolist(),
                  "integral": integral, "printed": printed, "residual": residual, "exact": exact.tolist(),
                  "exact_residual": exact_res})
with open(os.path.join(out, "golden.json"), "w") as f:
    json.dump({"source": "reference/hf/testdata/make_guo.py with NumPy %s and SciPy %s" % (np.__version__, scipy.__version__),
               "guo": cases}, f, indent=1)
    f.write("\n")
