#!/usr/bin/env python3
"""Table of docs/results/divergence.md for thread block compaction / dynamic warp formation
(experiments/divergence_tbc.yaml, divergence_dwf.yaml): per workload and variant, sums over its
kernel launches of cycles, warp instructions, SIMD efficiency (thread instructions / (32 x warp
instructions)), speedup over the first variant (the IPDOM stack), L1 data-cache accesses
(memory transactions: uncoalesced accesses of mixed warps show here), and the mechanisms'
statistics (warps formed, of them compacted/mixed, warp instructions of mixed warps, extra
register-bank conflict cycles, CTA-wide stack depth).

Usage: divergence_compaction.py SWEEP_DIR/results.csv
"""
import collections
import csv
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    agg = collections.defaultdict(lambda: collections.defaultdict(float))
    order, variants = [], []
    l1 = [c for c in (rows[0].keys() if rows else []) if c.startswith("stat:sm_total.l1d.") and
          c.endswith(".accesses")]
    for r in rows:
        w, v = r["workload"], r["variant"]
        if w not in order:
            order.append(w)
        if v not in variants:
            variants.append(v)
        a = agg[(w, v)]
        for k in ("cycles", "warp_insts", "thread_insts"):
            a[k] += float(r[k] or 0)
        a["l1"] += sum(float(r.get(c) or 0) for c in l1)
        for mech in ("tbc", "dwf"):
            for k in ("warps_formed", "compacted_warps", "mixed_warp_insts",
                      "extra_bank_conflicts", "divergent_branches", "uniform_branches"):
                a[k] += float(r.get(f"stat:sm_total.{mech}.{k}") or 0)
        a["dsum"] += float(r.get("stat:sm_total.tbc.stack_depth.sum") or 0)
        a["dcount"] += float(r.get("stat:sm_total.tbc.stack_depth.count") or 0)
        a["dmax"] = max(a["dmax"], float(r.get("stat:sm_total.tbc.stack_depth.max") or 0))
        a["bank"] += float(r.get("stat:sm_total.bank_conflicts") or 0)
    base = variants[0]
    print("| workload | variant | cycles | speedup | warp insts | SIMD eff. | L1D accesses | "
          "warps formed | of them mixed | mixed-warp insts | extra bank confl. | "
          "divergent / uniform branch syncs | CTA stack depth mean / max |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in order:
        for v in variants:
            a, b = agg[(w, v)], agg[(w, base)]
            eff = a["thread_insts"] / (32 * a["warp_insts"]) if a["warp_insts"] else 0
            sp = b["cycles"] / a["cycles"] if a["cycles"] else 0
            depth = (f"{a['dsum'] / a['dcount']:.2f} / {a['dmax']:.0f}" if a["dcount"] else "-")
            print(f"| {w} | {v} | {a['cycles']:.0f} | {sp:.3f} | {a['warp_insts']:.0f} | "
                  f"{eff:.3f} | {a['l1']:.0f} | {a['warps_formed']:.0f} | "
                  f"{a['compacted_warps']:.0f} | {a['mixed_warp_insts']:.0f} | "
                  f"{a['extra_bank_conflicts']:.0f} | "
                  f"{a['divergent_branches']:.0f} / {a['uniform_branches']:.0f} | {depth} |")
    print()
    # Geometric-mean speedup per variant (the papers' summary).
    import math
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
