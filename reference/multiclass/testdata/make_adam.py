#!/usr/bin/python3
"""Writes reference/multiclass's golden values for Train's Adam: full-batch Adam run by
PyTorch itself (Debian's python3-torch, in float64) on a softmax regression and a tanh MLP,
from fixed starts. The loss is the mean cross-entropy plus (λ/2)·Σ‖param‖² over every
parameter, biases included, as the Go models define it; the parameters are flattened as
the Go models lay them out (each layer's weight, out × in row by row, then its bias).

Run from the repository root: /usr/bin/python3 reference/multiclass/testdata/make_adam.py
"""
import json
import os

import numpy as np
import torch

out = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(20261125)
n, p, k, lam, lr, steps = 12, 4, 3, 0.01, 0.05, 40
x = rng.standard_normal((n, p))
y = rng.integers(0, k, n)
X, Y = torch.tensor(x), torch.tensor(y)


def run(sizes):
    layers = [torch.nn.Linear(sizes[i], sizes[i + 1]) for i in range(len(sizes) - 1)]
    with torch.no_grad():
        for l in layers:
            l.weight.copy_(torch.tensor(rng.standard_normal(l.weight.shape) * 0.5))
            l.bias.copy_(torch.tensor(rng.standard_normal(l.bias.shape) * 0.5))
    flat = lambda: np.concatenate([np.concatenate([l.weight.detach().numpy().ravel(), l.bias.detach().numpy()]) for l in layers])
    w0 = flat()
    params = [q for l in layers for q in (l.weight, l.bias)]
    opt = torch.optim.Adam(params, lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        h = X
        for i, l in enumerate(layers):
            h = l(h)
            if i < len(layers) - 1:
                h = torch.tanh(h)
        loss = torch.nn.functional.cross_entropy(h, Y) + lam / 2 * sum((q ** 2).sum() for q in params)
        loss.backward()
        opt.step()
    return {"sizes": sizes, "w0": w0.tolist(), "w": flat().tolist()}


cases = [run([p, k]), run([p, 5, k])]
with open(os.path.join(out, "golden.json"), "w") as f:
    json.dump({"source": "reference/multiclass/testdata/make_adam.py with PyTorch %s (float64)" % torch.__version__,
               "adam": {"x": x.ravel().tolist(), "y": y.tolist(), "lambda": lam, "lr": lr, "steps": steps, "cases": cases}}, f, indent=1)
    f.write("\n")
