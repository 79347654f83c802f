#!/usr/bin/env python3
"""Tables of docs/results/scheduling-memory.d/{rfc,mrpb}.md from the sweeps of
experiments/rfc.yaml and experiments/mrpb.yaml (their results.csv).

Usage:
  experiments/scheduling_memory.py rfc  SWEEP_DIR     # markdown table on stdout
  experiments/scheduling_memory.py mrpb SWEEP_DIR

Per workload, every kernel launch of the run is summed (cycles and counters). Speedup is
baseline cycles / variant cycles; geomeans are over workloads.

Register-file energy estimate (dynamic access energy only, per 32-bit lane access):
  MRF: 5 pJ  -- GPGPU book Table 1.1 (45 nm): a 32-bit read of a 32 KB SRAM; writes assumed
                equal to reads.
  RFC: 0.47 pJ -- assumption: the same SRAM energy scaled by sqrt(capacity) (first-order
                bitline/wordline length) to one lane's RFC slice, 6 entries x 12 active warps
                x 4 B = 288 B: 5 pJ x sqrt(288 / 32768).
  Without the RFC every operand read and result write is an MRF access. With it: MRF reads and
  writes (misses, live evictions, flushes, direct writes) at the MRF energy, plus RFC reads
  (hits and the reads of live evictions/flushes) and RFC writes at the RFC energy.
"""
import csv
import math
import sys
from collections import OrderedDict, defaultdict

E_MRF = 5.0
E_RFC = 5.0 * math.sqrt(288 / 32768)


def load(sweep):
    rows = list(csv.DictReader(open(f"{sweep}/results.csv")))
    agg = OrderedDict()  # (workload, variant) -> summed numeric columns
    for r in rows:
        if r["run_status"] != "passed":
            continue
        k = (r["workload"], r["variant"])
        d = agg.setdefault(k, defaultdict(float))
        for c, v in r.items():
            if c == "cycles" or c.startswith("stat:"):
                try:
                    d[c] += float(v)
                except ValueError:
                    pass
    return agg


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def pct(x):
    return f"{100 * x:.1f}%"


def rfc_table(sweep, base_v="two_level", rfc_v="rfc", nl_v="rfc_no_last_use"):
    agg = load(sweep)
    wls = list(OrderedDict.fromkeys(w for w, _ in agg))
    s = "stat:sm_total."
    out = ["| workload | cycles two_level | cycles +RFC | speedup | L1D load miss rate | L2 "
           "accesses | RFC hit rate = MRF reads avoided | MRF writes avoided | writes avoided, no "
           "last-use | RF energy vs two_level |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    sp, rd, wr, wr_nl, en = [], [], [], [], []
    for w in wls:
        b, r, n = agg.get((w, base_v)), agg.get((w, rfc_v)), agg.get((w, nl_v))
        if not b or not r:
            continue
        ops, res = r[s + "rfc.operand_reads"], r[s + "rfc.results"]
        mr, mw = r[s + "mrf.reads"], r[s + "mrf.writes"]
        rfc_r = r[s + "rfc.reads"] + r[s + "rfc.evict_writebacks"] + r[s + "rfc.flush_writebacks"]
        rfc_w = r[s + "rfc.writes"]
        e_base = (ops + res) * E_MRF
        e_rfc = (mr + mw) * E_MRF + (rfc_r + rfc_w) * E_RFC
        speed = b["cycles"] / r["cycles"]
        nl = 1 - n[s + "mrf.writes"] / n[s + "rfc.results"] if n and n[s + "rfc.results"] else float("nan")
        if not ops or not res:
            print(f"{w}: no RFC counters", file=sys.stderr)
            continue
        sp.append(speed)
        rd.append(1 - mr / ops)
        wr.append(1 - mw / res)
        wr_nl.append(nl)
        en.append(e_rfc / e_base)
        def l1(x):
            acc = x[s + "l1d.accesses.load"]
            return pct(1 - x[s + "l1d.hits.load"] / acc) if acc else "-"

        out.append(f"| {w} | {b['cycles']:.0f} | {r['cycles']:.0f} | {speed:.3f} | "
                   f"{l1(b)} / {l1(r)} | {b['stat:mem.l2_total.accesses'] / 1e3:.1f}k / "
                   f"{r['stat:mem.l2_total.accesses'] / 1e3:.1f}k | "
                   f"{pct(1 - mr / ops)} | {pct(1 - mw / res)} | "
                   f"{pct(nl)} | {pct(e_rfc / e_base)} |")
    out.append(f"| **mean** | | | {geomean(sp):.3f} (geo) | | | {pct(sum(rd) / len(rd))} | "
               f"{pct(sum(wr) / len(wr))} | {pct(sum(wr_nl) / len(wr_nl))} | "
               f"{pct(sum(en) / len(en))} |")
    return "\n".join(out)


def mrpb_table(sweep):
    agg = load(sweep)
    wls = list(OrderedDict.fromkeys(w for w, _ in agg))
    variants = list(OrderedDict.fromkeys(v for _, v in agg))
    s = "stat:sm_total."
    out = []
    # Speedups over base (and over base_linear for the *_linear variants).
    hdr = "| workload | base cycles | " + " | ".join(v for v in variants if v != "base") + " |"
    out += ["Speedup over `base` (the `*_linear` variants: over `base_linear`; `l1d_64way`: "
            "over `base`):", "", hdr, "|---|---:|" + "---:|" * (len(variants) - 1)]
    gm = defaultdict(list)
    for w in wls:
        b = agg.get((w, "base"))
        if not b:
            continue
        cells = []
        for v in variants:
            if v == "base":
                continue
            ref = agg.get((w, "base_linear")) if v.endswith("_linear") else b
            x = agg.get((w, v))
            if not x or not ref:
                cells.append("-")
                continue
            sp = ref["cycles"] / x["cycles"]
            gm[v].append(sp)
            cells.append(f"{sp:.3f}")
        out.append(f"| {w} | {b['cycles']:.0f} | " + " | ".join(cells) + " |")
    out.append("| **geomean** | | " +
               " | ".join(f"{geomean(gm[v]):.3f}" for v in variants if v != "base") + " |")
    out += ["", "Geomean speedups between variants (cycles of the first / cycles of the second):",
            ""]
    for a, b in (("l1d_64way", "mrpb_bypass"), ("l1d_64way", "mrpb_bypass_linear"),
                 ("base", "base_linear")):
        xs = [agg[(w, a)]["cycles"] / agg[(w, b)]["cycles"] for w in wls
              if (w, a) in agg and (w, b) in agg]
        if xs:
            out.append(f"- `{b}` over `{a}`: {geomean(xs):.3f}")
    out += ["", "L1D load miss rate (1 - hits/accesses; bypassed loads count as misses) / L2 "
            "accesses (thousands) / bypassed loads:", "",
            "| workload | " + " | ".join(variants) + " |", "|---|" + "---:|" * len(variants)]
    for w in wls:
        cells = []
        for v in variants:
            x = agg.get((w, v))
            if not x:
                cells.append("-")
                continue
            acc = x[s + "l1d.accesses.load"]
            mr = 1 - x[s + "l1d.hits.load"] / acc if acc else 0
            byp = x.get(s + "mrpb.bypassed", 0)
            cells.append(f"{pct(mr)} / {x['stat:mem.l2_total.accesses'] / 1e3:.1f}k"
                         + (f" / {byp:.0f}" if byp else ""))
        out.append(f"| {w} | " + " | ".join(cells) + " |")
    out += ["", "L1D associativity stalls (`l1d.reservation_fails.set_reserved`) and MRPB "
            "average occupancy (transactions, busy cycles):", "",
            "| workload | " + " | ".join(variants) + " |", "|---|" + "---:|" * len(variants)]
    for w in wls:
        cells = []
        for v in variants:
            x = agg.get((w, v))
            if not x:
                cells.append("-")
                continue
            st = x.get(s + "l1d.reservation_fails.set_reserved", 0)
            busy = x.get(s + "mrpb.busy_cycles", 0)
            occ = x.get(s + "mrpb.occupancy_sum", 0) / busy if busy else None
            cells.append(f"{st:.0f}" + (f" / {occ:.2f}" if occ is not None else ""))
        out.append(f"| {w} | " + " | ".join(cells) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("rfc", "mrpb"):
        sys.exit(__doc__)
    if sys.argv[1] == "rfc":
        print("Two-level scheduler demoting on any dependence stall (`two_level` vs `rfc`):\n")
        print(rfc_table(sys.argv[2]))
        print("\nDemoting only on long-latency loads, as Gebhart et al. (`two_level_ll` vs "
              "`rfc_ll`):\n")
        print(rfc_table(sys.argv[2], "two_level_ll", "rfc_ll", "rfc_ll_no_last_use"))
    else:
        print(mrpb_table(sys.argv[2]))
