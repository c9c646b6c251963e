"""The typed view of the audit binary's report.json (schema ``unlearnaudit/report/v3``).

The JSON schema is the contract between the binary and this package: ``report_fields.txt``
lists every field path the Go type ``reports.Report`` writes (a Go test fails when the two
differ), and ``tests/test_report.py`` fails when a path in that list is neither a typed
attribute below nor inside a subtree this module keeps as plain JSON (``RAW``).
"""
from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

__all__ = ["REPORT_SCHEMA", "Report", "Subject", "Claim", "Finding", "Power", "Interval", "Estimate", "Input", "Summary"]

#: The report schema this package parses; a report of another schema is refused.
REPORT_SCHEMA = "unlearnaudit/report/v3"


def _num(v: Any) -> Optional[float]:
    """A table.Number: finite values are JSON numbers, ±Inf and NaN the strings "+Inf", "-Inf", "NaN"."""
    if v is None:
        return None
    if isinstance(v, str):
        return {"+Inf": math.inf, "-Inf": -math.inf, "NaN": math.nan}[v]
    return float(v)


@dataclass(frozen=True)
class Interval:
    """A confidence interval (``lower``, ``upper``)."""

    lower: Optional[float]
    upper: Optional[float]

    @classmethod
    def _from(cls, d: Optional[dict]) -> Optional["Interval"]:
        return None if d is None else cls(_num(d.get("lower")), _num(d.get("upper")))


@dataclass(frozen=True)
class Estimate:
    """A figure reported beside a finding (μ, AUC, TPR at low FPR, …): never a verdict."""

    name: str
    value: Optional[float]
    interval: Optional[Interval]
    note: str

    @classmethod
    def _from(cls, d: dict) -> "Estimate":
        return cls(d["name"], _num(d.get("value")), Interval._from(d.get("interval")), d.get("note", ""))


@dataclass(frozen=True)
class Power:
    """What an empirical finding could have shown: its power against ``against_factor`` × the
    claim, the smallest leak it catches with 80 % power, the most its count can show, and the
    trials a PASS would need."""

    against_factor: Optional[float]
    power: Optional[float]
    power_stderr: Optional[float]
    smallest_detectable_factor: Optional[float]
    smallest_detectable_epsilon: Optional[float]
    smallest_detectable_mu: Optional[float]
    max_showable_epsilon: Optional[float]
    max_showable_mu: Optional[float]
    trials_needed: int
    trials_to_show_violation: int
    trials_to_pass: int
    unit: str
    counts: str
    summary: str
    question: Optional[dict]

    @classmethod
    def _from(cls, d: Optional[dict]) -> Optional["Power"]:
        if d is None:
            return None
        return cls(
            _num(d.get("against_factor")), _num(d.get("power")), _num(d.get("power_stderr")),
            _num(d.get("smallest_detectable_factor")), _num(d.get("smallest_detectable_epsilon")),
            _num(d.get("smallest_detectable_mu")), _num(d.get("max_showable_epsilon")), _num(d.get("max_showable_mu")),
            d.get("trials_needed", 0), d.get("trials_to_show_violation", 0), d.get("trials_to_pass", 0),
            d.get("unit", ""), d.get("counts", ""), d.get("summary", ""), d.get("question"),
        )


@dataclass(frozen=True)
class Finding:
    """One check's result: its verdict, the measured value against the bound, and its power.

    ``verdict`` is PASS, FAIL or INCONCLUSIVE; a measurement (``kind == "measurement"``)
    never decides. ``raw`` is the finding's JSON, with the per-record plots (``scores``,
    ``membership``, ``held_out``, ``traces``) this class does not type.
    """

    check: str
    title: str
    kind: str
    verdict: str
    measured: Optional[float]
    interval: Optional[Interval]
    bound: Optional[float]
    comparison: str
    confidence: Optional[float]
    trials: int
    trials_needed: int
    detail: str
    required: bool
    reported: bool
    slack: Optional[float]
    power: Optional[Power]
    estimates: List[Estimate]
    raw: dict = field(repr=False)

    @classmethod
    def _from(cls, d: dict) -> "Finding":
        return cls(
            d["check"], d.get("title", ""), d.get("kind", ""), d["verdict"], _num(d.get("measured")),
            Interval._from(d.get("interval")), _num(d.get("bound")), d.get("comparison", ""),
            _num(d.get("confidence")), d.get("trials", 0), d.get("trials_needed", 0), d.get("detail", ""),
            d.get("required", False), d.get("reported", False), _num(d.get("slack")), Power._from(d.get("power")),
            [Estimate._from(e) for e in d.get("estimates") or []], d,
        )


@dataclass(frozen=True)
class Claim:
    """The claim a subject was judged against: ε and δ (0 and 0 when none was given), the
    method's name and where the claim came from. ``raw`` keeps the derivation and constants."""

    method: str
    source: str
    guarantee: str
    epsilon: Optional[float]
    delta: Optional[float]
    relation: str
    raw: dict = field(repr=False)

    @classmethod
    def _from(cls, d: dict) -> "Claim":
        return cls(d.get("method", ""), d.get("source", ""), d.get("guarantee", ""), _num(d.get("epsilon")),
                   _num(d.get("delta")), d.get("relation", ""), d)


@dataclass(frozen=True)
class Subject:
    """One audited subject (``verify/<name>``): its verdict, claim and findings."""

    name: str
    verdict: str
    claim: Claim
    findings: List[Finding]
    utility: Optional[dict]
    noise: str = ""  # the generator of the trials' noise, when the subject names one (SGLU's Langevin noise)

    @classmethod
    def _from(cls, d: dict) -> "Subject":
        return cls(d["name"], d["verdict"], Claim._from(d["claim"]), [Finding._from(f) for f in d.get("findings") or []],
                   d.get("utility"), d.get("noise", ""))


@dataclass(frozen=True)
class Input:
    """A file the audit read, with its SHA-256: the report's provenance."""

    role: str
    path: str
    sha256: str
    bytes: int


@dataclass(frozen=True)
class Summary:
    """The overall verdict (PASS, FAIL, INCONCLUSIVE, or MEASUREMENT without a claim) and the counts."""

    verdict: str
    passed: int
    failed: int
    inconclusive: int
    reported: Optional[dict]


@dataclass(frozen=True, repr=False)
class Report:
    """An audit's report.json, typed; a FAIL is a result, not an exception.

    Attributes
    ----------
    verdict : str
        ``summary.verdict``: PASS, FAIL, INCONCLUSIVE or MEASUREMENT (no claim, no verdict).
    exit_code : int
        The binary's exit: 0 pass (or a measurement), 1 fail, 3 inconclusive.
    json : bytes
        report.json exactly as the binary wrote it.
    html : str or None
        The self-contained HTML report (``formats`` included "html"), which ``_repr_html_`` embeds.
    markdown : str
        report.md.
    text : str
        What the binary printed (the summary table).
    """

    schema: str
    tool_name: str
    tool_version: str
    command: str
    date: str
    command_line: List[str]
    seed: int
    trials: int
    confidence: Optional[float]
    trial_evidence: str
    inputs: List[Input]
    data: dict
    subjects: List[Subject]
    controls: List[dict]
    summary: Summary
    exit_code: int = 0
    json: bytes = field(default=b"", repr=False)
    html: Optional[str] = field(default=None, repr=False)
    markdown: str = field(default="", repr=False)
    text: str = field(default="", repr=False)

    @classmethod
    def from_json(cls, data: bytes, *, exit_code: int = 0, html: Optional[str] = None, markdown: str = "",
                  text: str = "") -> "Report":
        """Parses report.json's bytes.

        Raises
        ------
        ValueError
            When ``data`` is not a report of schema ``REPORT_SCHEMA``.
        """
        try:
            d = json.loads(data)
        except ValueError as e:
            raise ValueError(f"data: not JSON: {e}") from None
        if not isinstance(d, dict) or d.get("schema") != REPORT_SCHEMA:
            got = d.get("schema") if isinstance(d, dict) else type(d).__name__
            raise ValueError(f"data: a report of schema {got!r}, this package parses {REPORT_SCHEMA!r} "
                             "(is the audit binary another version than the package's?)")
        try:
            return cls._parse(d, data, exit_code, html, markdown, text)
        except (KeyError, TypeError, AttributeError) as e:
            what = f"the field {e.args[0]!r}" if isinstance(e, KeyError) else f"a field of the wrong type ({e})"
            raise ValueError(f"data: a {REPORT_SCHEMA} report without {what}: "
                             "not report.json as the binary writes it") from None

    @classmethod
    def _parse(cls, d: dict, data: bytes, exit_code: int, html: Optional[str], markdown: str, text: str) -> "Report":
        s = d["summary"]
        return cls(
            d["schema"], d["tool"]["name"], d["tool"]["version"], d["command"], d.get("date", ""),
            list(d.get("command_line") or []), d["seed"], d["trials"], _num(d.get("confidence")),
            d.get("trial_evidence", ""), [Input(i["role"], i["path"], i["sha256"], i["bytes"]) for i in d.get("inputs") or []],
            d.get("data") or {}, [Subject._from(x) for x in d.get("subjects") or []], list(d.get("controls") or []),
            Summary(s["verdict"], s["pass"], s["fail"], s["inconclusive"], s.get("reported")),
            exit_code, data, html, markdown, text,
        )

    @property
    def verdict(self) -> str:
        """The overall verdict: PASS, FAIL, INCONCLUSIVE, or MEASUREMENT when no claim was given."""
        return self.summary.verdict

    @property
    def findings(self) -> List[Finding]:
        """Every subject's findings, in report order."""
        return [f for s in self.subjects for f in s.findings]

    @property
    def deciding(self) -> Optional[Finding]:
        """The first subject's first empirical finding (the distinguishing game or the rank test),
        which decides a verify; None when there is none, as in a measurement, which decides
        nothing (its finding is :attr:`measurement`)."""
        for f in self.findings:
            if f.kind == "empirical":
                return f
        return None

    @property
    def measurement(self) -> Optional[Finding]:
        """The claim-free measurement's finding (``kind == "measurement"``; report.json's
        ``verdict`` field holds INCONCLUSIVE there, as no claim was judged), or None."""
        for f in self.findings:
            if f.kind == "measurement":
                return f
        return None

    @property
    def power(self) -> Optional[Power]:
        """The deciding finding's power (what it could have shown); None for a measurement,
        which states none (``plan(trials=…, delta=…)`` says what a count can show)."""
        f = self.deciding
        return f.power if f else None

    def _figures_finding(self) -> Optional[Finding]:
        return self.deciding or self.measurement

    @property
    def figures(self) -> Dict[str, Optional[float]]:
        """The deciding (or measurement) finding's figures by name: ``epsilon_lower_bound`` (its
        measured value) and every estimate beside it (Gaussian-DP μ, AUC, TPR at low FPR, …).
        Read them with :attr:`notes`, which say what each is measured on and in which direction."""
        f = self._figures_finding()
        if f is None:
            return {}
        out: Dict[str, Optional[float]] = {"epsilon_lower_bound": f.measured}
        out.update({e.name: e.value for e in f.estimates})
        return out

    @property
    def notes(self) -> Dict[str, str]:
        """Each of :attr:`figures`' notes, by the same names: the finding's detail for
        ``epsilon_lower_bound``, each estimate's note for the others."""
        f = self._figures_finding()
        if f is None:
            return {}
        out = {"epsilon_lower_bound": f.detail}
        out.update({e.name: e.note for e in f.estimates})
        return out

    def to_dict(self) -> dict:
        """report.json as Python objects (±Inf and NaN as the strings the binary writes)."""
        return json.loads(self.json)

    def __str__(self) -> str:
        return self.text or f"overall: {self.verdict}"

    def __repr__(self) -> str:
        subjects = ", ".join(f"{s.name} {s.verdict}" for s in self.subjects)
        return f"<Report {self.command} {self.verdict}: {subjects}; exit {self.exit_code}>"

    def _repr_html_(self) -> str:
        """Jupyter's rendering: the binary's self-contained HTML report in an iframe."""
        if not self.html:
            return f"<pre>{html.escape(str(self))}</pre>"
        return ('<iframe style="width:100%;height:40em;border:1px solid #ccc" sandbox="allow-same-origin" srcdoc="'
                + html.escape(self.html, quote=True) + '"></iframe>')


#: The report's typed paths (attributes above) and the subtrees kept as plain JSON ("raw"):
#: tests/test_report.py checks this against report_fields.txt, the Go type's field list.
TYPED = {
    "schema", "tool", "tool.name", "tool.version", "command", "date", "command_line", "seed", "trials",
    "confidence", "trial_evidence", "inputs", "inputs[].role", "inputs[].path", "inputs[].sha256", "inputs[].bytes",
    "data", "subjects", "controls", "summary", "summary.verdict", "summary.pass", "summary.fail",
    "summary.inconclusive", "summary.reported",
    "subjects[].name", "subjects[].verdict", "subjects[].claim", "subjects[].findings", "subjects[].utility", "subjects[].noise",
    "subjects[].claim.method", "subjects[].claim.source", "subjects[].claim.guarantee", "subjects[].claim.epsilon",
    "subjects[].claim.delta", "subjects[].claim.relation",
} | {f"subjects[].findings[].{k}" for k in (
    "check", "title", "kind", "verdict", "measured", "interval", "interval.lower", "interval.upper", "bound",
    "comparison", "confidence", "trials", "trials_needed", "detail", "required", "reported", "slack", "power",
    "estimates", "estimates[].name", "estimates[].value", "estimates[].interval", "estimates[].interval.lower",
    "estimates[].interval.upper", "estimates[].note",
)} | {f"subjects[].findings[].power.{k}" for k in (
    "against_factor", "power", "power_stderr", "smallest_detectable_factor", "smallest_detectable_epsilon",
    "smallest_detectable_mu", "max_showable_epsilon", "max_showable_mu", "trials_needed", "trials_to_show_violation",
    "trials_to_pass", "unit", "counts", "summary", "question",
)}

#: Subtrees handed over as plain JSON (a dict or list of dicts), not typed.
RAW = {
    "data", "controls", "summary.reported", "subjects[].utility", "subjects[].claim",
    "subjects[].findings[].power.question", "subjects[].findings[].scores", "subjects[].findings[].membership",
    "subjects[].findings[].held_out", "subjects[].findings[].traces",
}
