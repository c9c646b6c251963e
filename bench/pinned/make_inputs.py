"""Writes refs.npz, the U-LiRA references bench/pinned/run.sh hands to verify --references:
32 reference models' scores on the 20 deleted records, and their IN/OUT mask (half IN).
Run with Debian's Python: /usr/bin/python3 make_inputs.py (numpy only; output is
deterministic)."""
import numpy as np

rng = np.random.default_rng(42)
mask = np.zeros((32, 20))
for k in range(20):
    mask[rng.permutation(32)[:16], k] = 1.0
scores = 0.5 + 0.4 * mask * rng.random((32, 20)) + 0.3 * rng.random((32, 20))
np.savez("refs.npz", scores=scores, **{"in": mask})
