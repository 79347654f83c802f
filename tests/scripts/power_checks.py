#!/usr/bin/env python3
"""End-to-end checks of the power model (src/power, issue #13; docs/power-area.md):

  1. tesla + int_busy (an integer workload that keeps the pipeline busy): chip area within 10% of
     25.41 mm^2 and average power within 10% of 11.55 W (seed 004 Table 5.2); the critical path
     closes at 300 MHz with the MAD as limiter and a limit of ~700 MHz.
  2. Energy grows linearly with repeated identical work: 1, 2 and 3 launches of the same kernel
     give run energies E1, E2, E3 with E3 - E2 == E2 - E1 (relative 1e-6), and leakage energy is
     leakage power x run time.
  3. power.enable changes no other stat: the stats of a run with the model on, without the
     `power` groups and the sm[i].activity counters, equal those of the run with it off.
  4. fermi-gtx480: int_busy's average power lies in the band between GTX480's idle board power
     (~50 W) and its 250 W TDP.

  power_checks.py SIMTLAB PROGRAMS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

SIMTLAB, PROGS = sys.argv[1], sys.argv[2]
BUSY = os.path.join(PROGS, "prog_int_busy")
fails = []


def run(gpu, args, sets):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.json")
        cmd = [SIMTLAB, "run", "-q", "--mode", "timing", "--gpu", gpu, "--stats", out]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd + ["--", BUSY] + args, check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out))


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


# 1. Tesla calibration on a busy integer workload.
j = run("tesla", ["1", "256", "48", "128"], ["power.enable=true"])
p = j["stats"]["gpu"]["power"]
area, watts = p["area_mm2"]["chip"]["sum"], p["power_w"]["sum"]
check(abs(area / 25.41 - 1) <= 0.10, f"tesla chip area {area:.2f} mm^2 within 10% of 25.41")
check(abs(watts / 11.55 - 1) <= 0.10, f"tesla int_busy power {watts:.2f} W within 10% of 11.55")
cp = p["critical_path"]
check(cp["closes"] == 1 and cp["limiter"] == "mad" and 690 <= cp["f_max_mhz"] <= 710,
      f"tesla closes at 300 MHz, limit {cp['f_max_mhz']:.0f} MHz ({cp['limiter']})")

# 2. Linearity in repeated work.
E = []
for n in (1, 2, 3):
    r = run("tesla", [str(n), "64", "48", "128"], ["power.enable=true"])
    q = r["stats"]["gpu"]["power"]
    E.append(q["energy_j"]["sum"])
    secs = r["totals"]["cycles"] / 300e6
    check(abs(q["energy_j"]["static"]["sum"] - q["leakage_w"]["sum"] * secs) <= 1e-9 * E[-1],
          f"{n} launches: static energy = leakage x run time")
d1, d2 = E[1] - E[0], E[2] - E[1]
check(abs(d2 / d1 - 1) <= 1e-6, f"energy linear in launches: E2-E1={d1:.6g} J, E3-E2={d2:.6g} J")

# 3. The model changes no other stat.
def strip(v, key=None):
    if isinstance(v, dict):
        return {k: strip(x, k) for k, x in v.items() if k not in ("power", "activity")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


off = run("fermi-gtx480", ["1", "64", "32", "128"], [])
on = run("fermi-gtx480", ["1", "64", "32", "128"], ["power.enable=true"])
same = all(strip(off[k]) == strip(on[k]) for k in ("kernels", "stats", "totals"))
check(same, "power.enable changes no other stat")
check("power" not in json.dumps(off["stats"]), "power off: no power group in the stats")

# 4. Fermi plausibility (GTX480: 250 W TDP; ~50 W idle board power).
w = on["stats"]["gpu"]["power"]["power_w"]["sum"]
check(50 <= w <= 250, f"fermi-gtx480 int_busy power {w:.1f} W within [50, 250] W")

sys.exit(1 if fails else 0)
