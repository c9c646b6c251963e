"""The Python in the README and docs/python.md names only what the package has: every
``ua.NAME`` is exported, and every ``report.NAME`` (``report.power.NAME``,
``report.deciding.NAME``) is an attribute of Report (of Power, of Finding)."""
import dataclasses
import re
import unittest
from pathlib import Path

import unlearnaudit as ua

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "python.md"]


def attributes(cls):
    return {f.name for f in dataclasses.fields(cls)} | {n for n in dir(cls) if not n.startswith("__")}


def python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, re.S)


class DocSnippets(unittest.TestCase):
    def test_names_exist(self):
        checked = 0
        for page in PAGES:
            blocks = python_blocks(page.read_text(encoding="utf-8"))
            self.assertTrue(blocks, f"{page.name}: no ```python block")
            code = "\n".join(blocks)
            for name in re.findall(r"\bua\.(\w+)", code):
                checked += 1
                self.assertIn(name, ua.__all__, f"{page.name}: ua.{name} is not exported")
            for chain in re.findall(r"\breport((?:\.\w+)+)", code):
                names = chain.strip(".").split(".")
                cls = ua.Report
                for n in names:
                    checked += 1
                    self.assertIn(n, attributes(cls), f"{page.name}: report{chain}: {cls.__name__} has no {n}")
                    cls = {"power": ua.Power, "deciding": ua.Finding}.get(n)
                    if cls is None:
                        break
        self.assertGreater(checked, 8, "the snippets were not read")


if __name__ == "__main__":
    unittest.main()
