"""The API's contract besides the report bytes: errors name their argument, bad input is
an exception carrying the binary's message, a FAIL is a result, progress leaves the report
unchanged, and the version is the binary's."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

import unlearnaudit as ua
from _helpers import DATE, Scratch, have

RNG = np.random.default_rng(43)
FAKE_U = RNG.normal(0.0, 0.3, (40, 10))  # a fake unlearner: its deleted records' losses far below the retrains'
FAKE_R = RNG.normal(2.0, 0.3, (40, 10))


class _Linear:
    """Stands for a fitted scikit-learn linear model (what the package reads of one)."""

    coef_, intercept_ = np.ones((1, 3)), np.zeros(1)

    def get_params(self):
        return {"fit_intercept": True}


class Arguments(unittest.TestCase):
    def test_errors_name_the_argument(self):
        cases = [
            (dict(epsilon=-1, delta=1e-3), ValueError, "^epsilon: "),
            (dict(epsilon=1, delta=1.5), ValueError, "^delta: "),
            (dict(epsilon=1), ValueError, "^delta: "),
            (dict(epsilon="1", delta=1e-3), TypeError, "^epsilon: "),
            (dict(references=([[1.0]], [[1.0]])), ValueError, "^references: needs scores=True"),
            (dict(score_kind="logit", scores=True), ValueError, "^score_kind: "),
            (dict(spec=5), TypeError, "^spec: "),
            (dict(deletes=[], scores=True), ValueError, "^deletes: "),
            (dict(deletes=[1], scores=True, spec={"claim": {}}), ValueError, "^deletes: with spec="),
            # silent coercions before: truncated, read digit by digit, a str taken as true, letter by letter
            (dict(deletes=[i + 0.9 for i in range(10)], scores=True), TypeError, r"^deletes\[0\]: 0.9 \(float\)"),
            (dict(deletes="0123456789", scores=True), TypeError, "^deletes: str"),
            (dict(scores="yes"), TypeError, "^scores: 'yes'"),
            (dict(args="--rank-p"), TypeError, "^args: a str"),
            (dict(formats=["html", 5]), TypeError, r"^formats\[1\]: "),
            (dict(name=5), TypeError, "^name: 5"),
            (dict(epsilon=True, delta=1e-3), TypeError, "^epsilon: True"),
        ]
        for kwargs, exc, msg in cases:
            with self.subTest(**{k: repr(v) for k, v in kwargs.items()}):
                with self.assertRaisesRegex(exc, msg):
                    ua.verify(FAKE_U, FAKE_R, **kwargs)
        with self.assertRaisesRegex(ValueError, "^unlearned: an array of shape"):
            ua.verify(np.zeros((2, 2, 2)), FAKE_R)
        with self.assertRaisesRegex(TypeError, "^unlearned: an array of <U"):
            ua.verify(np.array([["a"]]), FAKE_R)
        with self.assertRaisesRegex(TypeError, "^unlearned: rows of different lengths"):
            ua.verify([[1.0, 2.0], [3.0]], FAKE_R)  # before: NumPy's "inhomogeneous shape"
        with mock.patch.dict(os.environ, {"AUDIT": "/nonexistent/audit"}):
            with self.assertRaisesRegex(FileNotFoundError, r"^\$AUDIT: no binary at /nonexistent/audit"):
                ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=1, delta=1e-3)
        with self.assertRaisesRegex(FileNotFoundError, "^retrained: no such file"):
            ua.verify(FAKE_U, "/nonexistent/retrained.npy")
        with self.assertRaisesRegex(ValueError, "^references: the mask's shape"):
            ua.verify(FAKE_U, FAKE_R, scores=True, references=(np.zeros((4, 10)), np.ones((4, 9))))
        if have("torch"):
            import torch

            with self.assertRaisesRegex(ValueError, "^unlearned: models where per-record scores are read"):
                ua.verify([torch.nn.Linear(3, 1)] * 8, [torch.nn.Linear(3, 1)] * 8, scores=True, epsilon=1, delta=1e-3)
        with self.assertRaisesRegex(ValueError, "^retrained: models where per-record scores are read"):
            ua.verify(FAKE_U, [_Linear()] * 8, scores=True, epsilon=1, delta=1e-3)
        with self.assertRaisesRegex(ValueError, "^holdout: models where per-record scores are read"):
            ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=1, delta=1e-3, holdout=[_Linear()] * 8)
        with self.assertRaisesRegex(ValueError, "^trials, models, table: "):
            ua.plan(epsilon=1, delta=1e-3)
        with self.assertRaisesRegex(TypeError, "^epsilon: measure takes no claim"):
            ua.measure(FAKE_U, FAKE_R, epsilon=1)
        with self.assertRaisesRegex(TypeError, "^seed: "):
            ua.canaries("7")
        with self.assertRaisesRegex(TypeError, "^count: 10.0"):
            ua.canaries(7, 10.0)
        with self.assertRaisesRegex(TypeError, r"^table\[0\]: 'x'"):
            ua.plan(epsilon=1, delta=1e-3, table=["x"])
        with self.assertRaisesRegex(TypeError, "^trials: 64.5"):
            ua.plan(epsilon=1, delta=1e-3, trials=64.5)

    def test_numpy_scalars_are_numbers(self):
        # np.float32 is no float subclass, np.int64 no int: numbers.Real and operator.index take them
        want = ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=1, delta=1e-3, date=DATE, formats=())
        got = ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=np.float32(1), delta=np.float64(1e-3), date=DATE,
                        formats=(), deletes=None)
        self.assertEqual(got.json, want.json)
        self.assertEqual(ua.plan(epsilon=np.int64(1), delta=1e-3, trials=np.int64(64)).json,
                         ua.plan(epsilon=1, delta=1e-3, trials=64).json)
        self.assertEqual(ua.canaries(np.int64(7), np.int32(16)).json, ua.canaries(7, 16).json)


class Results(Scratch):
    def test_fail_is_a_result(self):
        r = ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=1, delta=1e-3, date=DATE, formats=())
        self.assertEqual((r.verdict, r.exit_code), ("FAIL", 1))
        self.assertGreater(r.deciding.measured, r.deciding.bound)  # the ε it shows is above the claim
        self.assertEqual(r.deciding.verdict, "FAIL")
        self.assertIn("overall: FAIL", r.text)
        # the temporary folder is gone when the call returns: str(report) names none of its files
        self.assertTrue(r.text.endswith("overall: FAIL\n"), r.text[-200:])
        self.assertNotIn(tempfile.gettempdir(), str(r))

    def test_bad_input_raises_the_binarys_message(self):
        with self.assertRaises(ua.AuditError) as cm:
            ua.verify(FAKE_U, FAKE_R[:, :4], scores=True, epsilon=1, delta=1e-3)
        self.assertEqual(cm.exception.exit_code, 2)
        self.assertIn("unlearned models score 10 records, retrained ones 4", cm.exception.message)

    def test_html_rendering(self):
        r = ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=1, delta=1e-3, date=DATE, formats="html")  # a str: one format
        self.assertIn("<html", r.html)
        self.assertIn("FAIL", r.html)
        self.assertTrue(r._repr_html_().startswith("<iframe"))

    def test_out_is_the_report_folder(self):
        out = self.tmp / "kept"
        r = ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=1, delta=1e-3, date=DATE, out=out)
        self.assertEqual((out / "report.json").read_bytes(), r.json)
        self.assertEqual((out / "report.html").read_text(encoding="utf-8"), r.html)
        self.assertEqual([i.path for i in r.inputs], ["unlearned.npy", "retrained.npy"])
        self.assertIn(f"overall: FAIL; report: {out.resolve() / 'report.json'}", r.text)  # kept: named

    def test_a_spec_dicts_data_file_is_read_from_the_working_directory(self):
        root = Path(__file__).resolve().parents[2]
        spec = json.loads((root / "examples" / "heart-scale.json").read_text(encoding="utf-8"))
        spec["method"]["variants"] = ["perfect"]
        spec["data"]["file"] = "datasets/liblinear/heart_scale"  # relative to the clone's root
        before = json.dumps(spec)
        cwd = os.getcwd()
        os.chdir(root)
        try:  # before: "spec.json: data.file: load datasets/…: no such file", sought in the temporary folder
            r = ua.verify(np.random.default_rng(0).normal(size=(8, 13)), spec=spec, date=DATE, formats=())
        finally:
            os.chdir(cwd)
        self.assertEqual(json.dumps(spec), before, "the caller's spec was changed")
        self.assertIn(f"on {root / 'datasets' / 'liblinear' / 'heart_scale'} (libsvm)", r.data["description"])

    def test_a_spec_dicts_builtin_data_set_is_read_from_anywhere(self):
        # datasets/… where the working directory has no such file: the copy built into the
        # binary, as a spec file reads it (before: made absolute, then "no such file")
        root = Path(__file__).resolve().parents[2]
        spec = json.loads((root / "examples" / "heart-scale.json").read_text(encoding="utf-8"))
        spec["method"]["variants"] = ["perfect"]
        spec["data"]["file"] = "datasets/liblinear/heart_scale"
        cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            r = ua.verify(np.random.default_rng(0).normal(size=(8, 13)), spec=spec, date=DATE, formats=())
        finally:
            os.chdir(cwd)
        self.assertIn("datasets/liblinear/heart_scale, built into the binary (libsvm)", r.data["description"])

    @unittest.skipUnless(os.name == "posix", "the progress line is relayed through a pseudo-terminal")
    def test_progress_is_shown_and_changes_nothing(self):
        lines = []
        with_bar = ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=1, delta=1e-3, date=DATE, formats=(),
                             progress=lines.append)
        quiet = ua.verify(FAKE_U, FAKE_R, scores=True, epsilon=1, delta=1e-3, date=DATE, formats=(), progress=False)
        self.assertTrue(lines, "no progress line came through")
        self.assertTrue(all(line.startswith("verify: ") for line in lines), lines)
        self.assertEqual(with_bar.json, quiet.json)
        # bad input under a progress bar is still an exception with the message
        with self.assertRaisesRegex(ua.AuditError, "retrained ones 4"):
            ua.verify(FAKE_U, FAKE_R[:, :4], scores=True, epsilon=1, delta=1e-3, progress=lines.append)


class Version(unittest.TestCase):
    def test_python_m_prints_the_binarys_version(self):
        env = dict(os.environ)
        mod = subprocess.run([sys.executable, "-m", "unlearnaudit", "version"], capture_output=True, text=True, env=env,
                             cwd=Path(__file__).parent)
        direct = subprocess.run([ua.binary(), "version"], capture_output=True, text=True)
        self.assertEqual(mod.returncode, 0, mod.stderr)
        self.assertEqual(mod.stdout, direct.stdout)
        self.assertTrue(mod.stdout.startswith(f"audit {ua.__version__} ("), mod.stdout)

    @unittest.skipUnless(os.environ.get("UNLEARNAUDIT_WHEEL"), "set by .ci/run, which installs the wheel")
    def test_the_wheel_carries_the_binary(self):
        self.assertNotIn("AUDIT", os.environ)
        self.assertEqual(Path(ua.binary()), Path(ua.__file__).parent / "bin" / "audit")
        out = subprocess.run([ua.binary(), "version"], capture_output=True, text=True).stdout
        root = Path(os.environ["UNLEARNAUDIT_WHEEL"])
        if (root / ".git").is_dir():  # a clone (not a git worktree, which go does not stamp)
            head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=root, check=True)
            self.assertIn("commit " + head.stdout.strip()[:12], out)

if __name__ == "__main__":
    unittest.main()
