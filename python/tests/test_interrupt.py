"""An interrupted call stops the binary: a notebook's interrupt (SIGINT to the kernel, which
the binary, in a session of its own, does not receive) or Ctrl-C raises KeyboardInterrupt in
Python, and the binary is sent SIGINT, given time to tidy up, killed if it does not, and
reaped, on both routes (progress through a pseudo-terminal, and none).

The interrupt is sent once the binary has taken its output folder's lock (by then it has
installed its signal handler) and long before it could finish: the audit retrains 300,000
models by the recipe (5.5 s uninterrupted, measured on two shared cores), the interrupt comes
~0.1 s after the call starts. Nothing here asserts how long anything takes.
"""
import json
import os
import signal
import subprocess
import threading
import time
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

import unlearnaudit as ua
from unlearnaudit import _run
from _helpers import DATE, Scratch

ROOT = Path(__file__).resolve().parents[2]


class Recording(subprocess.Popen):
    """subprocess.Popen, keeping every process it starts."""

    made: list = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        Recording.made.append(self)


@unittest.skipUnless(os.name == "posix", "SIGINT is a POSIX signal")
class Interrupt(Scratch):
    def setUp(self):
        super().setUp()
        Recording.made = []
        self.old_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
        patch = mock.patch.object(subprocess, "Popen", Recording)
        patch.start()
        self.addCleanup(patch.stop)
        self.addCleanup(signal.signal, signal.SIGINT, self.old_handler)

    def interrupt_when(self, ready):
        """Sends this process SIGINT from another thread once ready() holds (a binary started
        and at work), as Jupyter's interrupt does; stops looking when the call returns."""
        done = threading.Event()

        def watch():
            while not done.is_set():
                if Recording.made and ready():
                    os.kill(os.getpid(), signal.SIGINT)
                    return
                time.sleep(0.01)

        t = threading.Thread(target=watch, daemon=True)
        t.start()
        self.addCleanup(t.join)
        self.addCleanup(done.set)

    def assertGone(self, proc, returncode):
        self.assertEqual(proc.returncode, returncode, "the binary was not stopped and reaped as expected")
        with self.assertRaises(ProcessLookupError, msg="the binary's process is still there"):
            os.kill(proc.pid, 0)

    def slow_verify(self, progress):
        spec = json.loads((ROOT / "examples" / "heart-scale.json").read_text(encoding="utf-8"))
        spec["method"]["variants"] = ["perfect"]
        spec["data"]["file"] = str(ROOT / "datasets" / "liblinear" / "heart_scale")
        out = self.tmp / "out"
        self.interrupt_when(lambda: (out / ".audit.lock").exists())
        with self.assertRaises(KeyboardInterrupt):
            ua.verify(np.random.default_rng(0).normal(size=(300_000, 13)), spec=spec, date=DATE, out=out,
                      progress=progress)
        self.assertEqual(len(Recording.made), 1)
        # the binary got SIGINT and exited as interrupted (130), having removed its lock and
        # the folder it had created: nothing partial stays
        self.assertGone(Recording.made[0], 130)
        self.assertFalse(out.exists(), sorted(p.name for p in out.iterdir()) if out.exists() else None)

    def test_interrupted_without_progress(self):
        self.slow_verify(progress=False)

    def test_interrupted_with_progress_through_a_pty(self):
        lines = []
        self.slow_verify(progress=lines.append)

    def test_a_progress_function_that_raises_stops_the_audit(self):
        # before: its exception ended the thread reading the terminal, unseen, and the audit ran on
        spec = json.loads((ROOT / "examples" / "heart-scale.json").read_text(encoding="utf-8"))
        spec["method"]["variants"] = ["perfect"]
        spec["data"]["file"] = str(ROOT / "datasets" / "liblinear" / "heart_scale")
        out = self.tmp / "out"

        def progress(line):
            raise RuntimeError("stop here")

        with self.assertRaisesRegex(RuntimeError, "^stop here$"):
            ua.verify(np.random.default_rng(0).normal(size=(300_000, 13)), spec=spec, date=DATE, out=out,
                      progress=progress)
        self.assertGone(Recording.made[0], 130)
        self.assertFalse(out.exists())

    def test_a_binary_ignoring_sigint_is_killed(self):
        started = self.tmp / "started"
        fake = self.tmp / "audit"
        fake.write_text(f"#!/bin/sh\ntrap '' INT\n: > '{started}'\nexec sleep 600\n", encoding="utf-8")
        fake.chmod(0o755)
        self.interrupt_when(started.exists)
        with mock.patch.object(_run, "STOP_GRACE", 0.2), self.assertRaises(KeyboardInterrupt):
            ua.canaries(1, 10, audit=fake)
        self.assertGone(Recording.made[0], -signal.SIGKILL)


if __name__ == "__main__":
    unittest.main()
