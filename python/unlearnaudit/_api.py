"""verify, measure, plan and canaries: the audit binary's commands over Python objects."""
from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _inputs
from ._run import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS, ProgressArg, run
from .report import Report

PathArg = Union[str, "os.PathLike[str]"]

SPEC_SCHEMA = "unlearnaudit/spec/v1"


def _positive(name: str, v: Optional[float], upper: float = math.inf, closed_upper: bool = False) -> Optional[float]:
    if v is None:
        return None
    v = _inputs.real(name, v)
    if not (v > 0 and (v <= upper if closed_upper else v < upper)):
        raise ValueError(f"{name}: {v:g}, want a number in (0, {upper:g}{']' if closed_upper else ')'}")
    return v


def _number(v: float) -> str:
    """A flag's number as one types it: 1, 0.001, 1e-06 (Python's shortest round-trip form)."""
    f = float(v)
    return str(int(f)) if f.is_integer() and abs(f) < 1e15 else repr(f)


def _spec_paths_from_cwd(spec: Mapping[str, Any]) -> Dict[str, Any]:
    """The spec dict with its relative data files (``data.file``, ``data.labels``) made
    absolute against the working directory: the binary reads a spec file's relative paths
    from the spec's folder, here the temporary one. A ``data.file`` of ``datasets/…`` that
    names no file here is left as written, so that the binary reads the copy of that data
    set built into it, as it does for a spec file. ``spec`` itself is left unchanged."""
    out = dict(spec)
    data = spec.get("data")
    if isinstance(data, Mapping):
        data = dict(data)
        for k in ("file", "labels"):
            v = data.get(k)
            if not isinstance(v, str) or not v or os.path.isabs(v):
                continue
            if k == "file" and not os.path.exists(v) and os.path.normpath(v).replace(os.sep, "/").startswith("datasets/"):
                continue
            data[k] = os.path.abspath(v)
        out["data"] = data
    return out


class _Workdir:
    """A temporary folder the inputs are written to and the binary runs in, removed afterwards."""

    def __enter__(self) -> Path:
        self.path = Path(tempfile.mkdtemp(prefix="unlearnaudit-"))
        return self.path

    def __exit__(self, *exc: Any) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _claim_flags(epsilon: Optional[float], delta: Optional[float], name: Optional[str]) -> List[str]:
    """The flags that give the binary the claim and the subject's name, those given."""
    argv: List[str] = []
    if epsilon is not None:
        argv += ["--epsilon", _number(epsilon)]
    if delta is not None:
        argv += ["--delta", _number(delta)]
    if name is not None:
        argv += ["--name", name]
    return argv


def verify(
    unlearned: Any,
    retrained: Any = None,
    *,
    epsilon: Optional[float] = None,
    delta: Optional[float] = None,
    scores: bool = False,
    score_kind: str = "loss",
    references: Any = None,
    holdout: Any = None,
    deletes: Any = None,
    name: Optional[str] = None,
    spec: Union[None, PathArg, Mapping[str, Any]] = None,
    one_run: Any = None,
    tensors: Union[None, str, Sequence[str]] = None,
    date: Optional[str] = None,
    formats: Union[str, Sequence[str]] = ("html",),
    args: Sequence[str] = (),
    out: Optional[PathArg] = None,
    progress: ProgressArg = None,
    audit: Optional[PathArg] = None,
) -> Report:
    """Audits unlearned models against retrained ones: ``audit verify``.

    The inputs are written to a folder in the formats the binary reads, ``audit verify``
    runs there, and its report.json comes back typed. A FAIL is a result
    (``report.verdict == "FAIL"``), not an exception.

    Parameters
    ----------
    unlearned, retrained : array-like, list of models, or path
        Models × parameters (NumPy arrays, tensors, lists of rows; a 1-D array is one model),
        a list of PyTorch ``nn.Module``s or state dicts (saved as ``.pt`` state dicts), a list of
        fitted scikit-learn linear models (``[intercept, coef]`` a row), or a path to a file or
        folder the binary reads. With ``scores=True``: models × deleted records of per-record
        scores. ``retrained`` may be omitted only with a spec whose recipe the toolkit retrains.
    epsilon, delta : float, optional
        The claimed (ε, δ). Without ε (and without a spec claim) this is a measurement:
        see :func:`measure`.
    scores : bool
        The matrices are per-record scores, the route for deep models.
    score_kind : {"loss", "confidence"}
        What the scores are: losses (lower means remembered) or confidences.
    references : References, (scores, mask) pair, or path, optional
        With ``scores``: U-LiRA reference models' scores and IN/OUT masks
        (see :func:`unlearnaudit.references`).
    holdout : array-like or path, optional
        With ``scores``: the unlearned models' scores on records never trained on.
    deletes : sequence of int, optional
        The deleted records' IDs in the score columns' order (written into a spec); ints
        (NumPy's too), never floats, which would be truncated.
    name : str, optional
        The method's name; the subject is reported as ``verify/<name>``.
    spec : mapping or path, optional
        A whole spec (its claim, data, model, deletes); ε, δ and the name then come from it.
        A spec file's relative data paths are read from its folder, a mapping's from the
        working directory.
    one_run : Canaries or path, optional
        A canary plan (:func:`canaries`): ``unlearned`` is one score a canary.
    tensors : str or sequence of str, optional
        The tensors of each ``.pt``/``.npz`` model to audit, in this order (``--tensor``); a
        str is one tensor.
    date : str, optional
        The audit date the report states (YYYY-MM-DD); default the binary's (today, UTC, or
        ``$SOURCE_DATE_EPOCH``'s day). Same inputs and date: the same report bytes.
    formats : str or sequence of str
        Renderings besides report.json and report.md ("html", "pdf"; a str is one); the HTML
        is what ``Report._repr_html_`` shows.
    args : sequence of str
        Further flags of ``audit verify`` (``["--rank-p", "randomised"]``; a str is refused,
        not split).
    out : path, optional
        The folder the report files are written to, as the binary's ``--out`` (default: none
        kept; ``Report.json`` holds report.json's bytes). The inputs are written to a temporary
        folder, removed afterwards, and the binary runs there: the report names them by their
        names in it (unlearned.npy, retrained.npy, spec.json, …), or by the paths given.
    progress : bool or callable, optional
        The binary's progress line: None shows it on a terminal or in a notebook, True always,
        False never, a callable receives each redraw.
    audit : path, optional
        The binary (default: ``$AUDIT``, the wheel's, or ``audit`` on PATH).

    Returns
    -------
    Report
        The typed report.json (verdict, findings, power, figures), with its bytes.

    Raises
    ------
    AuditError
        The binary refused the input (exit 2), with its message naming the file or field.
    ValueError, TypeError
        An argument is malformed; the message names it.
    """
    epsilon = _positive("epsilon", epsilon)
    delta = _positive("delta", delta, 1.0)
    score_kind = _inputs.check_kind(score_kind)
    scores = _inputs.flag("scores", scores)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name: {name!r} ({type(name).__name__}), want a str")
    tensors = None if tensors is None else _inputs.strings("tensors", tensors, one=True)
    formats = _inputs.strings("formats", formats, one=True)
    args = _inputs.strings("args", args, one=False)
    if not scores and (references is not None or holdout is not None):
        raise ValueError(f"{'references' if references is not None else 'holdout'}: needs scores=True (per-record scores)")
    if epsilon is not None and delta is None:
        raise ValueError("delta: required with epsilon (the claim is (ε, δ))")
    dl = _inputs.deletes_list(deletes)
    with _Workdir() as wd:
        argv: List[str] = ["verify"]
        needs_spec = dl is not None or score_kind != "loss"
        if spec is not None:
            if _inputs.is_path(spec):
                argv += ["--spec", str(Path(spec).resolve())]
            elif isinstance(spec, Mapping):
                _inputs.write_json(wd / "spec.json", _spec_paths_from_cwd(spec))
                argv += ["--spec", "spec.json"]
            else:
                raise TypeError(f"spec: {type(spec).__name__}, want a mapping (the spec's JSON) or a path")
            if dl is not None or score_kind != "loss":
                raise ValueError(f"{'deletes' if dl is not None else 'score_kind'}: with spec=, state it in the spec "
                                 "(its \"deletes\" and \"scores\")")
            argv += _claim_flags(epsilon, delta, name)
        elif needs_spec:
            s: Dict[str, Any] = {"schema": SPEC_SCHEMA, "method": {"name": name or "unnamed method"}}
            if scores:
                s["scores"] = score_kind
            if dl is not None:
                s["deletes"] = dl
            if epsilon is not None:
                s["claim"] = {"epsilon": epsilon, "delta": delta}
            _inputs.write_json(wd / "spec.json", s)
            argv += ["--spec", "spec.json"]
            if epsilon is None and delta is not None:
                argv += ["--delta", _number(delta)]
        else:
            argv += _claim_flags(epsilon, delta, name)
        if scores:
            argv.append("--scores")
        read_scores = scores or one_run is not None  # the binary reads per-record scores, not models
        argv += ["--unlearned", _inputs.write_models(unlearned, wd, "unlearned", "unlearned", read_scores)]
        if retrained is not None:
            argv += ["--retrained", _inputs.write_models(retrained, wd, "retrained", "retrained", read_scores)]
        if references is not None:
            if _inputs.is_path(references):
                argv += ["--references", str(Path(references).resolve())]
            else:
                s_ref, m_ref = _inputs.references_arrays(references)
                _inputs.save_npz(wd / "references.npz", scores=s_ref, **{"in": m_ref})
                argv += ["--references", "references.npz"]
        if holdout is not None:
            argv += ["--holdout", _inputs.write_models(holdout, wd, "holdout", "holdout", True)]
        if one_run is not None:
            if _inputs.is_path(one_run):
                argv += ["--one-run", str(Path(one_run).resolve())]
            elif isinstance(one_run, Canaries):
                (wd / "canaries.json").write_bytes(one_run.json)
                argv += ["--one-run", "canaries.json"]
            else:
                raise TypeError(f"one_run: {type(one_run).__name__}, want unlearnaudit.Canaries or a path")
        if tensors:
            argv += ["--tensor", _inputs.flag_list(tensors)]
        if date is not None:
            argv += ["--date", str(date)]
        if formats:
            argv += ["--formats", _inputs.flag_list(formats)]
        argv += args
        rep = Path(out).resolve() if out is not None else wd / "report"
        argv += ["--out", str(rep)]
        done = run(argv, cwd=wd, progress=progress, audit=audit, ok=(EXIT_PASS, EXIT_FAIL, EXIT_INCONCLUSIVE))
        html = (rep / "report.html").read_text(encoding="utf-8") if (rep / "report.html").exists() else None
        md = (rep / "report.md").read_text(encoding="utf-8") if (rep / "report.md").exists() else ""
        text = done.stdout if out is not None else _without_paths(done.stdout, wd)
        return Report.from_json((rep / "report.json").read_bytes(), exit_code=done.returncode, html=html, markdown=md,
                                text=text)


def _without_paths(text: str, wd: Path) -> str:
    """The binary's summary without the "; report: <files>" its last line names, when they
    are in the temporary folder, which is gone when the call returns (``out=`` keeps them)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        head, sep, files = line.partition("; report: ")
        if sep and str(wd) in files:
            lines[i] = head + ("\n" if line.endswith("\n") else "")
    return "".join(lines)


def measure(unlearned: Any, retrained: Any = None, *, delta: float = 1e-6, **kwargs: Any) -> Report:
    """The claim-free measurement: what the models show, with no verdict (``audit verify``
    without a claim).

    Takes :func:`verify`'s arguments but ``epsilon``. The report's verdict is MEASUREMENT;
    ``report.measurement`` is its finding (``report.deciding`` is None: nothing is decided),
    ``report.figures`` holds the ε lower bound at ``delta`` and the estimates beside it
    (Gaussian-DP μ, AUC, TPR at low FPR) and ``report.notes`` what each is measured on. A
    measurement states no power (``report.power`` is None); :func:`plan` says what a count
    of models can show.
    """
    if "epsilon" in kwargs:
        raise TypeError("epsilon: measure takes no claim; use verify(epsilon=…, delta=…) to judge one")
    if kwargs.get("spec") is not None:
        raise TypeError("spec: measure writes its own; use verify(spec=…) for a spec without a claim")
    return verify(unlearned, retrained, delta=delta, **kwargs)


@dataclass(frozen=True, repr=False)
class Plan:
    """``audit plan``'s answer: ``data`` its JSON object (with ``supports``, the sentence
    every report's finding opens with), or ``text`` the Markdown table (``table=``)."""

    data: Dict[str, Any]
    json: bytes = field(repr=False)
    text: str = ""

    @property
    def supports(self) -> str:
        """What the count supports, in one sentence."""
        return self.data.get("supports", "")

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def _repr_markdown_(self) -> str:
        return self.text or self.supports

    def __repr__(self) -> str:
        return self.text or f"<Plan: {self.supports}>"


def plan(
    *,
    epsilon: Optional[float] = None,
    delta: float,
    trials: Optional[int] = None,
    models: Optional[int] = None,
    retrains: Optional[int] = None,
    table: Optional[Sequence[int]] = None,
    confidence: Optional[float] = None,
    power: Optional[float] = None,
    power_against: Optional[float] = None,
    audit: Optional[PathArg] = None,
) -> Plan:
    """What a count of models can and cannot show of a claim: ``audit plan``.

    Parameters
    ----------
    epsilon, delta : float
        The claim (ε may be omitted with ``trials``: the resolution alone).
    trials : int, optional
        Models a side of a distinguishing game.
    models, retrains : int, optional
        The one-model question: ``models`` unlearned models (1–7) ranked among ``retrains``.
    table : sequence of int, optional
        Counts a side: a Markdown table (``Plan.text``) of what each can show.
    confidence, power, power_against : float, optional
        As ``audit plan``'s flags.

    Raises
    ------
    ValueError
        When no question is asked, or more than one.
    """
    delta = _positive("delta", delta, 1.0)
    epsilon = _positive("epsilon", epsilon)
    asked = [k for k, v in (("trials", trials), ("models", models), ("table", table)) if v is not None]
    if len(asked) != 1:
        raise ValueError(f"trials, models, table: give exactly one question, got {asked or 'none'}")
    argv = ["plan", "--delta", _number(delta)]
    if epsilon is not None:
        argv += ["--epsilon", _number(epsilon)]
    for flag, v in (("--trials", trials), ("--models", models), ("--retrains", retrains)):
        if v is not None:
            argv += [flag, str(_inputs.whole(flag[2:], v))]
    for flag, v in (("--confidence", confidence), ("--power", power), ("--power-against", power_against)):
        if v is not None:
            argv += [flag, _number(_positive(flag[2:].replace("-", "_"), v))]
    if table is not None:
        if isinstance(table, (str, bytes)):
            raise TypeError(f"table: a str ({table!r}); give a list of ints, e.g. [8, 16, 32]")
        argv += ["--table", _inputs.flag_list([_inputs.whole(f"table[{i}]", t) for i, t in enumerate(table)])]
        done = run(argv, audit=audit)
        return Plan({}, b"", done.stdout)
    done = run(argv + ["--json"], audit=audit)
    return Plan(json.loads(done.stdout), done.stdout.encode("utf-8"))


@dataclass(frozen=True)
class Canaries:
    """A one-run audit's canary plan (``audit canaries``): train on your data plus the canaries
    whose ``included[i]`` is 1, delete them, score every canary under the published model, then
    ``verify(scores, one_run=plan, epsilon=…, delta=…)``."""

    seed: int
    count: int
    included: List[int]
    json: bytes = field(repr=False)

    def save(self, path: PathArg) -> None:
        """Writes the plan file exactly as the binary wrote it (never overwriting)."""
        p = Path(path)
        if p.exists():
            raise FileExistsError(f"path: {p} exists; a canary plan is never overwritten")
        p.write_bytes(self.json)


def canaries(seed: int, count: int = 1000, *, audit: Optional[PathArg] = None) -> Canaries:
    """Draws the canaries a one-run audit trains on: ``audit canaries``.

    Parameters
    ----------
    seed : int
        The plan's seed; record it before training.
    count : int
        How many canaries.
    """
    seed, count = _inputs.whole("seed", seed), _inputs.whole("count", count)
    if seed < 0:
        raise ValueError(f"seed: {seed}, want a non-negative int")
    with tempfile.TemporaryDirectory(prefix="unlearnaudit-") as tmp:
        run(["canaries", "--seed", str(seed), "--canaries", str(count), "--out", "canaries.json"], cwd=tmp, audit=audit)
        b = (Path(tmp) / "canaries.json").read_bytes()
    d = json.loads(b)
    return Canaries(d["seed"], d["canaries"], list(d["included"]), b)
