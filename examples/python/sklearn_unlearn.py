#!/usr/bin/python3
"""Train, unlearn honestly and fakely, export, audit: scikit-learn's L2-logistic regression.

Run with Debian's Python (python3-sklearn, python3-numpy) and the unlearnaudit package
(python/), which runs the audit binary: from the clone with the package on the path and
audit on PATH (go install ./cmd/audit) or named by $AUDIT or --audit,

    PYTHONPATH=python /usr/bin/python3 examples/python/sklearn_unlearn.py [--out DIR] [--audit PATH]

or with the package installed (pip install ./python, whose wheel carries the binary).

Everything is written into --out (default: a new temporary folder, printed first); nothing
beside the script is touched. The protocol is docs/models-trained-elsewhere.md's: the data
(scikit-learn's breast cancer, standardised), the deleted set (records 0..49) and the
recipe are fixed; only the algorithm's randomness varies, one seed a model.

The recipe: the L2-logistic minimiser (LogisticRegression, C = 1) released with Gaussian
output perturbation N(0, SIGMA² I) on [intercept, coef]. Three samples of MODELS models:

  retrained/  retrained from scratch without the deleted records, released with the noise
  honest/     trained on all the data, then unlearned by retraining without the deleted
              records: an exact unlearner, released with the same noise law
  fake/       trained on all the data, then "unlearned" by an unlearner that forgets
              nothing: the model on all the data, released with the same noise law

Each model is saved as model_NNN.npy ([intercept, coef], float64), and each sample's
per-record logistic losses on the deleted records as scores_<sample>.npy (models × 50).
spec.json states the claim ((ε, δ) = (1, 1e-3)) and what the models were trained on (the
data file, copied beside it, its preprocessing, the deleted records). Then four audits, by unlearnaudit.verify:

  audit verify --spec spec.json --retrained retrained --unlearned fake --out report-fake
  audit verify --spec spec.json --retrained retrained --unlearned honest --out report-honest
  audit verify --spec spec.json --scores --retrained scores_retrained.npy --unlearned scores_fake.npy ...
  audit verify --spec spec.json --scores --retrained scores_retrained.npy --unlearned scores_honest.npy ...

The fake unlearner must FAIL (exit 1); the honest one must not (PASS, exit 0, or
INCONCLUSIVE, exit 3: too few models to show the claim holds). The script prints one line
an audit and exits 0 when every verdict is the expected one, 1 otherwise. Deterministic:
the same files and verdicts on every run.
"""
import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sklearn.datasets
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

import unlearnaudit as ua

MODELS = 100  # a side; at 100 the fake FAILs at ε ≥ 2.5 (the most 100 can show) in seconds
SIGMA = 0.05  # output noise on each of the 31 released parameters
DELETED = np.arange(50)  # the records whose deletion is served
SEEDS = {"retrained": 0, "honest": 10_000, "fake": 20_000}  # disjoint seeds a sample
CLAIM = {"epsilon": 1, "delta": 1e-3}
AUDIT = None  # the binary: --audit, else $AUDIT, the wheel's, or audit on PATH (unlearnaudit.binary)


def train(x, y):
    """The L2-logistic minimiser: [intercept, coef]. Deterministic: the noise is the randomness."""
    clf = LogisticRegression(C=1.0, tol=1e-10, max_iter=10_000).fit(x, y)
    return np.concatenate([clf.intercept_, clf.coef_.ravel()])


def release(theta, rng):
    """Output perturbation: what every model, retrained or unlearned, publishes."""
    return theta + SIGMA * rng.standard_normal(theta.shape)


def unlearn_honest(theta, x, y, deleted):
    """An exact unlearner: retrain from scratch on the records that remain."""
    keep = np.ones(len(y), dtype=bool)
    keep[deleted] = False
    return train(x[keep], y[keep])


def unlearn_fake(theta, x, y, deleted):
    """An unlearner that forgets nothing: it returns the model it was given."""
    return theta


def losses(models, x, y):
    """Each model's logistic loss log(1 + exp(-y(b + w·x))) on each record, y in ±1."""
    ypm = 2.0 * y - 1.0
    margins = ypm[None, :] * (models[:, :1] + models[:, 1:] @ x.T)
    return np.logaddexp(0.0, -margins)


def verify(out, name, label, unlearned, retrained, expect, **kwargs):
    """Audits with unlearnaudit.verify (audit verify) into out/report-<name>, prints its
    verdict; returns whether the binary's exit code is one of expect. A FAIL is a result;
    only bad input raises (AuditError, exit 2)."""
    try:
        r = ua.verify(unlearned, retrained, spec=out / "spec.json", out=out / f"report-{name}", formats=(),
                      progress=False, audit=AUDIT, **kwargs)
    except ua.AuditError as e:
        print(f"{label}: audit verify exit {e.exit_code}, no report  <-- NOT AS EXPECTED")
        sys.stdout.write(e.message)
        return False
    f = r.subjects[0].findings[0]  # the distinguishing game, which decides
    ok = r.exit_code in expect
    print(f"{label}: audit verify exit {r.exit_code}, {r.verdict}: ε lower bound {f.measured:.4g} "
          f"against the claimed {f.bound:g}{'' if ok else '  <-- NOT AS EXPECTED'}")
    if not ok:
        sys.stdout.write(r.text)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="the folder to write into (default: a new temporary folder)")
    ap.add_argument("--audit", help="the audit binary (default: $AUDIT, else audit on PATH)")
    a = ap.parse_args()
    global AUDIT
    try:
        AUDIT = ua.binary(a.audit)
    except FileNotFoundError as e:
        sys.exit(str(e))
    out = Path(a.out) if a.out else Path(tempfile.mkdtemp(prefix="sklearn-unlearn-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"writing into {out}")
    start = time.monotonic()

    # The data as scikit-learn ships it; the spec reads the same file and standardises it
    # as StandardScaler does.
    src = Path(sklearn.datasets.__file__).parent / "data" / "breast_cancer.csv"
    shutil.copyfile(src, out / "breast_cancer.csv")
    x, y = sklearn.datasets.load_breast_cancer(return_X_y=True)
    x = StandardScaler().fit_transform(x)
    spec = {
        "schema": "unlearnaudit/spec/v1",
        "data": {"file": "breast_cancer.csv", "format": "sklearn-csv", "preprocessing": "standardize"},
        "model": {"loss": "logistic", "intercept": True},
        "method": {"name": "output-perturbation-logreg"},
        "deletes": DELETED.tolist(),
        "claim": CLAIM,
    }
    (out / "spec.json").write_text(json.dumps(spec, indent=1) + "\n")

    # The minimisers are deterministic: train once, release many times.
    keep = np.ones(len(y), dtype=bool)
    keep[DELETED] = False
    full = train(x, y)  # the model every unlearner is given
    retrain = train(x[keep], y[keep])
    unlearned = {"honest": unlearn_honest(full, x, y, DELETED), "fake": unlearn_fake(full, x, y, DELETED)}
    pipelines = {
        "retrained": lambda rng: release(retrain, rng),
        "honest": lambda rng: release(unlearned["honest"], rng),
        "fake": lambda rng: release(unlearned["fake"], rng),
    }
    for sample, pipeline in pipelines.items():
        (out / sample).mkdir(exist_ok=True)
        released = []
        for i in range(MODELS):
            theta = pipeline(np.random.default_rng(SEEDS[sample] + i))  # the model's own seed
            np.save(out / sample / f"model_{i:03d}.npy", theta)
            released.append(theta)
        np.save(out / f"scores_{sample}.npy", losses(np.array(released), x[DELETED], y[DELETED]))

    fail, not_fail = (1,), (0, 3)
    # the models as the files saved above, read as they are; the scores as the arrays in memory
    scores = {side: np.load(out / f"scores_{side}.npy") for side in pipelines}
    ok = all([
        verify(out, "fake", "fake unlearner, .npy models", out / "fake", out / "retrained", fail),
        verify(out, "honest", "honest unlearner, .npy models", out / "honest", out / "retrained", not_fail),
        verify(out, "fake-scores", "fake unlearner, scores", scores["fake"], scores["retrained"], fail, scores=True),
        verify(out, "honest-scores", "honest unlearner, scores", scores["honest"], scores["retrained"], not_fail, scores=True),
    ])
    print(f"done in {time.monotonic() - start:.1f} s: {'every verdict as expected' if ok else 'a verdict NOT as expected'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
