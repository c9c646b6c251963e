#!/usr/bin/python3
"""Writes the NumPy fixtures of artifact's tests with NumPy itself (Debian's python3-numpy),
and beside each the values as JSON (exact: float32 values are widened to float64 by
NumPy's own conversion), so the Go reader is checked against files a real tool wrote.

Run from the repository root: /usr/bin/python3 artifact/testdata/make_fixtures.py
"""
import json
import os

import numpy as np

out = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261124)
m = rng.standard_normal((3, 5))
v = rng.standard_normal(7)

cases = {
    "c_f8.npy": np.ascontiguousarray(m),
    "fortran_f8.npy": np.asfortranarray(m),
    "c_f4.npy": m.astype(np.float32),
    "fortran_f4.npy": np.asfortranarray(m.astype(np.float32)),
    "big_endian_f8.npy": m.astype(">f8"),
    "c_f2.npy": m.astype(np.float16),
    "big_endian_f2.npy": m.astype(">f2"),
    "vector_f8.npy": v,
}
golden = {}
for name, arr in cases.items():
    np.save(os.path.join(out, name), arr)
    golden[name] = {"shape": list(arr.shape), "dtype": arr.dtype.str, "fortran": bool(np.isfortran(arr)),
                    "values": np.asarray(arr, dtype=np.float64).ravel(order="C").tolist()}
np.save(os.path.join(out, "int64.npy"), np.arange(6).reshape(2, 3))  # refused: not a float
np.save(os.path.join(out, "object.npy"), np.array([{"a": 1}], dtype=object), allow_pickle=True)  # refused: pickle
np.savez(os.path.join(out, "models.npz"), weights=m, bias=v)
np.savez_compressed(os.path.join(out, "models_compressed.npz"), weights=m.astype(np.float32), bias=v)
# a fitted estimator's arrays as np.savez(**vars) writes them: the weights beside integer
# and boolean attributes (classes_, n_iter_, a flag), which a model read skips, not refuses
np.savez(os.path.join(out, "estimator.npz"), coef=m[:1], intercept=v[:1], classes=np.array([-1, 1]),
         n_iter=np.array([7], dtype=np.int32), fitted=np.array([True]))
golden["models.npz"] = {"bias": v.tolist(), "weights": m.ravel().tolist()}
golden["models_compressed.npz"] = {"bias": v.tolist(), "weights": np.asarray(m.astype(np.float32), dtype=np.float64).ravel().tolist()}
with open(os.path.join(out, "golden.json"), "w") as f:
    json.dump({"numpy": np.__version__, "cases": golden}, f, indent=1, sort_keys=True)
    f.write("\n")
