#!/usr/bin/python3
"""Fixtures of audit verify's pre-noise route (docs/noisy-release.md), written by the tools a
pipeline uses: scikit-learn trains, NumPy saves the parameters before the noise, PyTorch
draws the noise and saves the published models as state dicts.

The pipeline unlearns by output perturbation (Chaudhuri et al. 2011; the Gaussian release
of Guo et al. 2020 and Neel et al. 2021): it fits L2-logistic regression without an
intercept, objective ½‖w‖² + C Σᵢ log(1 + exp(−yᵢ wᵀxᵢ)) (scikit-learn's LogisticRegression,
C = 0.01), on scikit-learn's breast-cancer data, the last 100 records held out as a test set
(standardised by the other 469, then every record scaled to ‖x‖ = 1); serves the deletion of
the first 10 records by doing nothing (it publishes the model fitted on all 469 training
records); and hides the difference with Gaussian noise. Its certificate:

  Δ = C·k = 0.1: the objective without the k = 10 deleted records is 1-strongly convex, and
      at the full-data minimiser its gradient is −C Σ over the deleted records of their loss
      gradients, each of norm ≤ ‖x‖ = 1, so the two minimisers are at most C·k apart;
  σ = 0.3731: the analytic Gaussian mechanism needs 0.37306 at Δ = 0.1 for ε = 1, δ = 1e-5.

L-BFGS is deterministic, so the 32 pairs before the noise are equal; the randomness of the
release is the noise alone, drawn afresh for each published model. It writes, into OUT:

  spec.json                      the claim and the certificate
  honest/prenoise_unlearned.npy  32 × 30, each row the full-data model (NumPy)
  honest/prenoise_retrained.npy  32 × 30, each row the model fitted without the 10 records
  honest/unlearned/model_NN.pt   each row plus N(0, σ²) noise, a state dict {"weight": 1 × 30}
  honest/retrained/model_NN.pt   (torch.save; float64)
  honest/utility.npz             each published model's logistic loss and correctness (1 or
                                 0) on the forget (10), retain (459) and test (100) records,
                                 arrays SIDE_SET_loss and SIDE_SET_correct (NumPy)
  half/…                         the same with noise of variance σ²/2: less than declared

    /usr/bin/python3 cmd/audit/testdata/noisy/make_noisy.py [OUT]

writes into OUT (default: a new temporary folder), printed first; OUT must be new or empty.
The committed fixtures beside it are its output (TestMakeNoisyRegeneratesTheFixtures checks
the values, up to the last bits a BLAS rounds differently).
"""
import json
import os
import sys
import tempfile

import numpy as np
import torch
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler, normalize

C, K, SIGMA, MODELS = 0.01, 10, 0.3731, 32

if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
    sys.exit("usage: make_noisy.py [OUT]: OUT, a new or empty folder (default: a new temporary one)")
if len(sys.argv) == 2:
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        sys.exit(f"make_noisy.py: {out} is not empty: give a new or empty folder (nothing is written over)")
else:
    out = tempfile.mkdtemp(prefix="noisy-models-")
print("writing into", out)

x, y = load_breast_cancer(return_X_y=True)
TEST = 100
train = np.arange(len(y)) < len(y) - TEST  # the last 100 records are never trained on
x = normalize(StandardScaler().fit(x[train]).transform(x))  # ‖x‖ = 1: each loss gradient has norm ≤ 1
keep = train.copy()
keep[:K] = False  # the deleted records
sets = {"forget": train & ~keep, "retain": keep, "test": ~train}
signs = 2.0 * y - 1  # labels as ±1


def fit(mask):
    clf = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=100000).fit(x[mask], y[mask])
    return clf.coef_.ravel()


full, retrained = fit(train), fit(keep)
gap = np.linalg.norm(full - retrained)
assert gap <= C * K, f"the gap {gap} exceeds the proof's Δ = {C * K}"
print(f"pre-noise gap {gap:.6g} (Δ = {C * K:g})")

with open(os.path.join(out, "spec.json"), "w") as f:
    json.dump({"schema": "unlearnaudit/spec/v1", "method": {"name": "output perturbation (do-nothing + Gaussian noise)"},
               "claim": {"epsilon": 1, "delta": 1e-5}, "noise": {"sensitivity": C * K, "sigma": SIGMA}}, f, indent=2)
    f.write("\n")

for case, sigma, seed in [("honest", SIGMA, 1000), ("half", SIGMA / np.sqrt(2), 5000)]:
    utility = {}
    for side, pre in [("unlearned", full), ("retrained", retrained)]:
        os.makedirs(os.path.join(out, case, side))
        models = []
        np.save(os.path.join(out, case, f"prenoise_{side}.npy"), np.tile(pre, (MODELS, 1)))
        for i in range(MODELS):
            g = torch.Generator().manual_seed(seed + i)
            noise = sigma * torch.randn(pre.shape, generator=g, dtype=torch.float64)
            published = torch.from_numpy(pre).reshape(1, -1) + noise.reshape(1, -1)
            torch.save({"weight": published}, os.path.join(out, case, side, f"model_{i:02d}.pt"))
            models.append(published.numpy().ravel())
        seed += MODELS
        margins = np.array(models) @ x.T  # models × records
        for name, rows in sets.items():
            utility[f"{side}_{name}_loss"] = np.logaddexp(0, -signs[rows] * margins[:, rows])
            utility[f"{side}_{name}_correct"] = ((margins[:, rows] > 0) == (signs[rows] > 0)).astype(np.float64)
    np.savez(os.path.join(out, case, "utility.npz"), **utility)
