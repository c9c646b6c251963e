#!/usr/bin/python3
"""Per-record losses for the U-LiRA statistic's tests (audit/references_test.go), written by
NumPy as a user's pipeline would: 50 deleted records whose losses have very different
spreads (records 0-4: sd 10; the others: sd 0.1), so a mean over the records is dominated
by five noisy ones, while LiRA's per-record fits weigh each record by its own spread.

  unlearned.npy   32 models x 50 records: every loss lowered by 0.1 (the records remembered)
  retrained.npy   32 models x 50 records: the retrained law
  references.npz  64 reference models: "scores" (64 x 50) and "in" (64 x 50, 1.0 where the
                  reference model kept the record, its loss lowered by 0.1 as above, 0.0
                  where it was trained without it), each record IN in half the references

Run from the repository root: /usr/bin/python3 audit/testdata/references/make_references.py
"""
import os

import numpy as np

out = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(27)
k = 50
sd = np.where(np.arange(k) < 5, 10.0, 0.1)
centre = 1.0 + np.arange(k) / k


def losses(n, shift):
    return centre + shift + sd * rng.standard_normal((n, k))


np.save(os.path.join(out, "unlearned.npy"), losses(32, -0.1))
np.save(os.path.join(out, "retrained.npy"), losses(32, 0.0))
mask = np.zeros((64, k))
for j in range(k):
    mask[rng.permutation(64)[:32], j] = 1.0
scores = losses(64, 0.0) - 0.1 * mask
np.savez(os.path.join(out, "references.npz"), scores=scores, **{"in": mask})
