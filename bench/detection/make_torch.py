#!/usr/bin/python3
"""Detection fixtures written by PyTorch: a small MLP whose only randomness is its init and batch order.

Run from the repository root with Debian's Python (python3-torch, python3-sklearn, python3-numpy):

    /usr/bin/python3 bench/detection/make_torch.py

Writes into bench/detection/testdata/torch_mlp/:
  deleted_<sample>.npy   64 x 50 float64, each model's cross-entropy loss on the deleted
                         records 0..49, in order
  holdout_<sample>.npy   64 x 100 float64, the same loss on the holdout records 469..568
  params_<sample>.npy    64 x P float32, all parameters flattened in model.parameters() order
                         (Linear(30,32).weight, .bias, Linear(32,2).weight, .bias; P = 1058)
  README.md              what the files are, the training recipe and the mean losses
for sample in retrained (trained on D\\S), honest (D\\S with fresh seeds: an exact unlearner)
and fake (trained on D: an unlearner that forgets nothing). The data and record ranges are
those of make_sklearn.py (breast cancer, standardised on all 569 rows; see bcdata.py).

Each model: torch.manual_seed(seed) fixes the init and the mini-batch order; MLP
30 -> 32 -> 2 with tanh, cross-entropy, Adam (lr LR), STEPS steps of batch BATCH, each epoch
a fresh torch.randperm of the training rows cut into batches. float32 training on the CPU
on one thread; the per-record losses are computed in float64 from the float32 parameters.
No output noise. Deterministic: running it twice writes byte-identical files.
"""
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bcdata  # noqa: E402

STEPS = 300
BATCH = 32
LR = 1e-2
HIDDEN = 32
OUT = bcdata.TESTDATA / "torch_mlp"


def train(X, y, seed):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(X.shape[1], HIDDEN), torch.nn.Tanh(), torch.nn.Linear(HIDDEN, 2))
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    n, step = X.shape[0], 0
    while step < STEPS:
        perm = torch.randperm(n)
        for lo in range(0, n, BATCH):
            if step == STEPS:
                break
            idx = perm[lo:lo + BATCH]
            opt.zero_grad()
            F.cross_entropy(model(X[idx]), y[idx]).backward()
            opt.step()
            step += 1
    return model


def per_record_loss(model, X, y):
    """Cross-entropy of each record, in float64 from the model's float32 parameters."""
    m64 = torch.nn.Sequential(torch.nn.Linear(X.shape[1], HIDDEN), torch.nn.Tanh(), torch.nn.Linear(HIDDEN, 2)).double()
    with torch.no_grad():
        for p64, p in zip(m64.parameters(), model.parameters()):
            p64.copy_(p.double())
        return F.cross_entropy(m64(X.double()), y, reduction="none").numpy()


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    Xn, yn = bcdata.load()
    X = torch.tensor(Xn, dtype=torch.float32)
    y = torch.tensor(yn, dtype=torch.int64)
    X64 = torch.tensor(Xn, dtype=torch.float64)
    OUT.mkdir(parents=True, exist_ok=True)
    lines, P = [], None
    for sample, seeds in bcdata.SEEDS.items():
        idx = torch.tensor(bcdata.TRAIN[sample])
        dele, hold, params = [], [], []
        for s in seeds:
            model = train(X[idx], y[idx], s)
            dele.append(per_record_loss(model, X64[bcdata.DELETED], y[bcdata.DELETED]))
            hold.append(per_record_loss(model, X64[bcdata.HOLDOUT], y[bcdata.HOLDOUT]))
            params.append(torch.cat([p.detach().reshape(-1) for p in model.parameters()]).numpy())
        dele, hold, params = np.array(dele), np.array(hold), np.array(params, dtype=np.float32)
        P = params.shape[1]
        np.save(OUT / f"deleted_{sample}.npy", dele)
        np.save(OUT / f"holdout_{sample}.npy", hold)
        np.save(OUT / f"params_{sample}.npy", params)
        lines.append(f"{sample}: mean over models of the mean deleted loss {dele.mean():.4f} "
                     f"(sd over models {dele.mean(1).std():.4f}), mean holdout loss {hold.mean():.4f}")
    lines.insert(0, f"P = {P} parameters; {STEPS} Adam steps, lr {LR}, batch {BATCH}, tanh, hidden {HIDDEN}")
    print("\n".join(lines))

    readme = f"""# torch_mlp: small PyTorch MLP, randomness = init and batch order

Written by `bench/detection/make_torch.py` (run `/usr/bin/python3 bench/detection/make_torch.py`
from the repository root; deterministic, byte-identical on rerun, CPU, one thread).

Data: the same as `../sklearn_logreg/data.csv` (breast cancer, standardised on all 569 rows,
label 0/1 is the class index). Records 0..49 are the deleted set S; records 469..568 are the
holdout (no model trained on them); D = 0..468, D\\S = 50..468.

Each model: `torch.manual_seed(seed)`, then MLP Linear(30,{HIDDEN}) - tanh - Linear({HIDDEN},2),
cross-entropy, Adam lr {LR}, {STEPS} steps of batch {BATCH} (each epoch a fresh `torch.randperm`
cut into batches, the last one short), float32. No output noise.

| sample | trained on | seeds |
| --- | --- | --- |
| retrained | D\\S | 0..63 |
| honest (exact unlearner) | D\\S | 1000..1063 |
| fake (forgets nothing) | D | 2000..2063 |

Files per sample (64 rows, one per model):
- `deleted_<sample>.npy`: 64 x 50 float64, cross-entropy of each deleted record 0..49 in order
  (computed in float64 from the float32 parameters)
- `holdout_<sample>.npy`: 64 x 100 float64, the same on records 469..568 in order
- `params_<sample>.npy`: 64 x {P} float32, `model.parameters()` flattened in order:
  weight 1 ({HIDDEN}x30, row-major), bias 1 ({HIDDEN}), weight 2 (2x{HIDDEN}), bias 2 (2)

What the script printed:

```
""" + "\n".join(lines) + "\n```\n"
    (OUT / "README.md").write_text(readme)


if __name__ == "__main__":
    main()
