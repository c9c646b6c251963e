"""Per-record scores from PyTorch and scikit-learn models, and U-LiRA references."""
import unittest

import numpy as np

import unlearnaudit as ua
from _helpers import skip_unless

RNG = np.random.default_rng(5)
X = RNG.normal(0, 1, (50, 4))
Y = (X[:, 0] > 0).astype(int)


@skip_unless("torch")
class Torch(unittest.TestCase):
    def setUp(self):
        import torch

        torch.manual_seed(0)
        self.torch = torch
        self.model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.5), torch.nn.Linear(8, 3))
        self.model.train()
        self.y3 = RNG.integers(0, 3, 50)

    def test_losses_are_cross_entropy_in_eval_mode(self):
        torch = self.torch
        got = ua.losses(self.model, X, self.y3, batch_size=7)
        self.assertTrue(self.model.training, "the module's training mode was not restored")
        self.model.eval()
        with torch.no_grad():
            want = torch.nn.functional.cross_entropy(self.model(torch.as_tensor(X, dtype=torch.float32)).double(),
                                                     torch.as_tensor(self.y3), reduction="none").numpy()
        self.assertEqual(got.dtype, np.float64)
        # the same float32 forward pass in batches of 7 or all at once: float32 rounding only
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_allclose(ua.losses(self.model, X, self.y3), got, rtol=1e-6)

    def test_confidences_are_the_labels_probability(self):
        c = ua.confidences(self.model, X, self.y3)
        np.testing.assert_allclose(c, np.exp(-ua.losses(self.model, X, self.y3)), rtol=1e-9)

    def test_binary_one_logit(self):
        torch = self.torch
        m = torch.nn.Linear(4, 1)
        got = ua.losses(m, X, Y)
        z = (X @ m.weight.detach().double().numpy().T)[:, 0] + m.bias.item()
        np.testing.assert_allclose(got, np.logaddexp(0, -(2 * Y - 1) * z), rtol=1e-5)

    def test_a_users_own_module(self):
        # how most PyTorch users write a model: a subclass defined in their own file or notebook
        torch = self.torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1, self.fc2 = torch.nn.Linear(4, 8), torch.nn.Linear(8, 3)

            def forward(self, x):
                return self.fc2(torch.relu(self.fc1(x)))

        nets = [Net() for _ in range(2)]
        got = ua.score_matrix(nets, X, self.y3)
        with torch.no_grad():
            want = [torch.nn.functional.cross_entropy(n(torch.as_tensor(X, dtype=torch.float32)).double(),
                                                      torch.as_tensor(self.y3), reduction="none").numpy() for n in nets]
        np.testing.assert_allclose(got, np.stack(want), rtol=1e-6)  # float32 rounding only
        np.testing.assert_allclose(ua.losses(nets[0], torch.as_tensor(X), torch.as_tensor(self.y3)), want[0], rtol=1e-6)

    def test_bad_labels_name_y(self):
        with self.assertRaisesRegex(ValueError, r"^y: labels outside \[0, 3\)"):
            ua.losses(self.model, X, self.y3 + 1)
        with self.assertRaisesRegex(ValueError, "^y: 49 labels for 50 records"):
            ua.losses(self.model, X, self.y3[:49])
        # before: truncated to 1, binary cross-entropy against 3, a torch error
        with self.assertRaisesRegex(ValueError, "^y: labels with a fraction"):
            ua.losses(self.model, X, np.full(50, 1.7))
        with self.assertRaisesRegex(ValueError, "^y: labels other than 0 and 1"):
            ua.losses(self.torch.nn.Linear(4, 1), X, np.full(50, 3))
        with self.assertRaisesRegex(ValueError, r"^y: labels of shape \(50, 3\)"):
            ua.losses(self.model, X, np.eye(3)[self.y3])
        np.testing.assert_array_equal(ua.losses(self.model, X, self.y3.astype(float)), ua.losses(self.model, X, self.y3))

    def test_errors_name_the_argument(self):
        # before: torch's own errors from inside the forward pass or the device move
        with self.assertRaisesRegex(ValueError, r"^x: Sequential refused records of shape \(3,\)"):
            ua.losses(self.model, X[:, :3], self.y3)
        with self.assertRaisesRegex(ValueError, "^device: 'nope'"):
            ua.losses(self.model, X, self.y3, device="nope")
        torch = self.torch

        class Pair(torch.nn.Module):
            def forward(self, x):
                return x, x

        with self.assertRaisesRegex(TypeError, "^model: Pair returned a tuple"):
            ua.losses(Pair(), X, self.y3)
        sd = dict(torch.nn.Linear(3, 1).state_dict(), step=3)
        with self.assertRaisesRegex(TypeError, "^unlearned\\[0\\]: state dict entry 'step' is a int"):
            ua.verify([sd] * 8, [sd] * 8, epsilon=1, delta=1e-3)


@skip_unless("sklearn")
class Sklearn(unittest.TestCase):
    def test_log_loss_per_record(self):
        from sklearn.linear_model import LogisticRegression
        from sklearn.metrics import log_loss

        m = LogisticRegression().fit(X, Y)
        got = ua.losses(m, X, Y, batch_size=9)
        for i in (0, 17, 49):
            self.assertAlmostEqual(got[i], log_loss([Y[i]], m.predict_proba(X[i:i + 1]), labels=[0, 1]), places=12)
        np.testing.assert_allclose(ua.score_matrix([m, m], X, Y), np.stack([got, got]))
        np.testing.assert_allclose(ua.score_matrix((k for k in [m, m]), X, Y), np.stack([got, got]))  # a generator

    def test_errors_name_the_argument(self):
        # before: AttributeError 'classes_', "want … a fitted scikit-learn classifier", rows of different lengths
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.svm import SVC

        with self.assertRaisesRegex(ValueError, "^model: LogisticRegression is not fitted"):
            ua.losses(LogisticRegression(), X, Y)
        with self.assertRaisesRegex(TypeError, "^model: SVC has no predict_proba"):
            ua.losses(SVC().fit(X, Y), X, Y)
        with self.assertRaisesRegex(ValueError, r"^y: labels of shape \(50, 2\)"):
            ua.losses(LogisticRegression().fit(X, Y), X, np.eye(2)[Y])
        rf = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, Y)
        for models in ([rf] * 8, [LogisticRegression()] * 8):
            with self.assertRaisesRegex(TypeError, r"^unlearned\[0\]: \w+ has no fitted coef_ .*score_matrix"):
                ua.verify(models, models, epsilon=1, delta=1e-3)


class References(unittest.TestCase):
    def test_the_audited_deletion(self):
        calls = []
        deleted = [3, 7, 11]

        def train(idx):
            calls.append(("train", tuple(idx)))
            return {"trained_on": set(idx.tolist())}

        def unlearn(model, d):
            calls.append(("unlearn", tuple(d)))
            return {"trained_on": model["trained_on"] - set(d.tolist()), "unlearned": True}

        def score(model):
            return [0.0 if "unlearned" in model else 1.0] * 3

        refs = ua.references(train, unlearn, score, records=20, deleted=deleted, count=4)
        np.testing.assert_array_equal(refs.mask, [[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]])
        np.testing.assert_array_equal(refs.scores[:, 0], [0, 1, 0, 1])
        everything, kept = tuple(range(20)), tuple(i for i in range(20) if i not in deleted)
        self.assertEqual(calls, [("train", everything), ("unlearn", (3, 7, 11)), ("train", kept),
                                 ("train", everything), ("unlearn", (3, 7, 11)), ("train", kept)])

    def test_errors_name_the_argument(self):
        f = lambda *a: None  # noqa: E731
        for kwargs, msg in ((dict(count=3), "^count: "), (dict(deleted=[20]), "^deleted: "),
                            (dict(records=0), "^records: ")):
            args = dict(records=20, deleted=[1], count=2)
            args.update(kwargs)
            with self.assertRaisesRegex(ValueError, msg):
                ua.references(f, f, f, **args)
        with self.assertRaisesRegex(ValueError, "^score: 2 scores for 1 deleted"):
            ua.references(lambda i: 0, lambda m, d: 0, lambda m: [1, 2], records=5, deleted=[1], count=2)


if __name__ == "__main__":
    unittest.main()
