#!/usr/bin/env python3
"""Tables of docs/results/thesis-ch4.md from a GREENER sweep (experiments/thesis-ch4.yaml).

  simtlab sweep collect sweeps/thesis-ch4 --csv sweeps/thesis-ch4/results.csv
  simtlab sweep collect sweeps/thesis-ch4-w --csv sweeps/thesis-ch4-w/results.csv
  python3 experiments/thesis_ch4.py sweeps/thesis-ch4/results.csv sweeps/thesis-ch4-w/results.csv

Several CSVs are merged; a (kernel, variant) pair already read from an earlier file is skipped.
Transition energy is shown under both readings of Table 4.4 (greener.trans_unit): per warp
register (the literal one, what the runs charge by default) and the SM register file's value
shared over its warp registers (the literal energy / warp registers per SM of the preset).

Per Table 4.3 kernel (launches summed): cycles, register leakage energy (residency x per-state
leakage, the stats group greener.*), transition energy (Table 4.4), routing; reductions vs the
Baseline variant; geometric means as the thesis (1 - GM of the normalised energies). The
45/32 nm rows scale the 22 nm energies with the technology table of src/power (leakage x
(L/22)^2 x V/V22 x leak/leak22; transitions x L/22 x (V/V22)^2): the node changes no timing.
"""
import csv
import math
import os
import sys
from collections import defaultdict

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
S = "stat:sm_total.greener."


def labels():
    m = yaml.safe_load(open(os.path.join(ROOT, "workloads", "manifest.yaml")))
    out = {}
    for w in m["workloads"]:
        for k in w.get("kernels") or []:
            if "thesis-ch4" in (k.get("sets") or []) and k.get("label"):
                out[(w["name"], k["kernel"])] = k["label"]
    return out


def node_factors():
    t = yaml.safe_load(open(os.path.join(ROOT, "src", "power", "coefficients", "technology.yaml")))
    n = t["nodes"]
    f = {}
    for nm in (45, 32, 22):
        l = nm / 22.0
        v = n[nm]["vdd"] / n[22]["vdd"]
        f[nm] = (l * l * v * n[nm]["leak"] / n[22]["leak"], l * v * v)
    return f


# Thesis Table 4.5: the W of the lowest GREENER energy per kernel (ties: all of them) and the
# spread max/min - 1 over W = 1..21, from the table's values.
THESIS_BEST_W = {
    "BP": ("3", 1.8), "BFS1": ("3", 1.1), "BFS2": ("3", 0.1), "BS": ("21", 6.3),
    "LIB": ("13", 2.2), "LMD": ("3-21", 0.7), "LPS": ("19", 2.0), "MC1": ("5", 5.0),
    "MC2": ("1", 1.5), "MR1": ("3", 1.9), "MR2": ("7,9,11", 7.9), "MUM": ("7", 2.5),
    "NN1": ("9", 4.6), "NN2": ("13", 5.5), "NN3": ("13", 2.5), "NN4": ("9", 7.8),
    "PF": ("1", 1.8), "SGEMM": ("3", 1.2), "SP": ("9", 14.6), "SPMV": ("5", 1.2),
    "VA": ("1", 2.6)}


def rf_warp_regs():
    """Warp registers per SM of the preset (sm.registers / 32 lanes): the register_file reading."""
    c = yaml.safe_load(open(os.path.join(ROOT, "configs", "kepler-k20x-greener.yaml")))
    return c["sm"]["registers"]["value"] // 32


def gm(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(paths):
    lab = labels()
    rfw = rf_warp_regs()
    agg = defaultdict(lambda: defaultdict(float))  # (label, variant) -> sums
    bad = 0
    rows = []
    seen_before = set()
    for path in paths:
        seen_here = set()
        for r in csv.DictReader(open(path)):
            if r.get("run_status") not in ("passed", None) or not r.get("cycles"):
                continue
            key = (r["workload"], r.get("kernel_base") or r["kernel"])
            if key not in lab:
                continue
            kv = (lab[key], r["variant"])
            if kv in seen_before:
                continue  # read from an earlier file
            seen_here.add(kv)
            rows.append((kv, r))
        seen_before |= seen_here
    for kv, r in rows:
        a = agg[kv]
        a["cycles"] += float(r["cycles"])
        a["launches"] += 1
        for s in ("leakage_fj", "transition_fj", "routing_fj", "lut_hits", "lut_lookups",
                  "wake_stalls", "reg_access_cycles", "reg_lifetime_cycles", "off_reads",
                  "sleep_reads", "residency.on", "residency.sleep", "residency.off",
                  "residency.unallocated", "cycles"):
            v = r.get(S + s)
            if v not in (None, ""):
                a["g." + s] += float(v)
        bad += int(float(r.get(S + "off_reads") or 0) + float(r.get(S + "sleep_reads") or 0))
    kern = sorted({k for k, _ in agg}, key=lambda x: x)
    have = lambda k, v: (k, v) in agg
    E = lambda k, v: agg[(k, v)]["g.leakage_fj"]
    T = lambda k, v: agg[(k, v)]["g.transition_fj"]  # literal (warp_register) reading
    TR = lambda k, v: T(k, v) / rfw  # register_file reading
    R = lambda k, v: agg[(k, v)]["g.routing_fj"]
    C = lambda k, v: agg[(k, v)]["cycles"]
    P = lambda k, v: E(k, v) / agg[(k, v)]["g.cycles"]  # fJ per SM-cycle ~ power
    pct = lambda x: f"{100 * x:+.2f}%"
    # Leakage of the allocated registers only (unallocated excluded), with the default
    # per-state ratios (greener.sleep_ratio 0.25, greener.off_ratio 0.05).
    alloc = lambda k, v: (agg[(k, v)]["g.residency.on"] + 0.25 * agg[(k, v)]["g.residency.sleep"] +
                          0.05 * agg[(k, v)]["g.residency.off"])
    out = []
    modes = ["sleep_reg", "comp_opt", "greener"]
    out.append("### Main comparison (W = 3, wake-up 1/2 cycles, LRR, 22 nm)\n")
    out.append("Leakage = register-cell leakage energy (residency x per-state leakage); +trans "
               "adds the Table 4.4 transition energies per warp-register transition (literal "
               "reading), +trans/RF the register_file reading (Table 4.4 / "
               f"{rfw} warp registers); cycles = simulated cycles vs Baseline.\n")
    out.append("| Kernel | Baseline cycles | " + " | ".join(
        f"{m} cycles | {m} leakage | {m} +trans | {m} +trans/RF" for m in modes) + " |")
    out.append("|---|---|" + "---|" * (4 * len(modes)))
    ratios = defaultdict(list)
    for k in kern:
        if not all(have(k, v) for v in ["baseline"] + modes):
            continue
        row = [k, f"{C(k, 'baseline'):.0f}"]
        for m in modes:
            c = C(k, m) / C(k, "baseline") - 1
            e = E(k, m) / E(k, "baseline")
            et = (E(k, m) + T(k, m)) / E(k, "baseline")
            etr = (E(k, m) + TR(k, m)) / E(k, "baseline")
            pw = P(k, m) / P(k, "baseline")
            er = (E(k, m) + R(k, m)) / (E(k, "baseline") + R(k, "baseline"))
            ratios[m + ":c"].append(c)
            ratios[m + ":e"].append(e)
            ratios[m + ":et"].append(et)
            ratios[m + ":etr"].append(etr)
            ratios[m + ":p"].append(pw)
            ratios[m + ":er"].append(er)
            ratios[m + ":al"].append(alloc(k, m) / alloc(k, "baseline"))
            row += [pct(c), pct(e - 1), pct(et - 1), pct(etr - 1)]
        out.append("| " + " | ".join(row) + " |")
    n = len(ratios["greener:c"])
    row = [f"**mean / GM ({n})**", ""]
    for m in modes:
        row += [pct(sum(ratios[m + ":c"]) / max(1, n)), pct(gm(ratios[m + ":e"]) - 1),
                pct(gm(ratios[m + ":et"]) - 1), pct(gm(ratios[m + ":etr"]) - 1)]
    out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append("| Quantity (GM over kernels) | Sleep-Reg | Comp-OPT | GREENER |")
    out.append("|---|---|---|---|")
    for name, key in (("leakage power reduction", "p"), ("leakage energy reduction", "e"),
                      ("energy reduction incl. transitions (per warp register)", "et"),
                      ("energy reduction incl. transitions (register_file reading)", "etr"),
                      ("leakage energy reduction with routing", "er"),
                      ("allocated registers only: leakage reduction", "al")):
        out.append(f"| {name} | " + " | ".join(
            f"{100 * (1 - gm(ratios[m + ':' + key])):.2f}%" for m in modes) + " |")
    out.append("| cycle overhead (mean) | " + " | ".join(
        f"{100 * sum(ratios[m + ':c']) / max(1, n):+.2f}%" for m in modes) + " |")
    # Sensitivity: Table 4.4 shared over N warp registers (1 = literal, 64 = one of the 32
    # banks of Table 4.2, the file = register_file reading).
    sens = [1, rfw // 32, rfw]
    out.append("\n| Table 4.4 charged per transition as value / N | " +
               " | ".join(f"N = {x}" for x in sens) + " |")
    out.append("|---|" + "---|" * len(sens))
    for m in modes:
        vals = []
        for nn in sens:
            rr = [(E(k, m) + T(k, m) / nn) / E(k, "baseline") for k in kern
                  if all(have(k, v) for v in ["baseline"] + modes)]
            vals.append(f"{100 * (1 - gm(rr)):.2f}%")
        out.append(f"| {m}: energy reduction incl. transitions (GM) | " + " | ".join(vals) + " |")
    if ratios["greener:e"]:
        best = max(1 - x for x in ratios["greener:e"])
        out.append(f"\nGREENER max leakage-energy reduction: {100 * best:.2f}%. "
                   f"GREENER vs Sleep-Reg (leakage energy, GM): "
                   f"{100 * (1 - gm([a / b for a, b in zip(ratios['greener:e'], ratios['sleep_reg:e'])])):.2f}%")
    out.append(f"\nChecker (off_reads + sleep_reads over every run): {bad}\n")

    # W sweep: every W present (variant greener = W 3, greener_wN = W N).
    wv = {"greener": 3}
    for _, v in agg:
        if v.startswith("greener_w") and v[9:].isdigit():
            wv[v] = int(v[9:])
    ws = sorted(wv.items(), key=lambda x: x[1])
    out.append("### Threshold W (GREENER energy, uJ; Table 4.5)\n")
    out.append("Kernels with every W of the sweep. Leakage only; + transitions per warp register "
               "(literal Table 4.4); + transitions, register_file reading; then cycles vs "
               "Baseline. best = the W of the lowest energy (ties included).\n")
    wk = [k for k in kern if all(have(k, v) for v, _ in ws)]
    tally = {}
    for title, fn, tag in (("leakage only", lambda k, v: E(k, v), "leak"),
                           ("leakage + transitions, per warp register", lambda k, v: E(k, v) + T(k, v), "wr"),
                           ("leakage + transitions, register_file reading",
                            lambda k, v: E(k, v) + TR(k, v), "rf")):
        out.append(f"**{title}** (uJ)\n")
        out.append("| Kernel | " + " | ".join(f"W={w}" for _, w in ws) +
                   " | best | spread | thesis best (spread) |")
        out.append("|---|" + "---|" * (len(ws) + 3))
        wins = defaultdict(int)
        for k in wk:
            vals = [fn(k, v) for v, _ in ws]
            best = [w for (v, w), x in zip(ws, vals) if x <= min(vals) * (1 + 1e-9)]
            for w in best:
                wins[w] += 1
            tb = THESIS_BEST_W.get(k, ("-", 0))
            out.append(f"| {k} | " + " | ".join(f"{x / 1e9:.4g}" for x in vals) +
                       f" | {','.join(map(str, best))} | {100 * (max(vals) / min(vals) - 1):.1f}% | "
                       f"{tb[0]} ({tb[1]:.1f}%) |")
        tally[tag] = wins
        out.append("\nKernels whose minimum is at each W (ties included): " +
                   ", ".join(f"W={w}: {wins[w]}" for _, w in ws) + "\n")
    # Sensitivity to the SLEEP leakage (greener.sleep_ratio, an assumption): the leakage
    # recomputed from the residencies, plus the register_file-reading transitions.
    def relk(k, v, sr):
        a = agg[(k, v)]
        res = lambda st: a["g.residency." + st]
        base = res("on") + 0.25 * res("sleep") + 0.05 * (res("off") + res("unallocated"))
        on_fj = E(k, v) / base if base else 0.0
        return on_fj * (res("on") + sr * res("sleep") + 0.05 * (res("off") + res("unallocated"))) + TR(k, v)
    out.append("**sensitivity to the SLEEP leakage** (leakage + transitions, register_file "
               "reading; leakage recomputed from the residencies with SLEEP = sleep_ratio x ON)\n")
    out.append("| sleep_ratio | kernels with the minimum at " + " / ".join(f"W={w}" for _, w in ws) +
               " | median spread |")
    out.append("|---|---|---|")
    for sr in (0.25, 0.5, 0.75, 0.9):
        wins = defaultdict(int)
        spreads = []
        for k in wk:
            vals = [relk(k, v, sr) for v, _ in ws]
            for (v, w), x in zip(ws, vals):
                if x <= min(vals) * (1 + 1e-9):
                    wins[w] += 1
            spreads.append(max(vals) / min(vals) - 1)
        spreads.sort()
        med = spreads[len(spreads) // 2] if spreads else float("nan")
        out.append(f"| {sr} | " + " / ".join(str(wins[w]) for _, w in ws) + f" | {100 * med:.1f}% |")
    out.append("")
    if all(have(k, "baseline") for k in wk):
        out.append("**cycles vs Baseline**\n")
        out.append("| Kernel | " + " | ".join(f"W={w}" for _, w in ws) + " |")
        out.append("|---|" + "---|" * len(ws))
        for k in wk:
            out.append(f"| {k} | " + " | ".join(pct(C(k, v) / C(k, "baseline") - 1) for v, _ in ws) + " |")
        out.append("")

    # Wake-up latency and schedulers.
    out.append("### Wake-up latency X = 2 (SLEEP 2, OFF 4 cycles) and schedulers\n")
    out.append("| Kernel | GREENER X=1 cycles | X=2 cycles | X=2 leakage | GTO: cycles | GTO: leakage | two-level: cycles | two-level: leakage |")
    out.append("|---|---|---|---|---|---|---|---|")
    acc = defaultdict(list)
    for k in kern:
        need = ["baseline", "greener", "greener_wl2", "baseline_gto", "greener_gto",
                "baseline_two_level", "greener_two_level"]
        if not all(have(k, v) for v in need):
            continue
        cells = [pct(C(k, "greener") / C(k, "baseline") - 1),
                 pct(C(k, "greener_wl2") / C(k, "baseline") - 1),
                 pct(E(k, "greener_wl2") / E(k, "baseline") - 1),
                 pct(C(k, "greener_gto") / C(k, "baseline_gto") - 1),
                 pct(E(k, "greener_gto") / E(k, "baseline_gto") - 1),
                 pct(C(k, "greener_two_level") / C(k, "baseline_two_level") - 1),
                 pct(E(k, "greener_two_level") / E(k, "baseline_two_level") - 1)]
        acc["wl2"].append(E(k, "greener_wl2") / E(k, "baseline"))
        acc["gto"].append(E(k, "greener_gto") / E(k, "baseline_gto"))
        acc["tl"].append(E(k, "greener_two_level") / E(k, "baseline_two_level"))
        acc["wl2c"].append(C(k, "greener_wl2") / C(k, "baseline") - 1)
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    if acc["gto"]:
        out.append(f"\nGM leakage-energy reduction: X=2 {100 * (1 - gm(acc['wl2'])):.2f}% "
                   f"(cycles {100 * sum(acc['wl2c']) / len(acc['wl2c']):+.2f}% mean), "
                   f"GTO {100 * (1 - gm(acc['gto'])):.2f}%, two-level {100 * (1 - gm(acc['tl'])):.2f}%\n")

    # Technology nodes.
    f = node_factors()
    out.append("### Technology nodes (scaled from the 22 nm runs)\n")
    out.append("| Node | Baseline leakage (uJ, sum) | GREENER leakage (uJ) | reduction (GM) | with transitions per warp register (GM) | with transitions, register_file reading (GM) |")
    out.append("|---|---|---|---|---|---|")
    for nm in (45, 32, 22):
        fl, fd = f[nm]
        b = g = 0.0
        r1, r2, r3 = [], [], []
        for k in kern:
            if not (have(k, "baseline") and have(k, "greener")):
                continue
            b += E(k, "baseline") * fl
            g += E(k, "greener") * fl
            r1.append(E(k, "greener") / E(k, "baseline"))
            r2.append((E(k, "greener") * fl + T(k, "greener") * fd) / (E(k, "baseline") * fl))
            r3.append((E(k, "greener") * fl + TR(k, "greener") * fd) / (E(k, "baseline") * fl))
        out.append(f"| {nm} nm | {b / 1e9:.3f} | {g / 1e9:.3f} | {100 * (1 - gm(r1)):.2f}% | "
                   f"{100 * (1 - gm(r2)):.2f}% | {100 * (1 - gm(r3)):.2f}% |")

    # Fig. 4.2.
    out.append("\n### Register accesses as % of warp lifetime (Fig. 4.2, Baseline runs)\n")
    out.append("| Kernel | access % | GREENER residency ON / SLEEP / OFF / unallocated |")
    out.append("|---|---|---|")
    for k in kern:
        if not (have(k, "baseline") and have(k, "greener")):
            continue
        a = agg[(k, "baseline")]
        g = agg[(k, "greener")]
        tot = sum(g["g.residency." + s] for s in ("on", "sleep", "off", "unallocated")) or 1
        out.append(f"| {k} | {100 * a['g.reg_access_cycles'] / max(1, a['g.reg_lifetime_cycles']):.2f}% | " +
                   " / ".join(f"{100 * g['g.residency.' + s] / tot:.1f}%"
                              for s in ("on", "sleep", "off", "unallocated")) + " |")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:] or ["sweeps/thesis-ch4/results.csv"])
