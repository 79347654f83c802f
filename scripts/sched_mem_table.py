#!/usr/bin/env python3
"""Per-workload tables for docs/results/scheduling-memory.d/{ccws,dyncta}.md from a sweep's
results.csv (simtlab sweep run experiments/<name>.yaml): cycles summed over kernel launches,
speedup over the baseline variant, L1D load miss rate, L2 accesses, mechanism statistics.

Usage: sched_mem_table.py SWEEP_DIR/results.csv [--extra stat:...]...
"""
import collections
import csv
import math
import sys


def main():
    path = sys.argv[1]
    extra = [a for a in sys.argv[2:] if a.startswith("stat:")]
    rows = list(csv.DictReader(open(path)))
    base = next(r["variant"] for r in rows if r["baseline"] == "1")
    agg = collections.OrderedDict()
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
        k = (r["workload"], r["variant"])
        a = agg.setdefault(k, collections.Counter())

        def num(c):
            v = r.get(c, "")
            try:
                return float(v) if v not in ("", "null") else 0.0
            except ValueError:
                return 0.0

        a["cycles"] += num("cycles")
        a["ok"] += r["run_status"] == "passed"
        a["l1d_acc"] += num("stat:sm_total.l1d.accesses.load")
        a["l1d_miss"] += num("stat:sm_total.l1d.misses.load")
        a["l2"] += num("stat:mem.l2_total.accesses")
        for e in extra:
            a[e] += num(e)
    workloads = list(dict.fromkeys(w for w, _ in agg))
    hdr = ["workload", "variant", "cycles", "speedup", "L1D load miss %", "L2 accesses"]
    hdr += [e.split(".", 1)[1] if "." in e else e for e in extra]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    logs = collections.defaultdict(list)
    for w in workloads:
        b = agg[(w, base)]["cycles"]
        for v in variants:
            a = agg.get((w, v))
            if not a:
                continue
            sp = b / a["cycles"] if a["cycles"] else float("nan")
            logs[v].append(math.log(sp))
            mr = 100.0 * a["l1d_miss"] / a["l1d_acc"] if a["l1d_acc"] else float("nan")
            cells = [w, v, f"{a['cycles']:.0f}", f"{sp:.3f}", f"{mr:.1f}", f"{a['l2']:.0f}"]
            cells += [f"{a[e]:.0f}" for e in extra]
            print("| " + " | ".join(cells) + " |")
    print()
    print("| variant | geomean speedup over " + base + " |")
    print("|---|---|")
    for v in variants:
        print(f"| {v} | {math.exp(sum(logs[v]) / len(logs[v])):.3f} |")


if __name__ == "__main__":
    main()
