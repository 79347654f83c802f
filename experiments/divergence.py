#!/usr/bin/env python3
"""Tables of docs/results/divergence.md from a divergence sweep (experiments/divergence.yaml):
per workload and variant, the sums over its kernel launches of cycles, warp and thread
instructions, SIMD efficiency (thread instructions / (32 x warp instructions)), speedup over the
IPDOM stack, ITS thread-group events, and the value classes of the classifier.

Usage: divergence.py SWEEP_DIR/results.csv
"""
import collections
import csv
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
        for k, col in (("div", "stat:sm_total.divergent_branches"),
                       ("forks", "stat:sm_total.its.forks"),
                       ("joins", "stat:sm_total.its.joins"),
                       ("yields", "stat:sm_total.its.yields"),
                       ("released", "stat:sm_total.its.released_lanes"),
                       ("cu", "stat:sm_total.classify.insts_uniform"),
                       ("ca", "stat:sm_total.classify.insts_affine"),
                       ("cv", "stat:sm_total.classify.insts_variant"),
                       ("wu", "stat:sm_total.classify.writes_uniform"),
                       ("wa", "stat:sm_total.classify.writes_affine"),
                       ("wv", "stat:sm_total.classify.writes_variant"),
                       ("dsum", "stat:sm_total.simt.stack_depth.sum"),
                       ("dcount", "stat:sm_total.simt.stack_depth.count"),
                       ("pops", "stat:sm_total.simt.reconvergences")):
            a[k] += float(r.get(col) or 0)
        a["dmax"] = max(a["dmax"], float(r.get("stat:sm_total.simt.stack_depth.max") or 0))
    base = variants[0]
    print("| workload | variant | cycles | speedup | warp insts | SIMD eff. | divergent br. "
          "| stack depth mean / max | stack pops | forks | joins | yields | released lanes |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in order:
        for v in variants:
            a, b = agg[(w, v)], agg[(w, base)]
            eff = a["thread_insts"] / (32 * a["warp_insts"]) if a["warp_insts"] else 0
            sp = b["cycles"] / a["cycles"] if a["cycles"] else 0
            print(f"| {w} | {v} | {a['cycles']:.0f} | {sp:.3f} | {a['warp_insts']:.0f} | "
                  f"{eff:.3f} | {a['div']:.0f} | "
                  f"{a['dsum'] / max(a['dcount'], 1):.2f} / {a['dmax']:.0f} | {a['pops']:.0f} | "
                  f"{a['forks']:.0f} | {a['joins']:.0f} | "
                  f"{a['yields']:.0f} | {a['released']:.0f} |")
    print()
    print("| workload | uniform insts | affine insts | variant insts | uniform writes | "
          "affine writes | variant writes |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for w in order:
        a = agg[(w, base)]
        n = a["cu"] + a["ca"] + a["cv"]
        m = a["wu"] + a["wa"] + a["wv"]
        if not n:
            continue
        print(f"| {w} | {a['cu'] / n:.1%} | {a['ca'] / n:.1%} | {a['cv'] / n:.1%} | "
              f"{a['wu'] / m:.1%} | {a['wa'] / m:.1%} | {a['wv'] / m:.1%} |")


if __name__ == "__main__":
    main()
