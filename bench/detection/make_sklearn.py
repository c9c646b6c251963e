#!/usr/bin/python3
"""Detection fixtures written by scikit-learn: noisy L2-logistic regression by SGDClassifier.

Run from the repository root with Debian's Python (python3-sklearn, python3-numpy):

    /usr/bin/python3 bench/detection/make_sklearn.py

Writes into bench/detection/testdata/sklearn_logreg/:
  data.csv                 the 569 standardised rows, header f0,...,f29,label (label 0/1)
  models_<sample>.npy      64 x 31 float64, [intercept, coef] of each model, noise added
  deleted_<sample>.npy     64 x 50 float64, logistic loss log(1+exp(-y(b+w.x))), y in {-1,+1},
                           of each model on the deleted records 0..49, in order
  holdout_<sample>.npy     64 x 100 float64, the same loss on the holdout records 469..568
  README.md                what the files are, sigma, epochs and the mean shift
for sample in retrained (SGD on D\\S + noise), honest (SGD on D\\S, fresh seeds, fresh noise:
an exact unlearner) and fake (SGD on D + noise: an unlearner that forgets nothing).

Each model is SGDClassifier(loss="log_loss", alpha=1e-3, max_iter=EPOCHS, tol=None,
learning_rate="optimal", random_state=seed, shuffle=True) with its own seed, then Gaussian
noise N(0, SIGMA^2 I) on [intercept, coef] from numpy's default_rng([NOISE_TAG, seed]).
Deterministic: running it twice writes byte-identical files.
"""
import sys
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bcdata  # noqa: E402

EPOCHS = 100  # passes over the data; across seeds the coordinates' sd is ~0.01 by then
SIGMA = 0.25  # output noise on each of the 31 parameters
NOISE_TAG = 31337
OUT = bcdata.TESTDATA / "sklearn_logreg"


def fit(X, y, seed):
    clf = SGDClassifier(loss="log_loss", alpha=1e-3, max_iter=EPOCHS, tol=None,
                        learning_rate="optimal", random_state=seed, shuffle=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    return np.concatenate([clf.intercept_, clf.coef_.ravel()])


def logistic_loss(models, X, y01):
    """models: m x 31 [b, w]; returns m x n loss log(1+exp(-y(b+w.x))), y = 2*y01-1."""
    ypm = 2.0 * y01 - 1.0
    margin = ypm[None, :] * (models[:, :1] + models[:, 1:] @ X.T)
    return np.logaddexp(0.0, -margin)


def main():
    X, y = bcdata.load()
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "data.csv", "w", newline="\n") as f:
        f.write(",".join([f"f{j}" for j in range(X.shape[1])] + ["label"]) + "\n")
        for row, lab in zip(X, y):
            f.write(",".join(repr(float(v)) for v in row) + f",{int(lab)}\n")

    clean, noisy = {}, {}
    for sample, seeds in bcdata.SEEDS.items():
        idx = bcdata.TRAIN[sample]
        c = np.array([fit(X[idx], y[idx], s) for s in seeds])
        noise = np.array([np.random.default_rng([NOISE_TAG, s]).standard_normal(c.shape[1]) for s in seeds])
        clean[sample], noisy[sample] = c, c + SIGMA * noise
        np.save(OUT / f"models_{sample}.npy", noisy[sample])
        np.save(OUT / f"deleted_{sample}.npy", logistic_loss(noisy[sample], X[bcdata.DELETED], y[bcdata.DELETED]))
        np.save(OUT / f"holdout_{sample}.npy", logistic_loss(noisy[sample], X[bcdata.HOLDOUT], y[bcdata.HOLDOUT]))

    # The shift: distance between the fake's and the retrain's means, in units of sigma.
    shift = np.linalg.norm(clean["fake"].mean(0) - clean["retrained"].mean(0)) / SIGMA
    dirn = clean["fake"].mean(0) - clean["retrained"].mean(0)
    dirn /= np.linalg.norm(dirn)
    along = (noisy["fake"].mean(0) - noisy["retrained"].mean(0)) @ dirn / SIGMA
    sgd_sd = np.mean([clean[s].std(0).mean() for s in clean])
    honest_shift = np.linalg.norm(clean["honest"].mean(0) - clean["retrained"].mean(0)) / SIGMA
    lines = [
        f"epochs {EPOCHS}, sigma {SIGMA}",
        f"SGD spread across seeds (mean per-coordinate sd, before noise): {sgd_sd:.4f} = {sgd_sd / SIGMA:.3f} sigma",
        f"shift |mean(fake) - mean(retrained)| before noise: {shift * SIGMA:.4f} = {shift:.2f} sigma",
        f"same for honest vs retrained: {honest_shift:.3f} sigma",
        f"noisy sample means' difference along the shift direction: {along:.2f} sigma",
    ]
    for s in bcdata.SEEDS:
        d = np.load(OUT / f"deleted_{s}.npy")
        h = np.load(OUT / f"holdout_{s}.npy")
        lines.append(f"{s}: mean deleted loss {d.mean():.4f}, mean holdout loss {h.mean():.4f}")
    print("\n".join(lines))

    readme = f"""# sklearn_logreg: noisy L2-logistic regression (scikit-learn SGDClassifier)

Written by `bench/detection/make_sklearn.py` (run `/usr/bin/python3 bench/detection/make_sklearn.py`
from the repository root; deterministic, byte-identical on rerun).

Data `data.csv`: scikit-learn's breast cancer data, 569 rows, standardised by a StandardScaler
fitted on all rows; columns f0..f29 then `label` (0/1; the loss uses y = 2*label-1).
Records 0..49 are the deleted set S; records 469..568 are the holdout (no model trained on them);
D = 0..468, D\\S = 50..468.

Each model: `SGDClassifier(loss="log_loss", alpha=1e-3, max_iter={EPOCHS}, tol=None,
learning_rate="optimal", random_state=seed, shuffle=True)` ({EPOCHS} epochs), then Gaussian noise
sigma = {SIGMA} on each of the 31 entries of [intercept, coef], from
`np.random.default_rng([{NOISE_TAG}, seed])`.

| sample | trained on | seeds |
| --- | --- | --- |
| retrained | D\\S | 0..63 |
| honest (exact unlearner) | D\\S | 1000..1063 |
| fake (forgets nothing) | D | 2000..2063 |

Files per sample (64 rows, one per model, float64):
- `models_<sample>.npy`: 64 x 31, intercept first (`np.concatenate([clf.intercept_, clf.coef_.ravel()])` + noise)
- `deleted_<sample>.npy`: 64 x 50, loss log(1+exp(-y(b+w.x))) on records 0..49 in order
- `holdout_<sample>.npy`: 64 x 100, the same loss on records 469..568 in order

What the script printed:

```
""" + "\n".join(lines) + "\n```\n"
    (OUT / "README.md").write_text(readme)


if __name__ == "__main__":
    main()
