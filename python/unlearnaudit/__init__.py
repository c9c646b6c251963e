"""unlearnaudit: audit machine unlearning from Python.

An API over the ``audit`` binary, not a second implementation: the arguments are written
to a folder in the formats the binary reads, the binary runs, and its report.json comes
back as a typed :class:`Report`. The wheel built from the clone (``pip install ./python``)
carries the binary; run from the clone (``PYTHONPATH=python``) the package uses ``$AUDIT``
or ``audit`` on PATH.

>>> import unlearnaudit as ua                                     # doctest: +SKIP
>>> r = ua.verify(unlearned_scores, retrained_scores, scores=True,
...               epsilon=1, delta=1e-3, name="my-finetune")      # doctest: +SKIP
>>> r.verdict, r.power.smallest_detectable_epsilon                # doctest: +SKIP
"""
from ._api import Canaries, Plan, canaries, measure, plan, verify
from ._inputs import save_npz
from ._run import AuditError, binary
from .report import REPORT_SCHEMA, Claim, Estimate, Finding, Input, Interval, Power, Report, Subject, Summary
from .scores import References, confidences, losses, references, score_matrix

#: The package's version; the binary it carries prints the same release (``audit version``).
__version__ = "0.1.0"

__all__ = [
    "__version__", "verify", "measure", "plan", "canaries", "Canaries", "Plan", "Report", "Subject", "Claim",
    "Finding", "Power", "Interval", "Estimate", "Input", "Summary", "REPORT_SCHEMA", "AuditError", "binary",
    "losses", "confidences", "score_matrix", "references", "References", "save_npz",
]
