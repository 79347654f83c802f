#!/usr/bin/env python3
"""Check the interval statistics (stats.interval) of a stats file against its kernel totals.

Usage: check_intervals.py STATS.json [OFF_STATS.json]
For every kernel:
 - intervals are `interval` cycles long except the last, and add up to the kernel's cycles
 - every chip-wide series adds up exactly to the kernel's total (sm_total, l2_total,
   dram_total), every per-SM series to that SM's total, and in every interval the chip-wide
   value is the sum of the SMs' values
 - every SM's cycles in an interval are at most the interval's length (skipped idle cycles are
   accounted in the interval they belong to)
With OFF_STATS.json (the same run with stats.interval=0): the kernels' stats are identical, so
recording intervals changes nothing.
"""
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def value(node):
    if "value" in node:
        return node["value"]
    return node["total"]


def main():
    s = json.load(open(sys.argv[1]))
    n_checked = 0
    for k in s["kernels"]:
        iv = k.get("intervals")
        if iv is None:
            fail(f"kernel {k['name']} has no intervals")
        n = iv["interval"]
        cyc = iv["cycles"]
        if sum(cyc) != k["cycles"] or any(c != n for c in cyc[:-1]) or not 0 < cyc[-1] <= n:
            fail(f"kernel {k['name']}: interval lengths {cyc} for {k['cycles']} cycles")
        g = k["stats"]["gpu"]
        totals = {}
        for name in ("cycles", "active_cycles", "warp_insts", "thread_insts", "issue_slots",
                     "resident_warp_cycles"):
            totals[("gpu", name)] = g["sm_total"][name]["value"]
        for r, v in g["sm_total"]["stall"]["values"].items():
            totals[("gpu", "stall." + r)] = v
        totals[("gpu", "l1d_accesses")] = value(g["sm_total"]["l1d"]["accesses"])
        totals[("gpu", "l1d_hits")] = value(g["sm_total"]["l1d"]["hits"])
        if "l2_total" in g["mem"]:
            totals[("gpu", "l2_accesses")] = value(g["mem"]["l2_total"]["accesses"])
            totals[("gpu", "l2_hits")] = value(g["mem"]["l2_total"]["hits"])
        if "dram_total" in g["mem"]:
            for name in ("reads", "writes", "requests", "row_hits", "busy_cycles"):
                totals[("gpu", "dram_" + name)] = g["mem"]["dram_total"][name]["value"]

        def series(root, name):
            if "." in name:
                a, b = name.split(".")
                return root[a][b]
            return root[name]

        for (_, name), want in totals.items():
            got = series(iv["gpu"], name)
            if len(got) != len(cyc):
                fail(f"{name}: {len(got)} values for {len(cyc)} intervals")
            if sum(got) != want:
                fail(f"kernel {k['name']}: intervals of {name} add up to {sum(got)}, total {want}")
            n_checked += 1
        nsm = len(iv["sm"]["warp_insts"])
        for name in [n for (_, n) in totals if not n.startswith(("l2_", "dram_"))]:
            rows = series(iv["sm"], name)
            for i in range(nsm):
                sm = g[f"sm[{i}]"]
                if name.startswith("stall."):
                    want = sm["stall"]["values"][name[6:]]
                elif name.startswith("l1d_"):
                    want = value(sm["l1d"][name[4:]])
                else:
                    want = sm[name]["value"]
                if sum(rows[i]) != want:
                    fail(f"kernel {k['name']}: SM {i} intervals of {name} add up to {sum(rows[i])}, total {want}")
            for j in range(len(cyc)):
                if sum(r[j] for r in rows) != series(iv["gpu"], name)[j]:
                    fail(f"{name} interval {j}: the SMs do not add up to the chip-wide value")
            n_checked += 1
        for i, row in enumerate(iv["sm"]["cycles"]):
            for j, c in enumerate(row):
                if c > cyc[j]:
                    fail(f"SM {i} counts {c} cycles in interval {j} of {cyc[j]}")
    if len(sys.argv) > 2:
        off = json.load(open(sys.argv[2]))
        for a, b in zip(s["kernels"], off["kernels"]):
            if a["stats"] != b["stats"] or a["cycles"] != b["cycles"]:
                fail(f"kernel {a['name']}: stats differ with intervals on")
    print(f"intervals OK: {len(s['kernels'])} kernels, {n_checked} series add up to their totals")


if __name__ == "__main__":
    main()
