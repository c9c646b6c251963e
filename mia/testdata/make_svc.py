#!/usr/bin/python3
"""Writes mia's golden values for FitSVC: scikit-learn's SVC (LIBSVM) with the RBF kernel,
gamma="scale", on two overlapping Gaussian classes, its decision function on held-out
points and its dual objective ½αᵀQα − Σα from the fitted dual coefficients.

Run from the repository root: /usr/bin/python3 mia/testdata/make_svc.py
"""
import json
import os

import numpy as np
import sklearn
from sklearn.svm import SVC

out = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261125)
cases = []
for n, dim, sep, c in [(200, 3, 1.0, 1.0), (300, 5, 0.5, 10.0)]:
    x = rng.standard_normal((n, dim))
    y = rng.integers(0, 2, n)
    x[y == 1] += sep
    test = rng.standard_normal((100, dim)) + sep * rng.integers(0, 2, (100, 1))
    svc = SVC(C=c, kernel="rbf", gamma="scale", tol=1e-6).fit(x, y)
    sv, coef = svc.support_vectors_, svc.dual_coef_[0]
    k = np.exp(-svc._gamma * ((sv[:, None, :] - sv[None, :, :]) ** 2).sum(-1))
    objective = 0.5 * coef @ k @ coef - np.abs(coef).sum()
    cases.append({"C": c, "x": x.ravel().tolist(), "y": y.tolist(), "dim": dim, "gamma": float(svc._gamma),
                  "test": test.ravel().tolist(), "decision": svc.decision_function(test).tolist(),
                  "objective": float(objective), "support": int(len(sv))})
with open(os.path.join(out, "golden.json"), "w") as f:
    json.dump({"source": "mia/testdata/make_svc.py with scikit-learn %s" % sklearn.__version__, "svc": cases}, f, indent=1)
    f.write("\n")
