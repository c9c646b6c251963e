"""Every call's result equals the CLI's report for the same inputs, byte for byte.

Each case writes the inputs as a user of the CLI would (np.save, torch.save of state dicts,
a spec file), runs the binary on them in a folder of its own, and compares its report.json
with the package's, whose call received the Python objects. Both runs state the same audit
date (--date; the binary's default is the day it runs) and name their inputs relative to
the folder they run in (the package runs the binary in its working folder), so the report,
which records the command line and each input's path and SHA-256, is the same bytes: a
package that wrote an input differently (another dtype, order, layout, or flag) fails here.
"""
import json
import unittest

import numpy as np

import unlearnaudit as ua
from _helpers import DATE, Scratch, cli, skip_unless
from test_report import fields

def paths(v, prefix=""):
    """The JSON field paths in v, as report_fields.txt writes them (a list's items under "[]")."""
    if isinstance(v, dict):
        for k, x in v.items():
            p = f"{prefix}.{k}" if prefix else k
            yield p
            yield from paths(x, p)
    elif isinstance(v, list):
        for x in v:
            yield from paths(x, prefix + "[]")

RNG = np.random.default_rng(20261129)
U = RNG.normal(0.0, 1.0, (40, 12))  # unlearned scores: models × deleted records
R = RNG.normal(0.4, 1.0, (40, 12))  # retrained


class SameAsCLI(Scratch):
    def assertSameReport(self, rep, folder, args):
        code, _ = cli(args + ["--date", DATE, "--out", "out"], folder)
        want = (folder / "out" / "report.json").read_bytes()
        self.assertEqual(rep.exit_code, code)
        self.assertEqual(rep.json, want, "the package's report.json differs from the CLI's")
        # every field the binary wrote is one report_fields.txt (the Go type's walk) lists
        _, listed = fields()
        written = set(paths(json.loads(want)))
        self.assertEqual(sorted(written - listed), [], "report.json has fields report_fields.txt does not list")

    def test_verify_scores_with_a_claim(self):
        rep = ua.verify(U, R, scores=True, epsilon=1, delta=1e-3, name="my-finetune", date=DATE, formats=())
        d = self.folder("cli")
        np.save(d / "unlearned.npy", U)
        np.save(d / "retrained.npy", R)
        self.assertSameReport(rep, d, ["verify", "--epsilon", "1", "--delta", "0.001", "--name", "my-finetune",
                                       "--scores", "--unlearned", "unlearned.npy", "--retrained", "retrained.npy"])
        self.assertIn(rep.verdict, ("FAIL", "INCONCLUSIVE", "PASS"))

    def test_measure_with_deletes_references_and_holdout(self):
        refs = ua.References(RNG.normal(0.2, 1.0, (8, 12)), np.repeat([[1.0], [0.0]], 4, axis=0) * np.ones((8, 12)))
        hold = RNG.normal(0.5, 1.0, (40, 30))
        deletes = list(range(100, 112))
        rep = ua.measure(U, R, delta=1e-5, scores=True, deletes=deletes, references=refs, holdout=hold,
                         name="probe", date=DATE)
        self.assertEqual(rep.verdict, "MEASUREMENT")
        self.assertIsNone(rep.deciding)  # nothing decided: the finding is the measurement
        self.assertEqual(rep.measurement.kind, "measurement")
        self.assertIn("Gaussian-DP μ lower bound", rep.figures)
        self.assertEqual(set(rep.notes), set(rep.figures))
        d = self.folder("cli")
        np.save(d / "unlearned.npy", U)
        np.save(d / "retrained.npy", R)
        np.save(d / "holdout.npy", hold)
        ua.save_npz(d / "references.npz", scores=refs.scores, **{"in": refs.mask})
        spec = {"schema": "unlearnaudit/spec/v1", "method": {"name": "probe"}, "scores": "loss", "deletes": deletes}
        (d / "spec.json").write_text(json.dumps(spec, indent=1) + "\n")
        self.assertSameReport(rep, d, ["verify", "--spec", "spec.json", "--delta", "1e-05", "--scores",
                                       "--unlearned", "unlearned.npy", "--retrained", "retrained.npy",
                                       "--references", "references.npz", "--holdout", "holdout.npy"])

    @skip_unless("sklearn")
    def test_verify_sklearn_models(self):
        from sklearn.linear_model import LogisticRegression

        x = RNG.normal(0, 1, (120, 4))
        y = (x[:, 0] + 0.5 * RNG.normal(0, 1, 120) > 0).astype(int)
        models = {side: [LogisticRegression(C=c).fit(x[k:], y[k:]) for c, k in
                         ((0.5 + 0.05 * i, 10 if side == "r" else 0) for i in range(8))] for side in "ur"}
        rep = ua.verify(models["u"], models["r"], epsilon=2, delta=1e-3, date=DATE, formats=())
        d = self.folder("cli")
        for side, f in (("u", "unlearned.npy"), ("r", "retrained.npy")):
            np.save(d / f, np.stack([np.concatenate([m.intercept_, m.coef_.ravel()]) for m in models[side]]))
        self.assertSameReport(rep, d, ["verify", "--epsilon", "2", "--delta", "0.001",
                                       "--unlearned", "unlearned.npy", "--retrained", "retrained.npy"])

    @skip_unless("torch")
    def test_verify_torch_modules_and_state_dicts(self):
        import torch

        torch.manual_seed(3)
        unl = [torch.nn.Linear(3, 1) for _ in range(8)]
        ret = [torch.nn.Linear(3, 1) for _ in range(8)]
        for m in ret:
            with torch.no_grad():
                m.bias += 0.5
        # modules on one side, state dicts on the other: both are saved as .pt state dicts
        rep = ua.verify(unl, [m.state_dict() for m in ret], epsilon=1, delta=1e-3, tensors=["bias", "weight"],
                        date=DATE, formats=())
        d = self.folder("cli")
        for side, ms in (("unlearned", unl), ("retrained", ret)):
            (d / side).mkdir()
            for i, m in enumerate(ms):
                torch.save(m.state_dict(), d / side / f"model_{i:03d}.pt")
        self.assertSameReport(rep, d, ["verify", "--epsilon", "1", "--delta", "0.001", "--tensor", "bias,weight",
                                       "--unlearned", "unlearned", "--retrained", "retrained"])

    @skip_unless("torch")
    def test_verify_a_users_own_modules(self):
        # a subclass of nn.Module defined outside torch, as users write models
        import torch

        class Net(torch.nn.Module):
            def __init__(self, shift: float):
                super().__init__()
                self.fc1, self.fc2 = torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)
                with torch.no_grad():
                    self.fc2.bias += shift

            def forward(self, x):
                return self.fc2(torch.relu(self.fc1(x)))

        torch.manual_seed(4)
        unl, ret = [Net(0.0) for _ in range(8)], [Net(0.5) for _ in range(8)]
        rep = ua.verify(unl, ret, epsilon=1, delta=1e-3, date=DATE, formats=())
        d = self.folder("cli")
        for side, ms in (("unlearned", unl), ("retrained", ret)):
            (d / side).mkdir()
            for i, m in enumerate(ms):
                torch.save(m.state_dict(), d / side / f"model_{i:03d}.pt")
        self.assertSameReport(rep, d, ["verify", "--epsilon", "1", "--delta", "0.001",
                                       "--unlearned", "unlearned", "--retrained", "retrained"])

    def test_canaries(self):
        plan = ua.canaries(7, 64)
        d = self.folder("cli")
        cli(["canaries", "--seed", "7", "--canaries", "64", "--out", "canaries.json"], d, ok=(0,))
        self.assertEqual(plan.json, (d / "canaries.json").read_bytes())
        self.assertEqual(len(plan.included), 64)

    def test_one_run(self):
        plan = ua.canaries(11, 200)
        s = np.where(np.array(plan.included) == 1, 0.1, 1.0) + RNG.normal(0, 0.01, 200)
        rep = ua.verify(s, one_run=plan, epsilon=1, delta=1e-5, date=DATE, formats=())
        d = self.folder("cli")
        plan.save(d / "canaries.json")
        np.save(d / "unlearned.npy", s[None, :])
        self.assertSameReport(rep, d, ["verify", "--epsilon", "1", "--delta", "1e-05", "--one-run", "canaries.json",
                                       "--unlearned", "unlearned.npy"])

    def test_plan(self):
        for kwargs, args in (
            (dict(epsilon=1, delta=1e-3, trials=64), ["--epsilon", "1", "--delta", "0.001", "--trials", "64"]),
            (dict(epsilon=1, delta=1e-3, models=1, retrains=64), ["--models", "1", "--epsilon", "1", "--delta", "0.001", "--retrains", "64"]),
        ):
            p = ua.plan(**kwargs)
            _, out = cli(["plan", *args, "--json"], self.tmp, ok=(0,))
            self.assertEqual(p.json, out.encode())
            self.assertTrue(p.supports.startswith("What "))
        t = ua.plan(epsilon=1, delta=1e-3, table=[8, 16, 32])
        _, out = cli(["plan", "--epsilon", "1", "--delta", "1e-3", "--table", "8,16,32"], self.tmp, ok=(0,))
        self.assertEqual(t.text, out)


if __name__ == "__main__":
    unittest.main()
