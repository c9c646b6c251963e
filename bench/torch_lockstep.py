#!/usr/bin/python3
"""SGLU trial-epochs in PyTorch on the CPU, vectorised across trials: the peer of
reference/sglu's BenchmarkFullEpoch lockstep ensembles, as a PyTorch user who batches trials
writes it. The k trials' parameters are the columns of one d x k matrix Theta; each step is
one GEMM for all k margins, one for all k gradients, the k noise vectors drawn at once, and
each column projected onto the ball of radius R. Same problem as bench/torch_epoch.py (the
one-trial loop): projected noisy mini-batch SGD on L2-logistic regression at the SGLU
paper's MNIST scale (11 264 x 784 rows of norm 1, labels +-1, lambda = 1e-6 n,
eta = 1/(1/4 + lambda), sigma = 0.03, R = 100), full epochs (gradients + noise + step +
projection).

Usage: /usr/bin/python3 bench/torch_lockstep.py [threads ...]   (Debian's python3-torch;
default threads 2 and 1)
Debian's python3-torch calls whatever libblas.so.3 is installed: the reference BLAS
(libblas3, unblocked GEMMs) unless OpenBLAS is (apt-get install libopenblas0-pthread), which
a PyTorch user who cares for speed has, and which is the peer to measure. The script names
the BLAS it got and gives OpenBLAS the same thread count as PyTorch.
Prints, for float64 and float32, k = 8, 32, 128, full batch and b = 512, 128, 32, the milliseconds
per trial-epoch: the median over the timed epochs (at least 3, about a second's worth) and
the fastest.
"""
import ctypes
import statistics
import sys
import time

import torch

try:  # the libblas.so.3 PyTorch loaded: OpenBLAS has its own threads, set with torch's below
    _blas = ctypes.CDLL("libblas.so.3")
    _blas.openblas_get_config.restype = ctypes.c_char_p
    blas = "OpenBLAS " + _blas.openblas_get_config().decode().split()[1]
    set_blas_threads = _blas.openblas_set_num_threads
except (OSError, AttributeError):
    blas, set_blas_threads = "reference", lambda _: None

n, d = 11264, 784
lam = 1e-6 * n
eta, sigma, radius = 1 / (0.25 + lam), 0.03, 100.0
sd = (2 * eta) ** 0.5 * sigma
g = torch.Generator().manual_seed(1)
X64 = torch.randn(n, d, dtype=torch.float64, generator=g)
X64 /= X64.norm(dim=1, keepdim=True)
w = torch.randn(d, dtype=torch.float64, generator=g)
y64 = torch.sign(X64 @ w + 0.5 * torch.randn(n, dtype=torch.float64, generator=g))


def epoch(X, y, Theta, b, noise):
    """One epoch of all k trials (the columns of Theta), in place, without autograd."""
    for lo in range(0, n, b):
        xb, yb = X[lo:lo + b], y[lo:lo + b, None]
        R = torch.sigmoid(torch.mm(xb, Theta).mul_(yb).neg_()).mul_(yb).neg_()  # -y*sig(-y*x.theta)
        G = torch.addmm(Theta, xb.T, R, beta=lam, alpha=1 / xb.shape[0])  # X^T R / b + lam*Theta
        torch.randn(noise.shape, generator=g, dtype=noise.dtype, out=noise)
        Theta.add_(G, alpha=-eta).add_(noise, alpha=sd)
        Theta.mul_(torch.clamp(radius / Theta.norm(dim=0), max=1.0))  # each column onto the ball
    return Theta


threads = [int(a) for a in sys.argv[1:]] or [2, 1]
with torch.no_grad():
    for nt in threads:
        torch.set_num_threads(nt)
        set_blas_threads(nt)
        for dtype in (torch.float64, torch.float32):
            X, y = X64.to(dtype).contiguous(), y64.to(dtype).contiguous()
            prec = str(dtype).removeprefix("torch.")
            for b in (n, 512, 128, 32):
                for k in (8, 32, 128):
                    Theta = torch.zeros(d, k, dtype=dtype)
                    noise = torch.empty(d, k, dtype=dtype)
                    epoch(X, y, Theta, b, noise)  # warm-up
                    times, start = [], time.perf_counter()
                    while len(times) < 3 or time.perf_counter() - start < 1:
                        t0 = time.perf_counter()
                        epoch(X, y, Theta, b, noise)
                        times.append(time.perf_counter() - t0)
                    med, best = statistics.median(times) / k, min(times) / k
                    print(f"torch={torch.__version__} blas={blas.replace(' ', '-')} threads={nt} precision={prec} batch={b} k={k} "
                          f"ms_per_trial_epoch={1e3 * med:.4f} fastest={1e3 * best:.4f} epochs={len(times)}", flush=True)
