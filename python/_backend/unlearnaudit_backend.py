"""The in-tree PEP 517 build backend of the unlearnaudit Python package.

pip's build isolation installs a backend's requirements from an index; this one has none
(``requires = []``), so ``pip install ./python`` works offline. It builds the ``audit``
binary from the checkout the folder belongs to (``go build``, cgo off, so the binary is
static) and writes the wheel itself: the package's modules, the binary as
``unlearnaudit/bin/audit``, and the ``.dist-info`` with a RECORD of SHA-256 digests. The
wheel is tagged ``py3-none-<platform>``: the Python code is pure, the binary is not.

There is no sdist: the package is nothing without the Go source of the checkout it sits
in, so an sdist of ``python/`` alone could not build. Editable installs are not offered
either; ``PYTHONPATH=python`` runs the package from the clone, with ``audit`` on PATH.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # python/
NAME = "unlearnaudit"

__all__ = ["build_wheel", "get_requires_for_build_wheel", "prepare_metadata_for_build_wheel"]


def _version() -> str:
    text = (HERE / NAME / "__init__.py").read_text(encoding="utf-8")
    m = re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.M)
    if not m:
        raise RuntimeError(f"{HERE / NAME / '__init__.py'}: no __version__ = \"…\" line")
    return m.group(1)


def _repo_root() -> Path:
    """The Go module the package is built from: the first folder above python/ with a go.mod."""
    for d in [HERE, *HERE.parents]:
        if (d / "go.mod").is_file():
            return d
    raise RuntimeError(
        f"unlearnaudit's build: no go.mod in {HERE} or any folder above it. The wheel carries the "
        "audit binary built from the unlearnaudit checkout, so build it from the clone "
        "(pip install ./python in the repository), not from a copy of python/ alone."
    )


def _platform_tag() -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _go_build(dest: Path) -> None:
    root = _repo_root()
    exe = "audit.exe" if os.name == "nt" else "audit"
    env = dict(os.environ, CGO_ENABLED="0")
    # -buildvcs=auto: the commit is stamped when the toolchain can read it (a clone), whatever
    # GOFLAGS says; audit version then names it. No -trimpath: go test ./... has cached
    # every package without it, and with it the build recompiled all of them (2 min 20 s on
    # two cores against ~10 s).
    cmd = ["go", "build", "-buildvcs=auto", "-o", str(dest / exe), "./cmd/audit"]
    print(f"unlearnaudit's build: {' '.join(cmd)} in {root}", file=sys.stderr)
    try:
        run = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    except FileNotFoundError:
        raise RuntimeError("unlearnaudit's build: no go command on PATH (the wheel carries the audit binary, built with Go 1.26 or later)") from None
    if run.returncode != 0:
        raise RuntimeError(f"unlearnaudit's build: {' '.join(cmd)} failed (exit {run.returncode}):\n{run.stdout}{run.stderr}")


def _metadata(version: str) -> str:
    readme = (HERE / "README.md").read_text(encoding="utf-8") if (HERE / "README.md").exists() else ""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version}",
        "Summary: Audit machine unlearning from Python: the audit binary's verify, measure, plan and canaries over NumPy arrays, PyTorch and scikit-learn models",
        "License: BSD-3-Clause",
        "Requires-Python: >=3.9",
        "Provides-Extra: numpy",
        'Requires-Dist: numpy; extra == "numpy"',
        "Provides-Extra: torch",
        'Requires-Dist: numpy; extra == "torch"',
        'Requires-Dist: torch; extra == "torch"',
        "Provides-Extra: sklearn",
        'Requires-Dist: numpy; extra == "sklearn"',
        'Requires-Dist: scikit-learn; extra == "sklearn"',
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + readme


def _wheel_file(tag: str) -> str:
    return f"Wheel-Version: 1.0\nGenerator: unlearnaudit_backend\nRoot-Is-Purelib: false\nTag: {tag}\n"


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def get_requires_for_build_wheel(config_settings=None) -> list:
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None) -> str:
    version = _version()
    dist_info = Path(metadata_directory) / f"{NAME}-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(_metadata(version), encoding="utf-8")
    (dist_info / "WHEEL").write_text(_wheel_file(f"py3-none-{_platform_tag()}"), encoding="utf-8")
    return dist_info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    version = _version()
    tag = f"py3-none-{_platform_tag()}"
    dist_info = f"{NAME}-{version}.dist-info"
    files: list = []  # (archive name, bytes, executable)
    for p in sorted((HERE / NAME).rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix in (".py", ".txt", ".typed"):
            files.append((p.relative_to(HERE).as_posix(), p.read_bytes(), False))
    with tempfile.TemporaryDirectory() as tmp:
        _go_build(Path(tmp))
        for exe in sorted(Path(tmp).iterdir()):
            files.append((f"{NAME}/bin/{exe.name}", exe.read_bytes(), True))
    files.append((f"{dist_info}/METADATA", _metadata(version).encode(), False))
    files.append((f"{dist_info}/WHEEL", _wheel_file(tag).encode(), False))
    for lic in ("LICENSE", "NOTICE"):
        if (_repo_root() / lic).is_file():
            files.append((f"{dist_info}/licenses/{lic}", (_repo_root() / lic).read_bytes(), False))
    record = "".join(f"{name},{_digest(data)},{len(data)}\n" for name, data, _ in files) + f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode(), False))
    wheel = f"{NAME}-{version}-{tag}.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, executable in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            z.writestr(info, data)
    return wheel
