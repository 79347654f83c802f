#!/usr/bin/env python3
"""Tables of docs/results/thesis-ch2.md from the thesis-ch2-reg / thesis-ch2-smem sweeps:
for each kernel of the thesis's sets (workloads/manifest.yaml) and each variant, resident
blocks per SM, IPC (thread instructions per cycle, summed over the kernel's launches, as
GPGPU-Sim reports it) and the gain over the baseline variant, the geometric mean of the gains,
and the sharing statistics (lock waits, the additional warps' progress).

Usage: thesis_ch2.py SWEEP_DIR/results.csv [MANIFEST]   (default workloads/manifest.yaml)
"""
import collections
import csv
import math
import os
import sys

import yaml


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    man = yaml.safe_load(open(sys.argv[2] if len(sys.argv) > 2 else
                              os.path.join(os.path.dirname(__file__), "..", "workloads",
                                           "manifest.yaml")))
    sets = {}  # (workload, kernel) -> set names
    for w in man.get("workloads", []):
        for k in w.get("kernels", []):
            sets[(w["name"], k["kernel"])] = k.get("sets", [])
    baseline = next((r["variant"] for r in rows if r["baseline"] in ("1", "true", "True")),
                    rows[0]["variant"] if rows else "")
    kset = {}
    agg = collections.defaultdict(lambda: collections.defaultdict(float))
    order, variants = [], []
    for r in rows:
        key = (r["workload"], r["kernel_base"])
        s = [x for x in sets.get(key, []) if x.startswith("thesis-ch2-")]
        if not s:
            continue
        if key not in order:
            order.append(key)
        if r["variant"] not in variants:
            variants.append(r["variant"])
        a = agg[(key, r["variant"])]
        kset[key] = s[0]
        a["cycles"] += float(r["cycles"] or 0)
        a["thread_insts"] += float(r["thread_insts"] or 0)
        a["ctas"] = max(a["ctas"], float(r["ctas_per_sm"] or 0))
        for k, col in (("lock", "stat:sm_total.stall.lock_wait"),
                       ("slots", "stat:sm_total.issue_slots"),
                       ("nocyc", "stat:sm_total.sharing.nonowner_active_cycles"),
                       ("smcyc", "stat:sm_total.active_cycles"),
                       ("idle", "stat:sm_total.stall.idle"),
                       ("l1miss", "stat:sm_total.l1d.misses"),
                       ("l2miss", "stat:mem.l2_total.misses")):
            try:
                a[k] += float(r.get(col) or 0)
            except ValueError:
                pass
    ipc = {k: (a["thread_insts"] / a["cycles"] if a["cycles"] else 0.0) for k, a in agg.items()}
    print("Resident blocks per SM / IPC / gain over " + baseline + ":\n")
    print("| set | kernel | " + " | ".join(variants) + " |")
    print("|---|---|" + "---:|" * len(variants))
    gains = collections.defaultdict(list)  # (set, variant) -> gain factors
    for key in order:
        base = ipc.get((key, baseline), 0.0)
        cells = []
        for v in variants:
            a = agg.get((key, v))
            if not a or not a["cycles"]:
                cells.append("–")
                continue
            g = ipc[(key, v)] / base - 1 if base else 0.0
            if v != baseline:
                gains[(kset[key], v)].append(1 + g)
            cells.append(f"{int(a['ctas'])} / {ipc[(key, v)]:.1f}" +
                         ("" if v == baseline else f" / {100 * g:+.2f}%"))
        print(f"| {kset[key].replace('thesis-ch2-', '')} | {key[0]}."
              f"{key[1]} | " + " | ".join(cells) + " |")
    # One geomean per set: a workload of one set may launch kernels of another (backprop's
    # layerforward kernel is Set-3), which must not enter the other set's mean.
    for st in sorted({kset[k] for k in order}):
        cells = []
        for v in variants:
            f = gains.get((st, v), [])
            cells.append("" if v == baseline or not f else
                         f"**{100 * (math.exp(sum(map(math.log, f)) / len(f)) - 1):+.2f}%**")
        print(f"| {st.replace('thesis-ch2-', '')} | **geomean gain** | " + " | ".join(cells) +
              " |")
    print("\nSharing statistics (lock-wait share of issue slots; cycles in which a non-owner "
          "warp issued, per active SM cycle; idle slots; L1D and L2 misses):\n")
    print("| kernel | variant | lock_wait | non-owner progress | idle slots | L1D misses "
          "| L2 misses |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for key in order:
        for v in variants:
            a = agg.get((key, v))
            if not a or not a["slots"]:
                continue
            print(f"| {key[0]}.{key[1]} | {v} | {100 * a['lock'] / a['slots']:.1f}% "
                  f"| {100 * a['nocyc'] / max(a['smcyc'], 1):.1f}% "
                  f"| {100 * a['idle'] / a['slots']:.1f}% | {int(a['l1miss'])} "
                  f"| {int(a['l2miss'])} |")


if __name__ == "__main__":
    main()
