"""Writing the user's objects in the formats the audit binary reads."""
from __future__ import annotations

import io
import json
import numbers
import operator
import os
import sys
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

PathLike = (str, os.PathLike)


def numpy(arg: str) -> Any:
    """NumPy, imported when arrays are given (a plain install has no hard dependency)."""
    try:
        import numpy as np
    except ImportError:
        raise ImportError(f"{arg}: arrays need NumPy (pip install numpy, or apt-get install python3-numpy)") from None
    return np


def is_path(x: Any) -> bool:
    return isinstance(x, PathLike)


def _is_torch_module(x: Any) -> bool:
    """An ``nn.Module``, the user's own subclasses included (a class defined in a notebook, a
    Lightning or Hugging Face model). PyTorch is looked up among the imported modules: an
    object cannot be a module or a tensor unless torch was imported to make it."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.nn.Module)


def _is_torch_tensor(x: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _is_state_dict(x: Any) -> bool:
    return isinstance(x, Mapping) and len(x) > 0 and all(isinstance(k, str) for k in x) and all(_is_torch_tensor(v) for v in x.values())


def _is_sklearn_linear(x: Any) -> bool:
    return hasattr(x, "coef_") and hasattr(x, "intercept_") and hasattr(x, "get_params")


def _is_sklearn_estimator(x: Any) -> bool:
    return hasattr(x, "get_params") and hasattr(x, "fit")


def sklearn_parameters(model: Any, arg: str) -> Any:
    """A fitted linear model's parameters as the binary's linear models lay them out:
    [intercept, coef] (coef flattened row by row), the intercept left out when the model
    was fitted without one."""
    np = numpy(arg)
    coef = np.asarray(model.coef_, dtype=np.float64).ravel()
    if not model.get_params().get("fit_intercept", True):
        return coef
    return np.concatenate([np.atleast_1d(np.asarray(model.intercept_, dtype=np.float64)), coef])


def to_matrix(x: Any, arg: str) -> Any:
    """An array-like of models × values (a 1-D array is one model) as float32 or float64."""
    np = numpy(arg)
    if _is_torch_tensor(x):
        x = x.detach().cpu().numpy()
    try:
        a = np.asarray(x)
    except ValueError:  # NumPy's "inhomogeneous shape"
        raise TypeError(f"{arg}: rows of different lengths; give models × values") from None
    if a.dtype == object:
        raise TypeError(f"{arg}: rows of different lengths or non-numbers ({a.shape}); give models × values")
    if a.dtype not in (np.float32, np.float64):
        if not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating) or a.dtype == bool):
            raise TypeError(f"{arg}: an array of {a.dtype}, want numbers")
        a = a.astype(np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"{arg}: an array of shape {a.shape}, want models × values (2-D, non-empty)")
    return np.ascontiguousarray(a)


def write_models(x: Any, folder: Path, name: str, arg: str, scores: bool = False) -> str:
    """Writes the models (or scores) given as ``arg`` under folder and returns the path to
    pass the binary, relative to folder: ``name.npy`` for a matrix (NumPy arrays, tensors,
    fitted scikit-learn linear models, lists of rows), ``name/model_NNN.pt`` for PyTorch
    modules or state dicts (read by the binary as state dicts). A path is passed on as is,
    made absolute. With ``scores`` (the binary reads per-record scores) models are refused:
    their parameters would be audited as if they were scores."""
    if is_path(x):
        p = Path(x).resolve()
        if not p.exists():
            raise FileNotFoundError(f"{arg}: no such file or folder: {p}")
        return str(p)
    if x is None:
        raise TypeError(f"{arg}: None; give an array, a list of models, or a path")
    if isinstance(x, Iterator):  # a generator of models or rows, read once
        x = list(x)
    items = list(x) if isinstance(x, (list, tuple)) else None
    single = [x] if (_is_torch_module(x) or _is_state_dict(x) or _is_sklearn_estimator(x)) else None
    models = single or items
    if scores and models and any(_is_torch_module(m) or _is_state_dict(m) or _is_sklearn_linear(m) for m in models):
        raise ValueError(f"{arg}: models where per-record scores are read (scores=True, one_run or holdout); "
                         "give models × records of scores: unlearnaudit.score_matrix(models, x, y)")
    if models is not None:
        for i, m in enumerate(models):
            if _is_sklearn_estimator(m) and not _is_sklearn_linear(m):  # a scikit-learn estimator, not linear or not fitted
                raise TypeError(f"{arg}[{i}]: {type(m).__name__} has no fitted coef_ and intercept_ (parameters are read "
                                "from fitted linear models only); for other models audit per-record scores: "
                                "verify(score_matrix(models, x, y), …, scores=True)")
            if isinstance(m, Mapping) and not _is_state_dict(m) and any(_is_torch_tensor(v) for v in m.values()):
                bad = next(k for k, v in m.items() if not _is_torch_tensor(v))
                raise TypeError(f"{arg}[{i}]: state dict entry {bad!r} is a {type(m[bad]).__name__}, want tensors only")
    if models is not None and len(models) > 0 and all(_is_torch_module(m) or _is_state_dict(m) for m in models):
        import torch

        d = folder / name
        d.mkdir()
        for i, m in enumerate(models):
            sd = m.state_dict() if _is_torch_module(m) else m
            if any(v.device.type != "cpu" or v.requires_grad for v in sd.values()):
                # moved to the CPU, the state dict otherwise as it was (its _metadata kept)
                cpu = OrderedDict((k, v.detach().cpu()) for k, v in sd.items())
                if hasattr(sd, "_metadata"):
                    cpu._metadata = sd._metadata  # type: ignore[attr-defined]
                sd = cpu
            # saved as torch.save(model.state_dict(), path) saves it: the same bytes
            torch.save(sd, d / f"model_{i:03d}.pt")
        return name
    if models is not None and len(models) > 0 and all(_is_sklearn_linear(m) for m in models):
        np = numpy(arg)
        rows = [sklearn_parameters(m, arg) for m in models]
        if len({len(r) for r in rows}) != 1:
            raise ValueError(f"{arg}: scikit-learn models with different numbers of parameters: {sorted({len(r) for r in rows})}")
        x = np.stack(rows)
    elif models is not None and any(_is_torch_module(m) or _is_state_dict(m) or _is_sklearn_linear(m) for m in models):
        raise TypeError(f"{arg}: a list mixing models of different kinds; give one kind")
    a = to_matrix(x, arg)
    np = numpy(arg)
    np.save(folder / f"{name}.npy", a)
    return f"{name}.npy"


def save_npz(path: Any, **arrays: Any) -> None:
    """np.savez, with deterministic bytes: entries in the order given, stored with a fixed
    date (np.savez stamps the time of day, so the same arrays would hash differently)."""
    np = numpy("arrays")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for k, v in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asanyarray(v), allow_pickle=False)
            info = zipfile.ZipInfo(f"{k}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            z.writestr(info, buf.getvalue())


def write_json(path: Path, obj: Any) -> None:
    """JSON as the package writes spec files: indent 1, keys in the order given, a final newline."""
    path.write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool) or type(v).__name__ == "bool_"  # numpy.bool_ is no int subclass


def whole(name: str, v: Any) -> int:
    """v as an int when it is one (int, numpy.int64, …: operator.index); a float, even 2.0,
    a bool or a str is refused, naming the argument, rather than truncated."""
    if _is_bool(v):
        raise TypeError(f"{name}: {v!r}, want an int, not a bool")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{name}: {v!r} ({type(v).__name__}), want an int") from None


def real(name: str, v: Any) -> float:
    """v as a float when it is a real number (int, float, numpy.float32, …: numbers.Real)."""
    if _is_bool(v) or not isinstance(v, numbers.Real):
        raise TypeError(f"{name}: {v!r} ({type(v).__name__}), want a number")
    return float(v)


def flag(name: str, v: Any) -> bool:
    """v when it is a bool (or numpy.bool_): a str such as "no" is refused, not read as true."""
    if not _is_bool(v):
        raise TypeError(f"{name}: {v!r} ({type(v).__name__}), want True or False")
    return bool(v)


def strings(name: str, v: Any, one: bool) -> List[str]:
    """A sequence of str; a plain str is one item when ``one`` (formats="html"), else refused
    (it would be read letter by letter)."""
    if isinstance(v, str):
        if one:
            return [v]
        raise TypeError(f"{name}: a str ({v!r}); give a list of str, e.g. {[*v.split()]!r}")
    if isinstance(v, (bytes, Mapping)) or not isinstance(v, Iterable):
        raise TypeError(f"{name}: {type(v).__name__}, want a list of str")
    out = list(v)
    for i, x in enumerate(out):
        if not isinstance(x, str):
            raise TypeError(f"{name}[{i}]: {x!r} ({type(x).__name__}), want a str")
    return out


def deletes_list(deletes: Any) -> Optional[List[int]]:
    if deletes is None:
        return None
    if isinstance(deletes, (str, bytes, Mapping)) or not isinstance(deletes, Iterable):
        raise TypeError(f"deletes: {type(deletes).__name__}, want a sequence of record IDs (integers)")
    out = [whole(f"deletes[{i}]", d) for i, d in enumerate(deletes.tolist() if hasattr(deletes, "tolist") else deletes)]
    if not out:
        raise ValueError("deletes: empty; give the deleted records' IDs, in the score files' column order")
    return out


def references_arrays(references: Any) -> Tuple[Any, Any]:
    """(scores, IN/OUT mask) from a References object, a (scores, mask) pair or a mapping
    with "scores" and "in"."""
    np = numpy("references")
    if hasattr(references, "scores") and hasattr(references, "mask"):
        s, m = references.scores, references.mask
    elif isinstance(references, Mapping) and "scores" in references and "in" in references:
        s, m = references["scores"], references["in"]
    elif isinstance(references, Sequence) and len(references) == 2:
        s, m = references
    else:
        raise TypeError("references: want a path to an .npz, unlearnaudit.References, a (scores, mask) pair "
                        f"or a mapping with 'scores' and 'in'; got {type(references).__name__}")
    s, m = to_matrix(s, "references scores"), np.asarray(m)
    if m.ndim == 1:
        m = m[None, :]
    if m.shape != s.shape:
        raise ValueError(f"references: the mask's shape {m.shape} differs from the scores' {s.shape} (references × records)")
    if not np.isin(m, (0, 1)).all():
        raise ValueError("references: the mask holds values other than 0 and 1 (1: the reference trained on the record)")
    return s, m.astype(np.float64)


def check_kind(kind: str) -> str:
    if kind not in ("loss", "confidence"):
        raise ValueError(f"score_kind: {kind!r}, want 'loss' (lower means remembered) or 'confidence'")
    return kind


def flag_list(values: Sequence[Any]) -> str:
    return ",".join(str(v) for v in values)
