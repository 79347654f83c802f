#!/usr/bin/env python3
"""Table of docs/results/divergence.md for likely convergence points
(experiments/divergence_lpc.yaml): per workload and variant, sums over its kernel launches of
cycles, warp instructions, SIMD efficiency (thread instructions / (32 x warp instructions)),
speedup over the first variant (the IPDOM stack), and the lpc statistics (LPC entries pushed,
merges at likely convergence points, threads merged, merges that joined threads already
waiting there).

Usage: divergence_lpc.py SWEEP_DIR/results.csv
"""
import collections
import csv
import math
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    agg = collections.defaultdict(lambda: collections.defaultdict(float))
    order, variants = [], []
    for r in rows:
        w, v = r["workload"], r["variant"]
        if w not in order:
            order.append(w)
        if v not in variants:
            variants.append(v)
        a = agg[(w, v)]
        for k in ("cycles", "warp_insts", "thread_insts"):
            a[k] += float(r[k] or 0)
        for k in ("lpc_entries", "lpc_merges", "lpc_threads", "lpc_joins"):
            a[k] += float(r.get(f"stat:sm_total.lpc.{k}") or 0)
    base = variants[0]
    print("| workload | variant | cycles | speedup | warp insts | SIMD eff. | LPC entries | "
          "LPC merges | threads merged | joins |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in order:
        for v in variants:
            a, b = agg[(w, v)], agg[(w, base)]
            eff = a["thread_insts"] / (32 * a["warp_insts"]) if a["warp_insts"] else 0
            sp = b["cycles"] / a["cycles"] if a["cycles"] else 0
            print(f"| {w} | {v} | {a['cycles']:.0f} | {sp:.3f} | {a['warp_insts']:.0f} | "
                  f"{eff:.3f} | {a['lpc_entries']:.0f} | {a['lpc_merges']:.0f} | "
                  f"{a['lpc_threads']:.0f} | {a['lpc_joins']:.0f} |")
    print()
    print("| variant | geomean speedup | geomean SIMD eff. |")
    print("|---|---:|---:|")
    for v in variants:
        sps, effs = [], []
        for w in order:
            a, b = agg[(w, v)], agg[(w, base)]
            if a["cycles"] and a["warp_insts"]:
                sps.append(b["cycles"] / a["cycles"])
                effs.append(a["thread_insts"] / (32 * a["warp_insts"]))
        g = math.exp(sum(map(math.log, sps)) / len(sps)) if sps else 0
        e = math.exp(sum(map(math.log, effs)) / len(effs)) if effs else 0
        print(f"| {v} | {g:.3f} | {e:.3f} |")


if __name__ == "__main__":
    main()
