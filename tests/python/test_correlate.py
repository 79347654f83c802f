#!/usr/bin/env python3
"""`simtlab correlate` (python/simtlab/correlate.py): the statistics on hand-checked values, every
metric against a direct `simtlab run` of the same command, fitted rows left out of the headline,
and the rows file's errors naming file, line and column.

Environment: SIMTLAB (build/bin/simtlab), SIMTLAB_BUILD (the build tree: microbench/ub_mem and
examples/vector_add). Runs on fermi-gtx480 (a few seconds).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from simtlab import correlate  # noqa: E402

SIMTLAB = os.environ.get("SIMTLAB", "")
BUILD = os.environ.get("SIMTLAB_BUILD", "")
GPU = "fermi-gtx480"


def direct(*argv, stats=None):
    """stdout of `simtlab run --gpu GPU [--stats FILE] -- argv` (timing mode)."""
    cmd = [SIMTLAB, "run", "-q", "--mode", "timing", "--gpu", GPU]
    if stats:
        cmd += ["--stats", stats]
    p = subprocess.run(cmd + ["--", *argv], capture_output=True, text=True, check=True)
    return p.stdout


class Statistics(unittest.TestCase):
    def test_pearson_hand_checked(self):
        # x = 1,2,3; y = 2,4,7: sxy = 5, sxx = 2, syy = 114/9, r = 5 / sqrt(228/9) = 0.993399
        self.assertAlmostEqual(correlate.pearson([1, 2, 3], [2, 4, 7]), 0.9933992677987828, 12)
        self.assertAlmostEqual(correlate.pearson([1, 2, 3], [3, 2, 1]), -1.0, 12)
        self.assertIsNone(correlate.pearson([1], [1]))
        self.assertIsNone(correlate.pearson([1, 1], [2, 3]))  # no spread

    def test_mape_and_errors(self):
        self.assertEqual(correlate.pct_error(150, 100), 50.0)
        self.assertEqual(correlate.pct_error(50, 100), -50.0)
        self.assertIsNone(correlate.pct_error(5, 0))
        self.assertEqual(correlate.mape([(150, 100), (50, 100), (100, 100)]), 100.0 / 3)
        self.assertIsNone(correlate.mape([]))

    def test_summary_leaves_fitted_rows_out(self):
        rows = [{"simulated": 110.0, "measured_cycles": 100.0, "fitted": False},
                {"simulated": 80.0, "measured_cycles": 100.0, "fitted": False},
                {"simulated": 300.0, "measured_cycles": 100.0, "fitted": True},
                {"simulated": None, "measured_cycles": 100.0, "fitted": False}]
        s = correlate.summary(rows)
        self.assertEqual((s["rows"], s["compared"], s["fitted_left_out"], s["failed"]), (4, 2, 1, 1))
        self.assertAlmostEqual(s["mape_pct"], 15.0, 12)
        self.assertEqual((s["within_10pct"], s["within_25pct"]), (1, 2))
        s = correlate.summary(rows, include_fitted=True)
        self.assertEqual(s["compared"], 3)
        self.assertAlmostEqual(s["mape_pct"], (10 + 20 + 200) / 3, 12)


@unittest.skipUnless(SIMTLAB and BUILD, "needs SIMTLAB and SIMTLAB_BUILD")
class EndToEnd(unittest.TestCase):
    def test_every_metric_against_a_direct_run(self):
        ub = os.path.join(BUILD, "microbench", "ub_mem")
        va = os.path.join(BUILD, "examples", "vector_add")
        out = direct(ub, "l1")
        l1 = next(float(ln.split()[2]) for ln in out.splitlines()
                  if ln.startswith("ubench pchase.l1 "))
        with tempfile.TemporaryDirectory() as tmp:
            stats = os.path.join(tmp, "va.json")
            direct(va, stats=stats)
            with open(stats) as f:
                k = json.load(f)["kernels"]
            cycles = sum(x["cycles"] for x in k)
            winsts = sum(x["stats"]["gpu"]["sm_total"]["warp_insts"]["value"] for x in k)
            rows = os.path.join(tmp, "rows.csv")
            with open(rows, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["name", "command", "args", "preset", "metric", "kernel", "measured",
                            "unit", "clock_mhz", "fitted", "source"])
                # exact: 0%; half: +100%; fitted (left out): -50%
                w.writerow(["exact", "{build}/microbench/ub_mem", "l1", GPU, "ubench:pchase.l1",
                            "", l1, "cycles", "", "no", "t"])
                w.writerow(["half", "{build}/microbench/ub_mem", "l1", GPU, "ubench:pchase.l1",
                            "", l1 / 2, "cycles", "", "no", "t"])
                w.writerow(["fit", "{build}/microbench/ub_mem", "l1", GPU, "ubench:pchase.l1",
                            "", l1 * 2, "cycles", "", "yes", "t"])
                w.writerow(["rx", "{build}/microbench/ub_mem", "l1", GPU,
                            r"stdout:ubench pchase\.l1 ([0-9.]+)", "", l1, "", "", "", ""])
                # cycles given as a time at 1000 MHz: cycles / 1000 us
                w.writerow(["va.cycles", "{build}/examples/vector_add", "", GPU, "cycles",
                            "VecAdd|vectorAdd|add", cycles / 1000.0, "us", "1000", "", ""])
                w.writerow(["va.winsts", "{build}/examples/vector_add", "", GPU,
                            "stat:sm_total.warp_insts", "", winsts * 4, "", "", "", ""])
            odir = os.path.join(tmp, "out")
            p = subprocess.run([SIMTLAB, "correlate", rows, "--out", odir, "--build-dir", BUILD,
                                "-j", "2"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(os.path.join(odir, "correlation.json")) as f:
                res = json.load(f)
            by = {r["name"]: r for r in res["rows"]}
            self.assertEqual(by["exact"]["simulated"], l1)
            self.assertEqual(by["exact"]["error_pct"], 0.0)
            self.assertEqual(by["half"]["error_pct"], 100.0)
            self.assertEqual(by["fit"]["error_pct"], -50.0)
            self.assertEqual(by["rx"]["simulated"], l1)
            self.assertEqual(by["va.cycles"]["simulated"], cycles)
            self.assertAlmostEqual(by["va.cycles"]["error_pct"], 0.0, 9)
            self.assertEqual(by["va.winsts"]["simulated"], winsts)
            self.assertEqual(by["va.winsts"]["error_pct"], -75.0)
            s = res["summary"]
            self.assertEqual((s["rows"], s["compared"], s["fitted_left_out"]), (6, 5, 1))
            self.assertAlmostEqual(s["mape_pct"], (0 + 100 + 0 + 0 + 75) / 5, 9)
            self.assertIn("MAPE 35.0%", p.stdout)
            for f in ("correlation.csv", "report.html"):
                self.assertTrue(os.path.getsize(os.path.join(odir, f)) > 0)
            with open(os.path.join(odir, "report.html")) as f:
                self.assertIn("<svg", f.read())
            # --no-run recomputes from what the runs left, without running anything
            p = subprocess.run([SIMTLAB, "correlate", rows, "--out", odir, "--build-dir", BUILD,
                                "--no-run"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("MAPE 35.0%", p.stdout)


@unittest.skipUnless(SIMTLAB and BUILD, "needs SIMTLAB and SIMTLAB_BUILD")
class BadRows(unittest.TestCase):
    def check(self, text, want):
        with tempfile.TemporaryDirectory() as tmp:
            rows = os.path.join(tmp, "rows.csv")
            with open(rows, "w") as f:
                f.write(text)
            p = subprocess.run([SIMTLAB, "correlate", rows, "--out", os.path.join(tmp, "o"),
                                "--build-dir", BUILD], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertEqual(p.stderr.strip(), "simtlab correlate: error: " + want.format(rows=rows))
            self.assertFalse(os.path.exists(os.path.join(tmp, "o")))  # nothing ran

    def test_errors(self):
        h = "name,command,args,preset,metric,measured,unit,clock_mhz\n"
        ok = "{build}/microbench/ub_mem"
        self.check("# only a comment\n", "{rows}: empty (a header line and at least one row expected)")
        self.check("name,command,preset,measured,colour\n",
                   "{rows}:1: unknown column 'colour' (known: name, command, args, preset, set, "
                   "metric, kernel, measured, unit, clock_mhz, fitted, source)")
        self.check("name,command,preset\n", "{rows}:1: missing column 'measured'")
        self.check(h + f"a,{ok},l1,{GPU},cycles,1,,\n# c\na,{ok},l1,{GPU},cycles,2,,\n",
                   "{rows}:4: column name: 'a' also names the row at line 2")
        self.check(h + f"../x,{ok},l1,{GPU},cycles,1,,\n",
                   "{rows}:2: column name: '../x' is not a valid row name (letters, digits and "
                   "_ . + = @ % , -; not starting with . or -)")
        self.check(h + f"a,{ok},l1,{GPU},latency,1,,\n",
                   "{rows}:2: column metric: 'latency' is not cycles, stat:PATH, ubench:NAME or "
                   "stdout:REGEX")
        self.check(h + f"a,{ok},l1,{GPU},cycles,12x,,\n",
                   "{rows}:2: column measured: expected a number, got '12x'")
        self.check(h + f"a,{ok},l1,{GPU},cycles,1,us,\n",
                   "{rows}:2: column clock_mhz: needed to convert us to cycles")
        self.check(h + f"a,{ok},\"l1 'x\",{GPU},cycles,1,,\n",
                   "{rows}:2: column args: No closing quotation")
        self.check(h + f"a,{{build}}/no/such,,{GPU},cycles,1,,\n",
                   f"{{rows}}:2: column command: {BUILD}/no/such is not an executable file")
        self.check(h + f"a,{ok},l1,{GPU},stdout:x+,1,,\n",
                   "{rows}:2: column metric: the regular expression needs a group")
        self.check(h + f"a,{ok},l1,{GPU},cycles,1,,\nb,{ok}\n",
                   "{rows}:3: 2 fields, the header has 8")


if __name__ == "__main__":
    unittest.main(verbosity=2)
