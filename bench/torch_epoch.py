#!/usr/bin/python3
"""One SGLU trial-epoch in PyTorch on the CPU, the comparison for reference/ensemble's
BenchmarkTrialEpoch: projected noisy mini-batch SGD on L2-logistic regression at the SGLU
paper's MNIST scale (11 264 x 784 float64 rows of norm 1, labels +-1), one trial at a time,
as a PyTorch user writes it (a Python loop over the batches, autograd-free tensor ops).

Usage: /usr/bin/python3 bench/torch_epoch.py [batch]   (Debian's python3-torch)
Prints the seconds per trial-epoch (best of 5 epochs) for full batch and for the batch size
given (default 128), on one thread and on all.
"""
import sys
import time

import torch

n, d = 11264, 784
lam = 1e-6 * n
eta, sigma, radius = 1 / (0.25 + lam), 0.03, 100.0
g = torch.Generator().manual_seed(1)
X = torch.randn(n, d, dtype=torch.float64, generator=g)
X /= X.norm(dim=1, keepdim=True)
w = torch.randn(d, dtype=torch.float64, generator=g)
y = torch.sign(X @ w + 0.5 * torch.randn(n, dtype=torch.float64, generator=g))


def epoch(theta, b):
    for lo in range(0, n, b):
        xb, yb = X[lo:lo + b], y[lo:lo + b]
        r = -yb * torch.sigmoid(-yb * (xb @ theta))
        grad = xb.T @ r / xb.shape[0] + lam * theta
        theta = theta - eta * grad + (2 * eta) ** 0.5 * sigma * torch.randn(d, dtype=torch.float64, generator=g)
        nrm = theta.norm()
        if nrm > radius:
            theta = theta * (radius / nrm)
    return theta


batch = int(sys.argv[1]) if len(sys.argv) > 1 else 128
for threads in (1, torch.get_num_threads()):
    torch.set_num_threads(threads)
    for b in (n, batch):
        theta = torch.zeros(d, dtype=torch.float64)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            theta = epoch(theta, b)
            best = min(best, time.perf_counter() - t0)
        print(f"torch={torch.__version__} threads={threads} batch={b} seconds_per_trial_epoch={best:.6f}")
