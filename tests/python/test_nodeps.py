"""The simtlab package in a Python without pandas and matplotlib (a venv, conda or pyenv
interpreter): run with `/usr/bin/python3 -S` (no site-packages, so Debian's python3-pandas is not
visible) and SIMTLAB=build/bin/simtlab:

    SIMTLAB=build/bin/simtlab /usr/bin/python3 -S tests/python/test_nodeps.py

`import simtlab` imports neither; the standard-library functions work (kernel_rows, hot_lines,
iter_kernels, annotate, ...); the DataFrame and plotting functions raise MissingDependency
naming the package and how to install it; missing, damaged or incomplete files raise
SimtlabDataError naming the file and the field; `simtlab annotate` works and `simtlab report`
explains what is missing, without a traceback."""
import array
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.join(HERE, "..", "..", "python")
sys.path.insert(0, PYDIR)
sys.path.insert(0, HERE)
import simtlab  # noqa: E402
import synth  # noqa: E402
from simtlab import annotate  # noqa: E402

SIM = os.environ.get("SIMTLAB")


def plain(x):
    """array('q') -> list, recursively (to compare with json.load)."""
    if isinstance(x, array.array):
        return list(x)
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [plain(v) for v in x]
    return x


class NoPandas(unittest.TestCase):
    def test_this_interpreter_has_neither(self):
        # Otherwise this test would prove nothing: run it with python3 -S.
        for m in ("pandas", "matplotlib"):
            with self.assertRaises(ImportError, msg=f"{m} is importable here; run with -S"):
                __import__(m)
        self.assertNotIn("pandas", sys.modules)
        self.assertNotIn("matplotlib", sys.modules)

    def test_standard_library_functions(self):
        self.assertEqual(simtlab.kernel_base_name("_Z14calculate_tempiPf"), "calculate_temp")
        self.assertAlmostEqual(simtlab.geomean([2, 8]), 4.0)
        self.assertEqual(simtlab.flatten_stats({"a": {"value": 3, "desc": "x"}, "sm[0]": {"b": 1},
                                                "c": {"total": 5, "values": {"x": 2}}}),
                         {"a": 3.0, "c": 5.0, "c.x": 2.0})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            k = synth.kernel(0, 12, lineinfo=False)
            synth.write_stats(path, [k])
            rows = simtlab.kernel_rows(path)
            self.assertEqual(len(rows), 1)
            self.assertEqual(rows[0]["kernel_base"], "kernel0")
            self.assertEqual(rows[0]["grid"], "64x1x1")
            self.assertEqual(rows[0]["stat:sm_total.stat_3"], 3.0)
            hot = simtlab.hot_lines(path, top=2)
            want = sorted(k["attribution"]["instructions"]["stall_total"], reverse=True)[:2]
            self.assertEqual([h["stall_total"] for h in hot], want)
            self.assertEqual(simtlab.interval_rows(path), [])

    def test_dataframe_and_plot_functions_say_what_is_missing(self):
        calls = [("load_run", lambda: simtlab.load_run("x.json")),
                 ("load_sweep", lambda: simtlab.load_sweep("x")),
                 ("load_intervals", lambda: simtlab.load_intervals("x.json")),
                 ("load_hot_lines", lambda: simtlab.load_hot_lines("x.json")),
                 ("load_sweep_intervals", lambda: simtlab.load_sweep_intervals("x")),
                 ("load_sweep_hot_lines", lambda: simtlab.load_sweep_hot_lines("x")),
                 ("run", lambda: simtlab.run("/bin/true", simtlab="/bin/true")),
                 ("sweep", lambda: simtlab.sweep("x.yaml"))]
        for name, call in calls:
            with self.assertRaises(simtlab.MissingDependency, msg=name) as cm:
                call()
            self.assertIsInstance(cm.exception, ImportError)
            self.assertEqual(cm.exception.package, "pandas")
            msg = str(cm.exception)
            self.assertIn(f"simtlab.{name} needs the Python package 'pandas'", msg)
            self.assertIn("`pip install pandas`", msg)
            self.assertIn("`apt install python3-pandas`", msg)
        with self.assertRaises(simtlab.MissingDependency) as cm:
            simtlab.plots.speedup(None)
        self.assertEqual(cm.exception.package, "matplotlib")
        self.assertIn("`pip install matplotlib`", str(cm.exception))
        self.assertIn("`apt install python3-matplotlib`", str(cm.exception))

    def test_simtlab_annotate_and_report_commands(self):
        self.assertTrue(SIM, "set SIMTLAB=path/to/simtlab")
        with tempfile.TemporaryDirectory() as d:
            py = os.path.join(d, "python-without-pandas")
            with open(py, "w") as f:
                f.write(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n")
            os.chmod(py, stat.S_IRWXU)
            env = dict(os.environ, SIMTLAB_PYTHON=py)
            path = os.path.join(d, "s.json")
            synth.write_stats(path, [synth.kernel(0, 40, lineinfo=False)])
            p = subprocess.run([SIM, "annotate", path, "--top", "2"], capture_output=True,
                               text=True, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("== kernel 0: _Z7kernel0Pfi", p.stdout)
            self.assertIn("top 2 lines by stall slots", p.stdout)
            self.assertEqual(p.stdout.count("\n>> "), 1)
            os.makedirs(os.path.join(d, "sweep"))
            with open(os.path.join(d, "sweep", "plan.json"), "w") as f:
                json.dump({"runs": []}, f)
            p = subprocess.run([SIM, "report", os.path.join(d, "sweep")], capture_output=True,
                               text=True, env=env)
            self.assertEqual(p.returncode, 1)
            self.assertNotIn("Traceback", p.stderr)
            self.assertIn("simtlab report: simtlab report needs the Python package 'pandas'",
                          p.stderr)


class Streaming(unittest.TestCase):
    def test_iter_kernels_equals_json_load(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            ks = [synth.kernel(i, 30 + 7 * i, lineinfo=i % 2 == 0, sms=2) for i in range(4)]
            synth.write_stats(path, ks)
            with open(path) as f:
                full = json.load(f)["kernels"]
            self.assertEqual([plain(k) for k in simtlab.iter_kernels(path)], full)
            got = list(simtlab.iter_kernels(path, ("name", "attribution")))
            self.assertEqual([plain(k) for k in got],
                             [{"name": k["name"], "attribution": k["attribution"]} for k in full])
            # Integer columns are compact arrays.
            self.assertIsInstance(got[0]["attribution"]["lines"]["execs"], array.array)

    def test_iter_kernels_on_any_valid_layout(self):
        # One line, escapes, floats and big integers in arrays, nested and empty containers,
        # values that straddle the parser's 1 MiB pieces.
        long_ints = list(range(-5, 300000))
        doc = {"config": {"x": [1, [2, 3], {"y": "]}"}]}, "kernels": [
            {"name": "a\"b\\c\u00e9\n", "v": [1, 2.5, -3e2, 18446744073709551615, 7],
             "e": [], "o": {}, "t": [True, False, None], "n": -0.5, "big": long_ints,
             "s": ["x" * 2000000, "y"]},
            {"name": "k2", "mixed": [1, "two", [3]], "ints": [1, 2, 3]}],
            "totals": {"launches": 2}}
        with tempfile.TemporaryDirectory() as d:
            for indent in (None, 2):
                path = os.path.join(d, f"s{indent}.json")
                with open(path, "w") as f:
                    json.dump(doc, f, indent=indent)
                self.assertEqual([plain(k) for k in simtlab.iter_kernels(path)], doc["kernels"])

    def test_damaged_stats_files_name_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            synth.write_stats(path, [synth.kernel(0, 20, sms=1), synth.kernel(1, 20, sms=1)])
            with open(path) as f:
                text = f.read()
            cases = {
                "truncated": (text[:len(text) // 2],
                              f"{path}: not valid JSON: it ends (at character "),
                "empty": ("", f"{path}: empty file"),
                "not json": ("hello", f"{path}: not valid JSON at character 0"),
                "no kernels": ('{"totals": {}}', f'{path}: no "kernels" list'),
                "fewer kernels": (text.replace('"launches": 2', '"launches": 3'),
                                  f"{path}: 2 kernel entries but totals.launches says 3"),
            }
            for name, (content, msg) in cases.items():
                with open(path, "w") as f:
                    f.write(content)
                with self.assertRaises(simtlab.SimtlabDataError, msg=name) as cm:
                    list(simtlab.iter_kernels(path))
                self.assertIn(msg, str(cm.exception), name)
                with self.assertRaises(simtlab.SimtlabDataError, msg=name):
                    simtlab.hot_lines(path)
            with self.assertRaises(simtlab.MissingFile) as cm:
                list(simtlab.iter_kernels(os.path.join(d, "none.json")))
            self.assertIsInstance(cm.exception, FileNotFoundError)
            self.assertIn("none.json: missing", str(cm.exception))
            with open(path, "w") as f:
                f.write(text[:len(text) // 2])
            with self.assertRaises(simtlab.SimtlabDataError) as cm:
                simtlab.kernel_rows(path)
            self.assertIn(f"{path}: not valid JSON (it ends in the middle of a value; "
                          "truncated?)", str(cm.exception))

    def test_fields_of_the_wrong_kind_are_named(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            k = synth.kernel(0, 20, sms=1)
            del k["attribution"]["lines"]["stall_total"]
            synth.write_stats(path, [k])
            with self.assertRaises(simtlab.SimtlabDataError) as cm:
                simtlab.hot_lines(path)
            self.assertEqual(str(cm.exception), f"{path}: kernels[0].attribution.lines: missing "
                             "field 'stall_total' (a list)")
            k = synth.kernel(0, 20, sms=1)
            k["attribution"]["instructions"]["execs"] = k["attribution"]["instructions"]["execs"][1:]
            k["cycles"] = "many"
            synth.write_stats(path, [k])
            with self.assertRaises(simtlab.SimtlabDataError) as cm:
                simtlab.hot_lines(path)
            self.assertEqual(str(cm.exception), f"{path}: kernels[0].attribution.instructions."
                             "execs: 19 entries, pc has 20")
            with self.assertRaises(simtlab.SimtlabDataError) as cm:
                simtlab.kernel_rows(path)
            self.assertEqual(str(cm.exception), f"{path}: kernels[0].cycles: 'many' is not int")

    def test_annotate_reports_damaged_files(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            k = synth.kernel(0, 20, sms=1)
            del k["attribution"]["lines"]["execs"]
            synth.write_stats(path, [k])
            with self.assertRaises(SystemExit) as cm:
                annotate.main([path])
            self.assertEqual(str(cm.exception), f"simtlab annotate: {path}: kernels[0]."
                             "attribution.lines: missing field 'execs' (a list)")
            synth.write_stats(path, [synth.kernel(0, 20, sms=1)])
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text[:-300])
            with self.assertRaises(SystemExit) as cm:
                annotate.main([path])
            self.assertRegex(str(cm.exception), r"^simtlab annotate: .*s\.json: not valid JSON: "
                             r"it ends \(at character \d+\) in the middle of a value; truncated\?$")
            with self.assertRaises(SystemExit) as cm:
                annotate.main([os.path.join(d, "none.json")])
            self.assertIn("none.json: missing (stats file)", str(cm.exception))


class SweepFiles(unittest.TestCase):
    def test_plan_status_and_results_problems_are_named(self):
        with tempfile.TemporaryDirectory() as d:
            plan = os.path.join(d, "plan.json")
            with self.assertRaises(simtlab.MissingFile) as cm:
                simtlab.read_plan(d)
            self.assertIn(f"{plan}: missing ({d} holds no sweep", str(cm.exception))
            for content, msg in (('{"runs": [', "not valid JSON (it ends in the middle"),
                                 ('{"run": []}', "runs: missing or not a list"),
                                 ('{"runs": [{"id": "w/v", "workload": "w"}]}',
                                  "runs[0].variant: missing or not a string"),
                                 ('{"runs": [], "variants": [{"name": "a"}]}',
                                  "variants[0].gpu: missing or not a string")):
                with open(plan, "w") as f:
                    f.write(content)
                with self.assertRaises(simtlab.SimtlabDataError) as cm:
                    simtlab.read_plan(d)
                self.assertIn(f"{plan}: {msg}", str(cm.exception))
            os.makedirs(os.path.join(d, "runs", "w", "v"))
            self.assertIsNone(simtlab.read_status(d, "w/v"))
            st = os.path.join(d, "runs", "w", "v", "status.json")
            with open(st, "w") as f:
                f.write('{"status": 3}')
            with self.assertRaises(simtlab.SimtlabDataError) as cm:
                simtlab.read_status(d, "w/v")
            self.assertEqual(str(cm.exception), f"{st}: status: missing or not a string")
            csv_path = os.path.join(d, "results.csv")
            with self.assertRaises(simtlab.MissingFile):
                simtlab.sweep_rows(d)
            header = ",".join(simtlab.data.SWEEP_COLUMNS)
            with open(csv_path, "w") as f:
                f.write(header.replace("run_status,", "") + "\n")
            with self.assertRaises(simtlab.SimtlabDataError) as cm:
                simtlab.sweep_rows(d)
            self.assertEqual(str(cm.exception), f"{csv_path}: no column 'run_status' (not "
                             "written by simtlab sweep collect?)")
            with open(csv_path, "w") as f:
                f.write(header + "\n" + ",".join(["x"] * len(simtlab.data.SWEEP_COLUMNS)) + "\n"
                        + "e,w,v\n")
            with self.assertRaises(simtlab.SimtlabDataError) as cm:
                simtlab.sweep_rows(d)
            self.assertEqual(str(cm.exception), f"{csv_path}: row 3 has 3 fields, the header 22; "
                             "the file is damaged or cut short")


if __name__ == "__main__":
    unittest.main(verbosity=2)
