#!/usr/bin/python3
"""Train, unlearn honestly and fakely, export, audit: PyTorch logistic regression, .pt files.

Run with Debian's Python (python3-torch, python3-numpy) and the unlearnaudit package
(python/), which runs the audit binary: from the clone with the package on the path and
audit on PATH (go install ./cmd/audit) or named by $AUDIT or --audit,

    PYTHONPATH=python /usr/bin/python3 examples/python/torch_unlearn.py [--out DIR] [--audit PATH]

or with the package installed (pip install ./python, whose wheel carries the binary).

Everything is written into --out (default: a new temporary folder, printed first); nothing
beside the script is touched. The protocol is docs/models-trained-elsewhere.md's: the data
(a synthetic set drawn once from a fixed seed, written to data.csv), the deleted set
(records 0..49) and the recipe are fixed; only the algorithm's randomness varies:
torch.manual_seed(seed) fixes each model's initialisation and mini-batch order.

The recipe: torch.nn.Linear(10, 1), binary cross-entropy, plain SGD with weight decay
(an L2-logistic model), EPOCHS epochs of batch BATCH, float32, one thread. Three samples
of MODELS models:

  retrained/  trained from scratch without the deleted records
  honest/     trained on all the data, then unlearned by retraining without the deleted
              records from a fresh seed: an exact unlearner
  fake/       trained on all the data, then "unlearned" by an unlearner that forgets
              nothing: the model it was given

Each model is saved as torch.save(model.state_dict(), "<sample>/model_NNN.pt") — the
audit reads these files without Python; --tensor bias,weight lays each model out as
[intercept, weights], the order the spec's "model": {"intercept": true} declares — and each
sample's per-record losses on the deleted records as scores_<sample>.npy (models × 50,
float64). spec.json states the claim ((ε, δ) = (1, 1e-3)) and the data the models were
trained on. Then four audits, by unlearnaudit.verify:

  audit verify --spec spec.json --tensor bias,weight --retrained retrained --unlearned fake --out report-fake
  audit verify --spec spec.json --tensor bias,weight --retrained retrained --unlearned honest --out report-honest
  audit verify --spec spec.json --scores --retrained scores_retrained.npy --unlearned scores_fake.npy ...
  audit verify --spec spec.json --scores --retrained scores_retrained.npy --unlearned scores_honest.npy ...

The fake unlearner must FAIL (exit 1); the honest one must not (PASS, exit 0, or
INCONCLUSIVE, exit 3: too few models to show the claim holds). The script prints one line
an audit and exits 0 when every verdict is the expected one, 1 otherwise. Deterministic:
the same files and verdicts on every run.
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

import unlearnaudit as ua

MODELS = 100  # a side; at 100 the fake FAILs with room to spare and the run takes seconds
RECORDS, FEATURES = 500, 10
DELETED = np.arange(50)  # the records whose deletion is served
EPOCHS, BATCH, LR, WEIGHT_DECAY = 5, 100, 0.5, 1e-2
SEEDS = {"retrained": 0, "honest": 10_000, "fake": 20_000}  # disjoint seeds a sample
UNLEARN_SEED = 50_000  # the honest unlearner's retraining seeds: fresh, disjoint from the rest
CLAIM = {"epsilon": 1, "delta": 1e-3}
AUDIT = None  # the binary: --audit, else $AUDIT, the wheel's, or audit on PATH (unlearnaudit.binary)


def make_data():
    """A fixed synthetic set: Gaussian features, labels drawn from a logistic model."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((RECORDS, FEATURES)).astype(np.float32)
    w = rng.standard_normal(FEATURES)
    y = (rng.random(RECORDS) < 1 / (1 + np.exp(-x @ w))).astype(np.float32)
    return x, y


def train(x, y, seed):
    """SGD on the L2-logistic loss; the seed fixes the initialisation and the batch order."""
    torch.manual_seed(seed)
    model = torch.nn.Linear(x.shape[1], 1)
    opt = torch.optim.SGD(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    for _ in range(EPOCHS):
        perm = torch.randperm(len(y))
        for lo in range(0, len(y), BATCH):
            i = perm[lo:lo + BATCH]
            opt.zero_grad()
            F.binary_cross_entropy_with_logits(model(x[i]).squeeze(1), y[i]).backward()
            opt.step()
    return model


def unlearn_honest(model, x, y, deleted, seed):
    """An exact unlearner: retrain from scratch, from a fresh seed, on the records that remain."""
    keep = torch.ones(len(y), dtype=torch.bool)
    keep[deleted] = False
    return train(x[keep], y[keep], seed)


def unlearn_fake(model, x, y, deleted, seed):
    """An unlearner that forgets nothing: it returns the model it was given."""
    return model


def losses(model, x, y):
    """The model's binary cross-entropy on each record, in float64 from its float32 weights."""
    with torch.no_grad():
        logits = x.double() @ model.weight.double().T + model.bias.double()
        return F.binary_cross_entropy_with_logits(logits.squeeze(1), y.double(), reduction="none").numpy()


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
    out = Path(a.out) if a.out else Path(tempfile.mkdtemp(prefix="torch-unlearn-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"writing into {out}")
    start = time.monotonic()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    xn, yn = make_data()
    with open(out / "data.csv", "w") as f:
        f.write(",".join([f"x{j}" for j in range(FEATURES)] + ["label"]) + "\n")
        for row, label in zip(xn, yn):
            # repr of each float32 as a float64: the audit reads the values trained on
            f.write(",".join(repr(float(v)) for v in row) + f",{int(label)}\n")
    spec = {
        "schema": "unlearnaudit/spec/v1",
        "data": {"file": "data.csv", "format": "csv", "header": True, "label_column": -1, "preprocessing": "none"},
        "model": {"loss": "logistic", "intercept": True},
        "method": {"name": "sgd-logreg-torch"},
        "deletes": DELETED.tolist(),
        "claim": CLAIM,
    }
    (out / "spec.json").write_text(json.dumps(spec, indent=1) + "\n")

    x, y = torch.from_numpy(xn), torch.from_numpy(yn)
    keep = torch.ones(len(y), dtype=torch.bool)
    keep[DELETED] = False
    pipelines = {
        "retrained": lambda seed: train(x[keep], y[keep], seed),
        "honest": lambda seed: unlearn_honest(train(x, y, seed), x, y, DELETED, UNLEARN_SEED + seed),
        "fake": lambda seed: unlearn_fake(train(x, y, seed), x, y, DELETED, UNLEARN_SEED + seed),
    }
    for sample, pipeline in pipelines.items():
        (out / sample).mkdir(exist_ok=True)
        scores = []
        for i in range(MODELS):
            model = pipeline(SEEDS[sample] + i)  # the model's own seed
            torch.save(model.state_dict(), out / sample / f"model_{i:03d}.pt")
            scores.append(losses(model, x[DELETED], y[DELETED]))
        np.save(out / f"scores_{sample}.npy", np.array(scores))

    fail, not_fail = (1,), (0, 3)
    # the models as the files saved above, read as they are; the scores as the arrays in memory
    scores = {side: np.load(out / f"scores_{side}.npy") for side in pipelines}
    ok = all([
        verify(out, "fake", "fake unlearner, .pt models", out / "fake", out / "retrained", fail, tensors=["bias", "weight"]),
        verify(out, "honest", "honest unlearner, .pt models", out / "honest", out / "retrained", not_fail, tensors=["bias", "weight"]),
        verify(out, "fake-scores", "fake unlearner, scores", scores["fake"], scores["retrained"], fail, scores=True),
        verify(out, "honest-scores", "honest unlearner, scores", scores["honest"], scores["retrained"], not_fail, scores=True),
    ])
    print(f"done in {time.monotonic() - start:.1f} s: {'every verdict as expected' if ok else 'a verdict NOT as expected'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
