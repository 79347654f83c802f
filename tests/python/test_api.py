"""The simtlab Python package (python/simtlab): loading runs and sweeps, running from code,
speedups and geomean, plots. Run with Debian's python3: SIMTLAB=build/bin/simtlab
SIMTLAB_WORKLOADS_BIN=build/workloads python3 tests/python/test_api.py"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

PYDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
sys.path.insert(0, PYDIR)
import pandas as pd  # noqa: E402

import simtlab  # noqa: E402

SIM = os.environ["SIMTLAB"]
BIN = os.environ["SIMTLAB_WORKLOADS_BIN"]


class Api(unittest.TestCase):
    def test_hot_lines_are_the_kernels_top_stall_lines(self):
        with tempfile.TemporaryDirectory() as d:
            stats = os.path.join(d, "s.json")
            simtlab.run(os.path.join(BIN, "vectoradd"), 5000, sets=["sim.per_pc_stats=true"],
                        stats=stats)
            hot = simtlab.load_hot_lines(stats, top=3)
            with open(stats) as f:
                a = json.load(f)["kernels"][0]["attribution"]
        # vectoradd is built without -lineinfo: rows are PTX instructions.
        ins = a["instructions"]
        want = sorted(ins["stall_total"], reverse=True)[:3]
        self.assertEqual(list(hot["stall_total"]), want)
        self.assertAlmostEqual(hot["share"].iloc[0], want[0] / sum(ins["stall_total"]))
        self.assertTrue(all(hot["text"].str.len() > 0))

    def test_run_matches_the_stats_json(self):
        with tempfile.TemporaryDirectory() as d:
            stats = os.path.join(d, "s.json")
            df = simtlab.run(os.path.join(BIN, "vectoradd"), 5000, gpu="fermi-c2050",
                             sets=["sm.scheduler=gto"], stats=stats)
            with open(stats) as f:
                j = json.load(f)
        self.assertEqual(df.attrs["stdout"].splitlines()[-1], "PASSED")
        self.assertEqual(len(df), 1)
        k = j["kernels"][0]
        row = df.iloc[0]
        self.assertEqual(row["kernel_base"], "VecAdd")
        self.assertEqual(row["cycles"], k["cycles"])
        self.assertEqual(row["warp_insts"], k["warp_insts"])
        self.assertEqual(row["block"], "256x1x1")
        self.assertEqual(row["grid"], "20x1x1")
        self.assertEqual(row["ctas_per_sm"], k["occupancy"]["ctas_per_sm"])
        g = k["stats"]["gpu"]
        self.assertEqual(row["stat:sm_total.warp_insts"], g["sm_total"]["warp_insts"]["value"])
        self.assertEqual(row["stat:sm_total.stall.issued"], g["sm_total"]["stall"]["values"]["issued"])
        self.assertEqual(df.attrs["preset"], "fermi-c2050")

    def test_run_failure_raises(self):
        with self.assertRaises(RuntimeError):
            simtlab.run(os.path.join(BIN, "vectoradd"), "notanumber", mode="functional")

    def test_kernel_base_name(self):
        self.assertEqual(simtlab.kernel_base_name("_Z14calculate_tempiPf"), "calculate_temp")
        self.assertEqual(simtlab.kernel_base_name("_ZN2ns3barILi4EEEvPi"), "bar")
        self.assertEqual(simtlab.kernel_base_name("plain"), "plain")

    def test_speedups_and_geomean(self):
        df = pd.DataFrame({
            "workload": ["a", "a", "b", "b", "a"], "variant": ["base", "x", "base", "x", "x"],
            "baseline": [1, 0, 1, 0, 0], "run_status": ["passed"] * 5,
            "cycles": [800, 100, 300, 150, 100]})  # a: 800 vs 100+100 -> 4; b: 300/150 -> 2
        s = simtlab.speedups(df)
        self.assertEqual(s.loc["a", "x"], 4.0)
        self.assertEqual(s.loc["b", "x"], 2.0)
        self.assertAlmostEqual(s.loc["geomean", "x"], math.sqrt(8.0))
        self.assertEqual(s.loc["geomean", "base"], 1.0)
        self.assertAlmostEqual(simtlab.geomean([2, 8]), 4.0)
        # A workload with a failed run is left out.
        df.loc[3, "run_status"] = "failed"
        self.assertNotIn("b", simtlab.speedups(df).index)

    def test_sweep_from_code_and_plots(self):
        with tempfile.TemporaryDirectory() as d:
            exp = os.path.join(d, "e.yaml")
            with open(exp, "w") as f:
                f.write("experiment: py\ngpu: fermi-c2050\nworkloads:\n"
                        f"  - {{name: va, command: [{BIN}/vectoradd, '4000']}}\n"
                        "  - workload: vectoradd\n"
                        "variants:\n  lrr: {set: [sm.scheduler=lrr]}\n"
                        "  gto: {set: [sm.scheduler=gto]}\n")
            out = os.path.join(d, "out")
            df = simtlab.sweep(exp, out=out, jobs=2, extra=["--no-build", "--bin-dir", BIN])
            self.assertEqual(len(df), 4)
            self.assertEqual(sorted(df["variant"].unique()), ["gto", "lrr"])
            self.assertTrue((df["run_status"] == "passed").all())
            again = simtlab.load_sweep(out)
            pd.testing.assert_frame_equal(df, again)
            s = simtlab.speedups(df)
            self.assertEqual(list(s.columns), ["lrr", "gto"])
            lrr = df[df.variant == "lrr"].set_index("workload")["cycles"]
            gto = df[df.variant == "gto"].set_index("workload")["cycles"]
            self.assertAlmostEqual(s.loc["va", "gto"], lrr["va"] / gto["va"])
            for name, fn in simtlab.plots.ALL:
                fig = fn(df)
                if name == "energy":
                    self.assertIsNone(fig)  # no energy model output in these stats
                    continue
                self.assertIsNotNone(fig, name)
                self.assertGreater(len(fig.axes[0].patches), 0, name)
                self.assertFalse(fig.simtlab_table.empty, name)

    def test_intervals_load_and_plot(self):
        # A real run: the interval rows add up to the kernel's totals.
        with tempfile.TemporaryDirectory() as d:
            stats = os.path.join(d, "s.json")
            df = simtlab.run(os.path.join(BIN, "vectoradd"), 50000, sets=["stats.interval=300"],
                             stats=stats)
            iv = simtlab.load_intervals(stats)
        self.assertEqual(iv["warp_insts"].sum(), df["warp_insts"].sum())
        self.assertEqual(iv["interval_cycles"].sum(), df["cycles"].sum())
        self.assertEqual(iv["stall.issued"].sum(), df["stat:sm_total.stall.issued"].sum())
        # A sweep directory with two variants of one workload: exact derived values.
        with tempfile.TemporaryDirectory() as d:
            runs = []
            for variant, insts in (("base", [600, 300]), ("x", [900, 100])):
                rid = f"w/{variant}"
                runs.append({"id": rid, "workload": "w", "variant": variant, "rep": 0})
                os.makedirs(os.path.join(d, "runs", rid))
                k = {"name": "k", "index": 0, "start_cycle": 1000, "intervals": {
                    "interval": 100, "end": [100, 150], "cycles": [100, 50],
                    "gpu": {"cycles": [200, 100], "thread_insts": insts, "warp_insts": [1, 1],
                            "resident_warp_cycles": [800, 200], "l1d_accesses": [10, 0],
                            "l1d_hits": [5, 0], "stall": {"issued": [3, 1], "scoreboard": [1, 3]}}}}
                with open(os.path.join(d, "runs", rid, "stats.json"), "w") as f:
                    json.dump({"kernels": [k]}, f)
            with open(os.path.join(d, "plan.json"), "w") as f:
                json.dump({"runs": runs}, f)
            iv = simtlab.load_sweep_intervals(d)
            fig = simtlab.plots.intervals(iv, "w")
        t = fig.simtlab_table
        self.assertEqual(list(t["end_cycle"]), [1100, 1150, 1100, 1150])
        self.assertEqual(list(t["ipc"]), [6.0, 6.0, 9.0, 2.0])
        self.assertEqual(list(t["resident_warps"]), [4.0, 2.0, 4.0, 2.0])
        self.assertEqual(t["l1d_hit_rate"].iloc[0], 0.5)
        self.assertTrue(math.isnan(t["l1d_hit_rate"].iloc[1]))
        self.assertEqual(fig.axes[0].get_title(), "Interval statistics: w")

    def test_import_loads_neither_pandas_nor_matplotlib(self):
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import simtlab; "
                "print('pandas' in sys.modules, 'matplotlib' in sys.modules)")
        p = subprocess.run([sys.executable, "-c", code, PYDIR], capture_output=True, text=True)
        self.assertEqual(p.stdout.split(), ["False", "False"], p.stderr)

    def test_damaged_run_files_name_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            stats = os.path.join(d, "s.json")
            simtlab.run(os.path.join(BIN, "vectoradd"), 3000, mode="functional", stats=stats)
            with open(stats) as f:
                text = f.read()
            with open(stats, "w") as f:
                f.write(text[:len(text) // 2])
            for fn in (simtlab.load_run, simtlab.load_intervals, simtlab.load_hot_lines):
                with self.assertRaises(simtlab.SimtlabDataError, msg=fn.__name__) as cm:
                    fn(stats)
                self.assertIn(stats + ": not valid JSON", str(cm.exception))
                self.assertIn("truncated?", str(cm.exception))
            with self.assertRaises(FileNotFoundError) as cm:
                simtlab.load_run(os.path.join(d, "none.json"))
            self.assertIn("none.json: missing", str(cm.exception))
            with open(stats, "w") as f:
                f.write(text.replace('"grid": [', '"grid": ["x", ', 1))
            with self.assertRaises(simtlab.SimtlabDataError) as cm:
                simtlab.load_run(stats)
            self.assertEqual(str(cm.exception), f"{stats}: kernels[0].grid: ['x', 12, 1, 1] is "
                             "not three integers")
            # simtlab annotate: the file and the problem, no traceback.
            with open(stats, "w") as f:
                f.write(text[:len(text) // 2])
            p = subprocess.run([SIM, "annotate", stats], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertNotIn("Traceback", p.stderr)
            self.assertRegex(p.stderr, r"^simtlab annotate: .*/s\.json: not valid JSON: it ends "
                             r"\(at character \d+\) in the middle of a value; truncated\?\n$")

    def test_damaged_sweep_files_are_named_by_loaders_and_report(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(simtlab.MissingFile) as cm:
                simtlab.load_sweep_intervals(d)  # no plan.json: not an empty table
            self.assertIn(os.path.join(d, "plan.json") + ": missing", str(cm.exception))
            exp = os.path.join(d, "e.yaml")
            with open(exp, "w") as f:
                f.write("experiment: dmg\ngpu: fermi-c2050\nworkloads:\n"
                        f"  - {{name: va, command: [{BIN}/vectoradd, '3000']}}\n"
                        f"  - {{name: vb, command: [{BIN}/vectoradd, '5000']}}\n"
                        "variants:\n  lrr: {set: [sm.scheduler=lrr, stats.interval=500]}\n"
                        "  gto: {set: [sm.scheduler=gto, stats.interval=500]}\n")
            out = os.path.join(d, "out")
            df = simtlab.sweep(exp, out=out, jobs=2)
            self.assertEqual(len(df), 4)
            # A run's stats cut short: collect marks it corrupt, the report says so and warns
            # that its intervals are left out, naming the file.
            bad = os.path.join(out, "runs", "vb", "gto", "stats.json")
            with open(bad, "r+") as f:
                f.truncate(200)
            subprocess.run([SIM, "sweep", "collect", out], capture_output=True, check=True)
            df = simtlab.load_sweep(out)
            self.assertEqual(df.set_index(["workload", "variant"]).loc[("vb", "gto"),
                                                                       "run_status"], "corrupt")
            with self.assertWarns(simtlab.SimtlabWarning) as cm:
                iv = simtlab.load_sweep_intervals(out)
            self.assertIn(bad + ": not valid JSON", str(cm.warning))
            self.assertEqual(sorted(set(zip(iv["workload"], iv["variant"]))),
                             [("va", "gto"), ("va", "lrr"), ("vb", "lrr")])
            with self.assertRaises(simtlab.SimtlabDataError):
                simtlab.load_sweep_intervals(out, on_error="raise")
            p = subprocess.run([SIM, "report", out], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(f"simtlab report: warning: {bad}: not valid JSON", p.stderr)
            with open(os.path.join(out, "report.html")) as f:
                self.assertIn("<td>corrupt</td>", f.read())
            # results.csv cut in the middle of a row; then a plan.json that is not JSON.
            csv_path = os.path.join(out, "results.csv")
            with open(csv_path) as f:
                text = f.read()
            with open(csv_path, "w") as f:
                f.write(text[:len(text) - 40])
            for call in (lambda: simtlab.load_sweep(out), lambda: simtlab.sweep_rows(out)):
                with self.assertRaises(simtlab.SimtlabDataError) as cm:
                    call()
                self.assertRegex(str(cm.exception), "^" + csv_path + r": row 5 has \d+ fields, "
                                 r"the header \d+; the file is damaged or cut short$")
            p = subprocess.run([SIM, "report", out], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertNotIn("Traceback", p.stderr)
            self.assertIn(f"simtlab report: {csv_path}: row 5 has", p.stderr)
            with open(csv_path, "w") as f:
                f.write(text)
            with open(os.path.join(out, "plan.json"), "w") as f:
                f.write("{")
            p = subprocess.run([SIM, "report", out], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertNotIn("Traceback", p.stderr)
            self.assertIn(f"simtlab report: {out}/plan.json: not valid JSON", p.stderr)

    def test_pip_install_offline(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(os.path.dirname(__file__), "..", "..", "python")
            p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index",
                                "--no-cache-dir", "--target", d, src],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            code = "import simtlab, sys; print(simtlab.__version__, simtlab.__file__)"
            q = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               env={**os.environ, "PYTHONPATH": d}, cwd=d)
            self.assertEqual(q.returncode, 0, q.stderr)
            version, path = q.stdout.split()
            self.assertEqual(version, "0.1.0")
            self.assertTrue(path.startswith(d), path)


if __name__ == "__main__":
    unittest.main(verbosity=2)
