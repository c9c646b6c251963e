"""Per-record scores from the user's models, and U-LiRA references built by the user's
own training and unlearning.

These compute inputs; the audit itself is the binary's (:func:`unlearnaudit.verify`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence

from ._inputs import _is_sklearn_linear, _is_torch_module, numpy, whole

__all__ = ["losses", "confidences", "score_matrix", "References", "references"]


def _torch_outputs(model: Any, x: Any, batch_size: int, device: Any) -> Any:
    """The module's outputs on x in batches, under torch.no_grad and eval mode, as float64 on
    the CPU; the module's training mode is restored afterwards."""
    import torch

    if device is None:
        try:
            device = next(model.parameters()).device
        except StopIteration:
            device = torch.device("cpu")
    else:
        try:
            device = torch.device(device)
        except (RuntimeError, TypeError) as e:
            raise ValueError(f"device: {device!r}: {e}") from None
    xt = x if isinstance(x, torch.Tensor) else torch.as_tensor(numpy("x").asarray(x))
    if xt.is_floating_point():  # integer records stay so (token IDs for an embedding)
        try:
            xt = xt.to(next(model.parameters()).dtype)
        except StopIteration:
            pass
    was_training = model.training
    model.eval()
    outs = []
    try:
        with torch.no_grad():
            for lo in range(0, len(xt), batch_size):
                try:
                    batch = xt[lo:lo + batch_size].to(device)
                except (RuntimeError, AssertionError) as e:  # "Torch not compiled with CUDA enabled" is an AssertionError
                    raise ValueError(f"device: {device}: {e}") from None
                try:
                    out = model(batch)
                except RuntimeError as e:
                    raise ValueError(f"x: {type(model).__name__} refused records of shape {tuple(xt.shape[1:])} "
                                     f"on {device}: {e}") from e
                if not isinstance(out, torch.Tensor):
                    raise TypeError(f"model: {type(model).__name__} returned a {type(out).__name__}, want a tensor "
                                    "of logits (records × classes)")
                outs.append(out.double().cpu())
    finally:
        model.train(was_training)
    return torch.cat(outs) if outs else torch.empty(0)


def _check(x: Any, y: Any, batch_size: int) -> None:
    if whole("batch_size", batch_size) < 1:
        raise ValueError(f"batch_size: {batch_size!r}, want a positive int")
    if len(x) != len(y):
        raise ValueError(f"y: {len(y)} labels for {len(x)} records in x")
    if len(x) == 0:
        raise ValueError("x: no records")


def _torch_scores(model: Any, x: Any, y: Any, kind: str, batch_size: int, device: Any) -> Any:
    import torch
    import torch.nn.functional as F

    logits = _torch_outputs(model, x, batch_size, device)
    yt = torch.as_tensor(numpy("y").asarray(y.cpu() if isinstance(y, torch.Tensor) else y))
    if yt.ndim != 1:
        raise ValueError(f"y: labels of shape {tuple(yt.shape)}, want one class index a record (1-D, not one-hot)")
    if yt.is_floating_point() and not bool((yt == yt.round()).all()):
        raise ValueError("y: labels with a fraction; want whole class indices (they would be truncated)")
    if logits.ndim == 2 and logits.shape[1] == 1:
        logits = logits[:, 0]
    if logits.ndim == 1:  # one logit: binary, y in {0, 1}
        yb = yt.double()
        if not bool(((yb == 0) | (yb == 1)).all()):
            raise ValueError("y: labels other than 0 and 1 for a model of one output (binary: one logit)")
        if kind == "loss":
            s = F.binary_cross_entropy_with_logits(logits, yb, reduction="none")
        else:
            s = torch.where(yb > 0.5, torch.sigmoid(logits), torch.sigmoid(-logits))
    elif logits.ndim == 2:
        yl = yt.long()
        if yl.min() < 0 or yl.max() >= logits.shape[1]:
            raise ValueError(f"y: labels outside [0, {logits.shape[1]}) for a model of {logits.shape[1]} outputs")
        if kind == "loss":
            s = F.cross_entropy(logits, yl, reduction="none")
        else:
            s = torch.softmax(logits, dim=1).gather(1, yl[:, None])[:, 0]
    else:
        raise ValueError(f"model: outputs of shape {tuple(logits.shape)}, want records × classes (logits)")
    return s.numpy().astype("float64")


def _sklearn_scores(model: Any, x: Any, y: Any, kind: str, batch_size: int) -> Any:
    np = numpy("x")
    if not hasattr(model, "predict_proba"):
        raise TypeError(f"model: {type(model).__name__} has no predict_proba (fit a probabilistic classifier, "
                        "e.g. LogisticRegression, or SGDClassifier(loss='log_loss'))")
    x, y = np.asarray(x), np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y: labels of shape {y.shape}, want one label a record (1-D, not one-hot)")
    if not hasattr(model, "classes_"):
        raise ValueError(f"model: {type(model).__name__} is not fitted (no classes_); fit it first")
    classes = list(model.classes_)
    try:
        idx = np.array([classes.index(v) for v in y.tolist()])
    except ValueError:
        raise ValueError(f"y: a label not among the model's classes {classes}") from None
    p = np.concatenate([model.predict_proba(x[lo:lo + batch_size]) for lo in range(0, len(x), batch_size)])
    p_true = p[np.arange(len(y)), idx].astype(np.float64)
    if kind == "confidence":
        return p_true
    return -np.log(np.clip(p_true, np.finfo(np.float64).tiny, 1.0))


def _scores(model: Any, x: Any, y: Any, kind: str, batch_size: int, device: Any) -> Any:
    _check(x, y, batch_size)
    if _is_torch_module(model):
        return _torch_scores(model, x, y, kind, batch_size, device)
    if hasattr(model, "predict_proba") or _is_sklearn_linear(model) or hasattr(model, "get_params"):
        return _sklearn_scores(model, x, y, kind, batch_size)  # it names what a scikit-learn model lacks
    raise TypeError(f"model: {type(model).__name__}, want a PyTorch nn.Module or a fitted scikit-learn classifier")


def losses(model: Any, x: Any, y: Any, *, batch_size: int = 1024, device: Any = None) -> Any:
    """Each record's loss under the model: the scores ``verify(scores=True)`` reads.

    Parameters
    ----------
    model : torch.nn.Module or fitted scikit-learn classifier
        A module returning logits (records × classes: cross-entropy; one logit: binary
        cross-entropy with y in {0, 1}), run in eval mode under ``torch.no_grad`` in batches
        on ``device``; or an estimator with ``predict_proba`` (log loss, −log p(y)).
    x, y : array-like or tensors
        The records and their labels.
    batch_size : int
        Records a forward pass.
    device : torch.device or str, optional
        Where the module runs (default: where its parameters are).

    Returns
    -------
    numpy.ndarray
        float64, one loss a record.
    """
    return _scores(model, x, y, "loss", batch_size, device)


def confidences(model: Any, x: Any, y: Any, *, batch_size: int = 1024, device: Any = None) -> Any:
    """Each record's confidence, the probability the model gives its label (higher means
    remembered; pass ``score_kind="confidence"`` to verify). Arguments as :func:`losses`."""
    return _scores(model, x, y, "confidence", batch_size, device)


def score_matrix(models: Iterable[Any], x: Any, y: Any, *, kind: str = "loss", batch_size: int = 1024,
                 device: Any = None) -> Any:
    """Models × records: each model's :func:`losses` (or ``kind="confidence"``) on the records,
    a row a model, the matrix ``verify(scores=True)`` takes."""
    np = numpy("models")
    if kind not in ("loss", "confidence"):
        raise ValueError(f"kind: {kind!r}, want 'loss' or 'confidence'")
    models = list(models)  # a generator too
    if len(models) == 0:
        raise ValueError("models: empty")
    return np.stack([_scores(m, x, y, kind, batch_size, device) for m in models])


@dataclass(frozen=True)
class References:
    """U-LiRA references: ``scores`` (references × deleted records) and ``mask`` (1: the
    reference trained on the record and then unlearned it; 0: it never trained on it)."""

    scores: Any
    mask: Any


def references(
    train: Callable[[Any], Any],
    unlearn: Callable[[Any, Any], Any],
    score: Callable[[Any], Any],
    *,
    records: int,
    deleted: Sequence[int],
    count: int = 16,
) -> References:
    """Builds U-LiRA reference models with the audited deletion, by the user's own training
    and unlearning.

    Reference i (i even) is trained on every record and then unlearns ``deleted`` — all of
    them at once, as the audit's unlearner did (IN on every deleted record); reference i
    (i odd) is trained without them (OUT). The masks therefore follow the audited deletion,
    not random halves (which follow the law of another deletion and mislead U-LiRA). The
    references must be other runs than the models audited: ``train`` must draw fresh
    randomness on every call.

    Parameters
    ----------
    train : callable
        ``train(indices) -> model``: a model trained on the records at these indices.
    unlearn : callable
        ``unlearn(model, deleted) -> model``: the model after deleting these record indices.
    score : callable
        ``score(model) -> scores``: the model's scores on the deleted records, in the
        audit's column order (e.g. ``lambda m: losses(m, x[deleted], y[deleted])``).
    records : int
        How many records the data holds (indices 0 … records − 1).
    deleted : sequence of int
        The deleted records' indices, as in the audit.
    count : int
        References, even and at least 2 (half IN, half OUT).

    Returns
    -------
    References
        Pass it as ``verify(..., scores=True, references=refs)``.
    """
    np = numpy("references")
    count, records = whole("count", count), whole("records", records)
    if count < 2 or count % 2:
        raise ValueError(f"count: {count!r}, want an even int ≥ 2 (half IN, half OUT)")
    if records < 1:
        raise ValueError(f"records: {records!r}, want a positive int")
    d = np.asarray(deleted, dtype=np.int64).ravel()
    if d.size == 0 or d.min() < 0 or d.max() >= records or len(np.unique(d)) != d.size:
        raise ValueError(f"deleted: want distinct indices in [0, {records}), got {d.size} of them in "
                         f"[{d.min() if d.size else '-'}, {d.max() if d.size else '-'}]")
    everything = np.arange(records)
    kept = np.setdiff1d(everything, d)
    rows, masks = [], []
    for i in range(count):
        if i % 2 == 0:
            model = unlearn(train(everything), d.copy())
            masks.append(np.ones(d.size))
        else:
            model = train(kept)
            masks.append(np.zeros(d.size))
        s = np.asarray(score(model), dtype=np.float64).ravel()
        if s.size != d.size:
            raise ValueError(f"score: {s.size} scores for {d.size} deleted records (reference {i})")
        rows.append(s)
    return References(np.stack(rows), np.stack(masks))
