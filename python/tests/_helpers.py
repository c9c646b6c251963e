"""Shared by the package's tests: the binary and a scratch folder."""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import unlearnaudit as ua

DATE = "2026-01-02"  # the audit date both sides state, so the report bytes do not depend on the day


def audit_binary() -> str:
    return ua.binary()


def cli(args, cwd, ok=(0, 1, 3)):
    """Runs the binary as a user at a shell would, in cwd; returns (exit code, stdout)."""
    run = subprocess.run([audit_binary(), *args], cwd=cwd, capture_output=True, text=True)
    if run.returncode not in ok:
        raise AssertionError(f"audit {' '.join(args)}: exit {run.returncode}\n{run.stdout}{run.stderr}")
    return run.returncode, run.stdout


class Scratch(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="ua-test-")
        self.tmp = Path(self._tmp.name)

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def folder(self, name: str) -> Path:
        p = self.tmp / name
        p.mkdir()
        return p


def have(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def skip_unless(module: str):
    """Skips a test needing an optional module, and fails it under CI, which installs it."""
    if have(module):
        return lambda f: f
    if os.environ.get("CI"):
        raise ImportError(f"{module}: CI installs it (.ci/run), yet it cannot be imported")
    return unittest.skip(f"needs {module}")
