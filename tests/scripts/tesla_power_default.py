#!/usr/bin/env python3
"""The tesla preset (seed 004's power, performance and area study) reports power and area by
default: `simtlab run --gpu tesla` writes the `power` groups (run and kernel) into the stats and
prints the power/area line in its summary; `--set power.enable=false` takes both away.

  tesla_power_default.py SIMTLAB PROGRAM
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SIMTLAB, PROG = sys.argv[1], sys.argv[2]
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


def run(sets):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.json")
        cmd = [SIMTLAB, "run", "--gpu", "tesla", "--stats", out]
        for s in sets:
            cmd += ["--set", s]
        r = subprocess.run(cmd + ["--", PROG], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        if r.returncode != 0:
            sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr[-2000:]}")
        return json.load(open(out)), r.stderr


j, err = run([])
p = j["stats"]["gpu"].get("power")
check(p is not None, "tesla (no --set): the run's stats have a power group")
if p:
    area = p["area_mm2"]["chip"]["sum"]
    # The seed's area model, exactly as the preset describes the design (16 SMs, 65 nm).
    check(abs(area - 24.799371008) < 1e-6, f"chip area {area:.6f} mm^2 (24.799371 expected)")
    check(abs(p["area_mm2"]["sm"]["sum"] - 1.549960688) < 1e-6, "area per SM 1.549961 mm^2")
    check(p["node_nm"] == 65 and p["core_mhz"] == 300, "65 nm at 300 MHz")
    check(p["power_w"]["sum"] > 0 and p["energy_j"]["sum"] > 0, "power and energy are positive")
check(all("power" in k["stats"]["gpu"] for k in j["kernels"]), "every kernel has a power group")
line = [l for l in err.splitlines() if l.startswith("simtlab: power:")]
check(len(line) == 1 and re.search(
    r"^simtlab: power: \S+ J \(\S+ dynamic, \S+ static\), average \S+ W; area 24\.8 mm\^2 "
    r"\(1\.55 per SM\) at 65 nm; clock limit \d+ MHz", line[0] if line else "") is not None,
      "the summary prints the power/area line: " + (line[0] if line else "(none)"))

j, err = run(["power.enable=false"])
check("power" not in j["stats"]["gpu"], "power.enable=false: no power group")
check("simtlab: power:" not in err, "power.enable=false: no power line")

if fails:
    sys.exit(f"{len(fails)} check(s) failed")
print("PASSED")
