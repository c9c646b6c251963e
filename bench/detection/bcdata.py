"""Shared data layout for the detection fixtures (imported by make_sklearn.py and make_torch.py).

scikit-learn's breast cancer data (569 rows, 30 features, shipped with the package, no
download), standardised by a StandardScaler fitted on all 569 rows. Records 0..49 are the
deleted set S, records 469..568 the holdout (never trained on), D = 0..468, D\\S = 50..468.
"""
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

DELETED = np.arange(0, 50)
HOLDOUT = np.arange(469, 569)
D = np.arange(0, 469)
D_MINUS_S = np.arange(50, 469)
N_MODELS = 64
# Model seeds per sample, disjoint across samples.
SEEDS = {
    "retrained": range(0, N_MODELS),
    "honest": range(1000, 1000 + N_MODELS),
    "fake": range(2000, 2000 + N_MODELS),
}
# What each sample trains on.
TRAIN = {"retrained": D_MINUS_S, "honest": D_MINUS_S, "fake": D}

TESTDATA = Path(__file__).resolve().parent / "testdata"


def load():
    """Standardised features (569 x 30 float64) and labels (569, int 0/1)."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return X, y.astype(np.int64)
