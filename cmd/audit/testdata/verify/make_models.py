#!/usr/bin/python3
"""Models of audit verify's tests, trained by scikit-learn (Debian's python3-sklearn) and
saved by NumPy: L2-logistic regression on scikit-learn's breast-cancer data (standardised),
50 records deleted. Each model is the minimiser plus Gaussian output noise (σ = 0.02), a
release that (ε, δ)-unlearning can hold for:

  retrained/  minimiser on the data without the deleted records, plus noise
  good/       the same recipe run again with other noise: a correct unlearner's law
  broken/     minimiser on all the data (the deletion ignored), plus noise

so `verify --unlearned good --retrained retrained` compares one law with itself and
`verify --unlearned broken --retrained retrained` a law shifted by the deleted records.
scores_NAME.npz holds each model's logistic loss on the 50 deleted records (40 × 50), for
`verify --scores`.

    /usr/bin/python3 cmd/audit/testdata/verify/make_models.py [OUT]

writes into OUT (default: a new temporary folder), printed first. OUT must be new or empty:
the script never writes over files, the committed fixtures beside it included; to update
them, regenerate into a fresh folder and copy. Deterministic: the files it writes hold the
committed ones' values up to the last bits a BLAS rounds differently from one machine to
another (cmd/audit's TestMakeModelsRegeneratesTheFixtures).
"""
import os
import sys
import tempfile

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
    sys.exit("usage: make_models.py [OUT]: OUT, a new or empty folder (default: a new temporary one)")
if len(sys.argv) == 2:
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        sys.exit(f"make_models.py: {out} is not empty: give a new or empty folder (nothing is written over)")
else:
    out = tempfile.mkdtemp(prefix="verify-models-")
print("writing into", out)
x, y = load_breast_cancer(return_X_y=True)
x = StandardScaler().fit_transform(x)
keep = np.ones(len(y), dtype=bool)
keep[:50] = False  # the deleted records


def fit(mask):
    clf = LogisticRegression(C=1.0, tol=1e-10, max_iter=10000).fit(x[mask], y[mask])
    return np.concatenate([clf.intercept_, clf.coef_.ravel()])


retrained, full = fit(keep), fit(np.ones(len(y), dtype=bool))
rng = np.random.default_rng(11)
signs = 2.0 * y[~keep] - 1  # labels of the deleted records as ±1
for name, centre in [("retrained", retrained), ("good", retrained), ("broken", full)]:
    os.makedirs(os.path.join(out, name))
    scores = []
    for i in range(40):
        model = centre + 0.02 * rng.standard_normal(centre.shape)
        np.save(os.path.join(out, name, f"model_{i:02d}.npy"), model)
        # per-example scores: each model's logistic loss on the 50 deleted records
        margins = signs * (model[0] + x[~keep] @ model[1:])
        scores.append(np.logaddexp(0, -margins))
    np.savez(os.path.join(out, f"scores_{name}.npz"), losses=np.array(scores))
print("shift of the broken mean:", np.linalg.norm(full - retrained))
