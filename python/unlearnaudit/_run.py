"""Finding the audit binary and running it, with its progress line relayed."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Union

ProgressArg = Union[None, bool, Callable[[str], None]]

#: Exit codes of the binary (README, "Exit codes").
EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class AuditError(RuntimeError):
    """The audit binary refused its input or could not run (exit 2 and others but 0, 1 and 3).

    Attributes
    ----------
    exit_code : int
        The binary's exit code (2: bad usage or bad input, nothing written; 130: interrupted).
    message : str
        What the binary printed on stderr: it names the file, line or field at fault.
    """

    def __init__(self, exit_code: int, message: str, command: Sequence[str]):
        self.exit_code, self.message, self.command = exit_code, message, list(command)
        super().__init__(f"audit exited {exit_code}: {message.strip()}")


def binary(audit: Optional[Union[str, os.PathLike]] = None) -> str:
    """The audit binary to run.

    Parameters
    ----------
    audit : str or path-like, optional
        An explicit binary. Otherwise ``$AUDIT``, then the binary this package's wheel carries
        (``unlearnaudit/bin/audit``), then ``audit`` on PATH (the package run from the clone,
        ``PYTHONPATH=python``, after ``go install ./cmd/audit``).

    Raises
    ------
    FileNotFoundError
        When none of them exists.
    """
    if audit is not None:
        p = Path(audit)
        if not p.is_file():
            raise FileNotFoundError(f"audit: no binary at {p}")
        return str(p)
    if os.environ.get("AUDIT"):
        return os.environ["AUDIT"]
    exe = "audit.exe" if os.name == "nt" else "audit"
    carried = Path(__file__).resolve().parent / "bin" / exe
    if carried.is_file():
        return str(carried)
    found = shutil.which("audit")
    if found:
        return found
    raise FileNotFoundError(
        "no audit binary: install the package from the clone (pip install ./python, which builds it into the wheel), "
        "or go install ./cmd/audit so audit is on PATH, or set $AUDIT, or pass audit=")


def _in_notebook() -> bool:
    ip = sys.modules.get("IPython")
    try:
        return ip is not None and ip.get_ipython() is not None and "IPKernelApp" in ip.get_ipython().config
    except Exception:
        return False


def _progress_sink(progress: ProgressArg) -> Optional[Callable[[str], None]]:
    """None: no progress; else a function given each redraw of the binary's progress line."""
    if progress is False:
        return None
    if callable(progress):
        return progress
    if progress is None:
        try:
            tty = sys.stderr.isatty()
        except (AttributeError, ValueError):
            tty = False
        if not (tty or _in_notebook()):
            return None
    width = [0]

    def draw(line: str) -> None:
        # the line redrawn in place, as the binary draws it on a terminal (Jupyter honours \r)
        pad = max(0, width[0] - len(line))
        width[0] = len(line)
        sys.stderr.write("\r" + line + " " * pad)
        sys.stderr.flush()

    draw.ends_line = True  # type: ignore[attr-defined]
    return draw


def run(args: List[str], *, cwd: Optional[Union[str, os.PathLike]] = None, progress: ProgressArg = False,
        audit: Optional[Union[str, os.PathLike]] = None, ok: Sequence[int] = (EXIT_PASS,)) -> "subprocess.CompletedProcess[str]":
    """Runs ``audit ARGS`` and returns it; an exit outside ``ok`` raises AuditError.

    The binary draws its progress line only on a terminal: with progress on (POSIX), its
    stderr is a pseudo-terminal whose lines go to the progress function, and its other
    stderr output is kept for the error message. The report does not depend on it.
    """
    cmd = [binary(audit), *args]
    sink = _progress_sink(progress)
    if sink is None or os.name != "posix":
        run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    else:
        run = _run_pty(cmd, cwd, sink)
    if run.returncode not in ok:
        raise AuditError(run.returncode, run.stderr or run.stdout, cmd)
    return run


_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _run_pty(cmd: List[str], cwd, sink: Callable[[str], None]) -> "subprocess.CompletedProcess[str]":
    import pty
    import termios

    master, slave = pty.openpty()
    try:
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.ONLCR  # keep \n as \n
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
    except termios.error:
        pass
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    lines: List[str] = []  # stderr's finished lines (messages); progress redraws go to sink
    drew = [False]

    def pump() -> None:
        buf, after_cr = b"", False
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the binary closed its end
                break
            if not chunk:
                break
            buf += chunk
            while True:
                i = min([j for j in (buf.find(b"\r"), buf.find(b"\n")) if j >= 0], default=-1)
                if i < 0:
                    break
                piece, sep, buf = _CSI.sub("", buf[:i].decode("utf-8", "replace")).rstrip(), buf[i:i + 1], buf[i + 1:]
                if piece and after_cr:  # a redraw of the progress line ("\r" + line)
                    sink(piece)
                    drew[0] = True
                elif piece:
                    lines.append(piece)
                after_cr = sep == b"\r"
        if buf.strip():
            lines.append(_CSI.sub("", buf.decode("utf-8", "replace")))

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    assert proc.stdout is not None
    with proc.stdout:
        out = proc.stdout.read().decode("utf-8", "replace")
    rc = proc.wait()
    t.join()
    os.close(master)
    if drew[0] and getattr(sink, "ends_line", False):
        sys.stderr.write("\n")  # the default drawer's line ends as the binary's would
    return subprocess.CompletedProcess(cmd, rc, out, "\n".join(lines) + ("\n" if lines else ""))
