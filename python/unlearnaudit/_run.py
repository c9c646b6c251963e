"""Finding the audit binary and running it, with its progress line relayed."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

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
        if not Path(os.environ["AUDIT"]).is_file():
            raise FileNotFoundError(f"$AUDIT: no binary at {os.environ['AUDIT']} (unset it to use the wheel's)")
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
        proc = _start(cmd, cwd, subprocess.PIPE)
        out, err = _communicate(proc)
        run = subprocess.CompletedProcess(cmd, proc.returncode, _text(out), _text(err))
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
    try:
        proc = _start(cmd, cwd, slave)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    lines: List[str] = []  # stderr's finished lines (messages); progress redraws go to sink
    drew = [False]
    failed: List[BaseException] = []  # what the progress function raised (then the pty is still drained)

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
                if piece and after_cr and not failed:  # a redraw of the progress line ("\r" + line)
                    try:
                        sink(piece)
                    except Exception as e:  # the caller's progress function: the audit stops, its error is raised
                        failed.append(e)
                        if proc.poll() is None:
                            proc.send_signal(signal.SIGINT)
                    drew[0] = True
                elif piece:
                    lines.append(piece)
                after_cr = sep == b"\r"
        if buf.strip():
            lines.append(_CSI.sub("", buf.decode("utf-8", "replace")))

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        out, _ = _communicate(proc)
    finally:
        # the binary is gone (reaped, or its end of the terminal closed): the pump reads EIO
        t.join()
        os.close(master)
        if drew[0] and getattr(sink, "ends_line", False):
            sys.stderr.write("\n")  # the default drawer's line ends as the binary's would
    if failed:
        raise failed[0]
    return subprocess.CompletedProcess(cmd, proc.returncode, _text(out), "\n".join(lines) + ("\n" if lines else ""))


#: Seconds an interrupted binary is given to stop by itself (it finishes the step it is in,
#: removes what it had begun to write and its output folder's lock, and exits 130) before it
#: is killed, which leaves its .audit.lock behind (stale: the next run takes it over).
STOP_GRACE = 10.0


def _start(cmd: List[str], cwd: Optional[Union[str, os.PathLike]], stderr: Any) -> "subprocess.Popen[bytes]":
    """Starts the binary. On POSIX it gets a session of its own, so a Ctrl-C at the terminal
    reaches Python alone and the binary receives exactly one SIGINT, from :func:`_stop` (a
    second one would end it at once, before it tidies up)."""
    return subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr,
                            start_new_session=os.name == "posix")


def _communicate(proc: "subprocess.Popen[bytes]") -> Tuple[bytes, Optional[bytes]]:
    """proc.communicate(); any exception in it (KeyboardInterrupt from a notebook's interrupt
    or Ctrl-C, SystemExit, an exception raised in another thread) stops the binary first."""
    try:
        return proc.communicate()
    except BaseException:
        _stop(proc)
        raise


def _stop(proc: "subprocess.Popen[bytes]") -> None:
    """Stops the binary and reaps it: SIGINT (on Windows, which has none to send, a kill),
    up to STOP_GRACE seconds for it to exit — its output still drained, so a full pipe never
    holds it — then a kill. A second interrupt during the wait kills it at once."""
    if proc.poll() is not None:
        return
    try:
        if os.name == "posix":
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        pass
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for f in (proc.stdout, proc.stderr):
            if f is not None:
                f.close()


def _text(b: Optional[bytes]) -> str:
    return (b or b"").decode("utf-8", "replace")
