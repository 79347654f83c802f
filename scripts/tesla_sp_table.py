#!/usr/bin/env python3
"""Seed 004's SP-scaling study from the tesla-sp sweep (experiments/tesla-sp.yaml): per SP count,
area/SM, power/SM, SPs per mm^2, W per SP, IPC, perf/W, perf/mm^2 and the SMs (and throughput)
that fit a fixed die, next to the seed's Table 5.3 and the per-SM targets derived from it.

  scripts/tesla_sp_table.py SWEEP/results.csv [build/bin/simtlab] > table.md

Power of a workload = its energy over all kernels / their time (the model's activity-driven
power); "peak" = the model at peak activity (`simtlab power`, every lane busy every cycle), the
analogue of the seed's synthesis power. The 64-SP point is not simulated (64-thread warps):
model only. Fixed die = the Tesla chip, 25.41 mm^2 (Table 5.2), SMs scaling linearly (seed Sec.
5.2); throughput in that die = SMs x measured IPC per SM x 300 MHz.
"""
import csv
import json
import subprocess
import sys
from collections import defaultdict

CSV = sys.argv[1]
SIMTLAB = sys.argv[2] if len(sys.argv) > 2 else "build/bin/simtlab"
DIE = 25.41
SMS = 16
SEED_AREA = {4: 1.45, 8: 1.588, 16: 1.75, 32: 2.66, 64: 5.60}
SEED_POWER = {4: 0.71, 8: 0.722, 16: 0.77, 32: 1.04, 64: 1.92}
SEED_DENS = {8: 83, 16: 81, 32: 32, 64: -5}
SEED_WSP = {8: 49, 16: 47, 32: 32, 64: 8}


def model(n):
    out = subprocess.run([SIMTLAB, "power", "--gpu", "tesla", "--set", f"power.lanes={n}",
                          "--set", f"power.warp_width={64 if n == 64 else 32}"],
                         check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["area_mm2"]["sm"]["sum"], j["peak"]["power_w"]["sum"] / SMS, j["critical_path"]


runs = defaultdict(lambda: defaultdict(float))
for r in csv.DictReader(open(CSV)):
    if r["kernel_status"] != "completed":
        continue
    n = int(r["variant"][2:])
    w = runs[(r["workload"], n)]
    w["cycles"] += float(r["cycles"])
    w["thread_insts"] += float(r["thread_insts"])
    w["energy"] += float(r["stat:power.energy_j.sum"])
    w["seconds"] += float(r["stat:power.seconds"])
    w["area_sm"] = float(r["stat:power.area_mm2.sm.sum"])
workloads = sorted({k[0] for k in runs})

print("| SP/SM | area/SM mm^2 (seed-derived / model) | peak power/SM W (seed-derived / model) "
      "| SP per mm^2 | dSP/mm^2 seed / model | W per SP (peak) | dW/SP seed / model "
      "| clock limit MHz | SMs in 25.41 mm^2 |")
print("|---|---|---|---|---|---|---|---|---|")
prev = None
model_pts = {}
for n in [4, 8, 16, 32, 64]:
    a, p, cp = model(n)
    model_pts[n] = (a, p)
    dens = wsp = ""
    if prev:
        dens = f"{SEED_DENS[n]:+d}% / {((n / a) / (prev[0] / prev[1]) - 1) * 100:+.0f}%"
        wsp = f"{SEED_WSP[n]}% / {(1 - (p / n) / (prev[2] / prev[0])) * 100:.0f}%"
    print(f"| {n} | {SEED_AREA[n]} / {a:.3f} | {SEED_POWER[n]} / {p:.3f} | {n / a:.2f} | {dens} | "
          f"{p / n:.4f} | {wsp} | {cp['f_max_mhz']:.0f} ({cp['limiter']}) | {int(DIE // a)} |")
    prev = (n, a, p)

for wl in workloads:
    print(f"\nWorkload `{wl}` (simulated; power = energy / time of its kernels):\n")
    print("| SP/SM | IPC (thread inst/cycle, chip) | IPC per SM | power/SM W | W per SP "
          "| perf/W (Ginst/J) | perf/mm^2 (Ginst/s/mm^2) | SMs in 25.41 mm^2 | throughput in "
          "that die (Ginst/s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in [4, 8, 16, 32, 64]:
        if (wl, n) not in runs:
            print(f"| {n} | not simulated (64-thread warps) | | | | | | "
                  f"{int(DIE // model_pts[n][0])} | |")
            continue
        w = runs[(wl, n)]
        ipc = w["thread_insts"] / w["cycles"]
        f = 300e6
        watts = w["energy"] / w["seconds"]
        a = w["area_sm"]
        fit = int(DIE // a)
        print(f"| {n} | {ipc:.2f} | {ipc / SMS:.2f} | {watts / SMS:.3f} | {watts / SMS / n:.4f} "
              f"| {w['thread_insts'] / w['energy'] / 1e9:.2f} | "
              f"{ipc * f / (a * SMS) / 1e9:.3f} | {fit} | {fit * ipc / SMS * f / 1e9:.2f} |")
