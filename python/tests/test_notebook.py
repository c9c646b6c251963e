"""The tutorial notebook (examples/python/unlearn_digits.ipynb) runs headless, start to
end, with nbclient: its last cell asserts the verdicts it explains (fine-tuning FAILed,
exact retraining not), so a notebook that no longer shows what it says fails here."""
import os
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
        start = time.monotonic()
        # the kernel is this interpreter (ipykernel's native kernel), so it imports the
        # package this test imports; it runs in a scratch folder
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(self.tmp)}}).execute()
        print(f"\n{NOTEBOOK.name}: ran in {time.monotonic() - start:.0f} s", flush=True)
        text = "".join(o.get("text", "") for c in code for o in c.outputs if o.get("output_type") == "stream")
        self.assertIn("FAIL — ε lower bound", text)
        self.assertIn("INCONCLUSIVE — ε lower bound", text)
        html = [o for c in code for o in c.outputs if "text/html" in o.get("data", {})]
        self.assertEqual(len(html), 1, "the fine-tuning report did not render as HTML")
        self.assertIn("<iframe", html[0]["data"]["text/html"])
        self.assertEqual(os.listdir(self.tmp), [], "the notebook wrote files")


if __name__ == "__main__":
    unittest.main()
