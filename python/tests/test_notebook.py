"""The tutorial notebook (examples/python/unlearn_digits.ipynb) runs headless, start to
end, with nbclient: its last cell asserts the verdicts it explains (fine-tuning FAILed,
exact retraining not), so a notebook that no longer shows what it says fails here."""
import json
import os
import sys
import time
import unittest
from pathlib import Path

from _helpers import Scratch, skip_unless

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "python" / "unlearn_digits.ipynb"


@skip_unless("nbclient")
@skip_unless("torch")
@skip_unless("sklearn")
class Notebook(Scratch):
    def test_runs_and_shows_what_it_says(self):
        import nbformat
        from nbclient import NotebookClient

        nb = nbformat.read(NOTEBOOK, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        self.assertGreater(len(code), 5)
        self.assertFalse([c for c in code if c.get("outputs") or c.get("execution_count")],
                         "the notebook is committed with outputs: clear them (the run here makes them)")
        # the kernel is this interpreter, so it imports the package this test imports (the
        # system's "python3" kernelspec would name /usr/bin/python3, outside the venv)
        spec = self.tmp / "jupyter" / "kernels" / "unlearnaudit-test"
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python (unlearnaudit's tests)", "language": "python"}))
        run = self.folder("run")  # the notebook's working folder
        old = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = str(self.tmp / "jupyter")
        try:
            start = time.monotonic()
            NotebookClient(nb, timeout=600, kernel_name="unlearnaudit-test",
                           resources={"metadata": {"path": str(run)}}).execute()
        finally:
            if old is None:
                del os.environ["JUPYTER_PATH"]
            else:
                os.environ["JUPYTER_PATH"] = old
        print(f"\n{NOTEBOOK.name}: ran in {time.monotonic() - start:.0f} s", flush=True)
        text = "".join(o.get("text", "") for c in code for o in c.outputs if o.get("output_type") == "stream")
        self.assertIn("FAIL — ε lower bound", text)
        self.assertIn("INCONCLUSIVE — ε lower bound", text)
        html = [o for c in code for o in c.outputs if "text/html" in o.get("data", {})]
        self.assertEqual(len(html), 1, "the fine-tuning report did not render as HTML")
        self.assertIn("<iframe", html[0]["data"]["text/html"])
        self.assertEqual(os.listdir(run), [], "the notebook wrote files")


if __name__ == "__main__":
    unittest.main()
