"""The report.json contract: report_fields.txt (the Go type's field paths, kept equal to
reports.Report by go test ./python) against the package's typed classes."""
import json
import math
import unittest
from pathlib import Path

import unlearnaudit as ua
from unlearnaudit import report

FIELDS = Path(report.__file__).with_name("report_fields.txt")


def fields():
    schema, paths = None, set()
    for line in FIELDS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line:
            continue
        if line.startswith("schema "):
            schema = line.split(" ", 1)[1]
        else:
            paths.add(line)
    return schema, paths


class Contract(unittest.TestCase):
    def test_schema_is_the_binarys(self):
        schema, _ = fields()
        self.assertEqual(ua.REPORT_SCHEMA, schema, "the package parses another schema than report_fields.txt names")

    def test_every_field_is_typed_or_kept_raw(self):
        _, paths = fields()
        self.assertGreater(len(paths), 50)

        def covered(p):
            if p in report.TYPED:
                return True
            parts = p.split(".")
            prefixes = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
            return any(q in report.RAW or q.removesuffix("[]") in report.RAW for q in prefixes)

        missing = sorted(p for p in paths if not covered(p))
        self.assertEqual(missing, [], "report.json fields the package neither types nor keeps raw: update report.py")

    def test_every_typed_field_exists(self):
        _, paths = fields()
        self.assertEqual(sorted((report.TYPED | report.RAW) - paths), [],
                         "the package types fields report.json does not have")


def minimal(**over):
    d = {"schema": ua.REPORT_SCHEMA, "tool": {"name": "unlearnaudit", "version": "0.1.0"}, "command": "verify",
         "seed": 1, "trials": 8, "confidence": 0.95, "inputs": [], "data": {}, "subjects": [
             {"name": "verify/x", "verdict": "FAIL", "claim": {"method": "x", "epsilon": 1, "delta": 0.001},
              "findings": [{"check": "c", "kind": "empirical", "verdict": "FAIL", "measured": 2.5,
                            "interval": {"lower": 2.5, "upper": "+Inf"}, "bound": 1, "required": True,
                            "power": {"power": 0.1, "smallest_detectable_epsilon": "NaN"},
                            "estimates": [{"name": "Gaussian-DP μ lower bound", "value": 0.4}]}]}],
         "summary": {"verdict": "FAIL", "pass": 0, "fail": 1, "inconclusive": 0}}
    d.update(over)
    return json.dumps(d).encode()


class Parse(unittest.TestCase):
    def test_numbers_and_figures(self):
        r = ua.Report.from_json(minimal(), exit_code=1)
        self.assertEqual(r.verdict, "FAIL")
        f = r.deciding
        self.assertEqual(f.interval.upper, math.inf)
        self.assertTrue(math.isnan(r.power.smallest_detectable_epsilon))
        self.assertEqual(r.figures, {"epsilon_lower_bound": 2.5, "Gaussian-DP μ lower bound": 0.4})
        self.assertEqual(r.json, minimal())

    def test_noise_stream(self):
        self.assertEqual(ua.Report.from_json(minimal(), exit_code=1).subjects[0].noise, "", "a subject naming no stream")
        d = json.loads(minimal())
        d["subjects"][0]["noise"] = "ars4x32-7/box-muller-f32/v3"
        self.assertEqual(ua.Report.from_json(json.dumps(d).encode(), exit_code=1).subjects[0].noise, "ars4x32-7/box-muller-f32/v3")

    def test_a_measurement_decides_nothing(self):
        m = json.loads(minimal())
        f = m["subjects"][0]["findings"][0]
        f.update(kind="measurement", verdict="INCONCLUSIVE", detail="ε lower bound at δ; no claim")
        del f["power"]
        f["estimates"][0]["note"] = "direction nominal: the unlearned models' scores above the retrained ones'"
        m["summary"]["verdict"] = "MEASUREMENT"
        r = ua.Report.from_json(json.dumps(m).encode())
        # before: deciding was the measurement, whose verdict field reads INCONCLUSIVE
        self.assertIsNone(r.deciding)
        self.assertIsNone(r.power)
        self.assertEqual(r.measurement.kind, "measurement")
        self.assertEqual(r.figures, {"epsilon_lower_bound": 2.5, "Gaussian-DP μ lower bound": 0.4})
        self.assertEqual(r.notes, {"epsilon_lower_bound": "ε lower bound at δ; no claim",
                                   "Gaussian-DP μ lower bound": f["estimates"][0]["note"]})
        full = ua.Report.from_json(minimal())
        self.assertEqual((full.deciding.check, full.measurement), ("c", None))
        self.assertEqual(set(full.notes), set(full.figures))

    def test_other_schema_refused(self):
        with self.assertRaisesRegex(ValueError, r"^data: .*unlearnaudit/report/v2"):
            ua.Report.from_json(minimal(schema="unlearnaudit/report/v2"))
        with self.assertRaisesRegex(ValueError, r"^data: not JSON"):
            ua.Report.from_json(b"{")
        # the schema right, a field missing or of the wrong type: before, a KeyError or TypeError
        with self.assertRaisesRegex(ValueError, r"^data: a unlearnaudit/report/v3 report without the field 'summary'"):
            ua.Report.from_json(json.dumps({"schema": ua.REPORT_SCHEMA}).encode())
        with self.assertRaisesRegex(ValueError, r"^data: .* without a field of the wrong type"):
            ua.Report.from_json(minimal(subjects=[5]))

    def test_html_in_an_iframe(self):
        r = ua.Report.from_json(minimal(), html='<html><body><p class="x">verdict "FAIL"</p></body></html>')
        h = r._repr_html_()
        self.assertTrue(h.startswith("<iframe"))
        self.assertIn("srcdoc=\"&lt;html&gt;", h)
        self.assertNotIn('"FAIL"', h)  # quotes escaped, so the attribute is not cut short


if __name__ == "__main__":
    unittest.main()
