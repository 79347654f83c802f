#!/usr/bin/env python3
"""The runtime table of docs/workloads.md from two `simtlab suite run` outputs:
  simtlab suite run --mode functional --gpu fermi-c2050 --out /tmp/wl-func
  simtlab suite run --mode timing --gpu fermi-c2050 --out /tmp/wl-timing
  scripts/workloads_table.py /tmp/wl-func /tmp/wl-timing
(standard library only)."""
import csv
import sys


def rows(d):
    with open(f"{d}/workloads.csv") as f:
        return {r["workload"]: r for r in csv.DictReader(f)}


func, tim = rows(sys.argv[1]), rows(sys.argv[2])
print("| workload | launches | warp insts | thread insts | functional s | timing s | cycles | IPC |")
print("|---|---|---|---|---|---|---|---|")
tf = tt = 0.0
for name, t in tim.items():
    f = func[name]
    cyc, ti = int(t["cycles"]), int(t["thread_insts"])
    tf += float(f["wall_seconds"])
    tt += float(t["wall_seconds"])
    print(f"| {name} | {t['launches']} | {int(t['warp_insts']):,} | {ti:,} | "
          f"{float(f['wall_seconds']):.2f} | {float(t['wall_seconds']):.2f} | {cyc:,} | "
          f"{ti / cyc if cyc else 0:.1f} |")
print(f"| **all {len(tim)}** | | | | **{tf:.1f}** | **{tt:.1f}** | | |")
