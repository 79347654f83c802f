#!/usr/bin/env python3
"""Tables of docs/results/thesis-ch4.md from a GREENER sweep (experiments/thesis-ch4.yaml).

  simtlab sweep collect sweeps/thesis-ch4 --csv sweeps/thesis-ch4/results.csv
  python3 experiments/thesis_ch4.py sweeps/thesis-ch4/results.csv

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


def gm(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(path):
    lab = labels()
    agg = defaultdict(lambda: defaultdict(float))  # (label, variant) -> sums
    bad = 0
    for r in csv.DictReader(open(path)):
        if r.get("run_status") not in ("passed", None) or not r.get("cycles"):
            continue
        key = (r["workload"], r.get("kernel_base") or r["kernel"])
        if key not in lab:
            continue
        a = agg[(lab[key], r["variant"])]
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
    T = lambda k, v: agg[(k, v)]["g.transition_fj"]
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
               "adds the Table 4.4 transition energies; cycles = simulated cycles vs Baseline.\n")
    out.append("| Kernel | Baseline cycles | " + " | ".join(
        f"{m} cycles | {m} leakage | {m} +trans" for m in modes) + " |")
    out.append("|---|---|" + "---|" * (3 * len(modes)))
    ratios = defaultdict(list)
    for k in kern:
        if not all(have(k, v) for v in ["baseline"] + modes):
            continue
        row = [k, f"{C(k, 'baseline'):.0f}"]
        for m in modes:
            c = C(k, m) / C(k, "baseline") - 1
            e = E(k, m) / E(k, "baseline")
            et = (E(k, m) + T(k, m)) / E(k, "baseline")
            pw = P(k, m) / P(k, "baseline")
            er = (E(k, m) + R(k, m)) / (E(k, "baseline") + R(k, "baseline"))
            ratios[m + ":c"].append(c)
            ratios[m + ":e"].append(e)
            ratios[m + ":et"].append(et)
            ratios[m + ":p"].append(pw)
            ratios[m + ":er"].append(er)
            ratios[m + ":al"].append(alloc(k, m) / alloc(k, "baseline"))
            row += [pct(c), pct(e - 1), pct(et - 1)]
        out.append("| " + " | ".join(row) + " |")
    n = len(ratios["greener:c"])
    row = [f"**mean / GM ({n})**", ""]
    for m in modes:
        row += [pct(sum(ratios[m + ":c"]) / max(1, n)), pct(gm(ratios[m + ":e"]) - 1),
                pct(gm(ratios[m + ":et"]) - 1)]
    out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append("| Quantity (GM over kernels) | Sleep-Reg | Comp-OPT | GREENER |")
    out.append("|---|---|---|---|")
    for name, key in (("leakage power reduction", "p"), ("leakage energy reduction", "e"),
                      ("energy reduction incl. transitions", "et"),
                      ("leakage energy reduction with routing", "er"),
                      ("allocated registers only: leakage reduction", "al")):
        out.append(f"| {name} | " + " | ".join(
            f"{100 * (1 - gm(ratios[m + ':' + key])):.2f}%" for m in modes) + " |")
    out.append("| cycle overhead (mean) | " + " | ".join(
        f"{100 * sum(ratios[m + ':c']) / max(1, n):+.2f}%" for m in modes) + " |")
    if ratios["greener:e"]:
        best = max(1 - x for x in ratios["greener:e"])
        out.append(f"\nGREENER max leakage-energy reduction: {100 * best:.2f}%. "
                   f"GREENER vs Sleep-Reg (leakage energy, GM): "
                   f"{100 * (1 - gm([a / b for a, b in zip(ratios['greener:e'], ratios['sleep_reg:e'])])):.2f}%")
    out.append(f"\nChecker (off_reads + sleep_reads over every run): {bad}\n")

    # W sweep.
    ws = [("greener_w1", 1), ("greener", 3), ("greener_w5", 5), ("greener_w21", 21)]
    out.append("### Threshold W (GREENER leakage energy, uJ; Table 4.5)\n")
    out.append("Leakage only, then leakage + transitions (both uJ); best W under each.\n")
    out.append("| Kernel | " + " | ".join(f"W={w}" for _, w in ws) + " | best | " +
               " | ".join(f"W={w} +trans" for _, w in ws) + " | best +trans | cycles W=1 / W=21 |")
    out.append("|---|" + "---|" * (2 * len(ws) + 3))
    wins = defaultdict(int)
    wins_t = defaultdict(int)
    for k in kern:
        if not all(have(k, v) for v, _ in ws):
            continue
        vals = [E(k, v) for v, _ in ws]
        valt = [E(k, v) + T(k, v) for v, _ in ws]
        best = [w for (v, w), x in zip(ws, vals) if x <= min(vals) * (1 + 1e-9)]
        bestt = [w for (v, w), x in zip(ws, valt) if x <= min(valt) * (1 + 1e-9)]
        for w in best:
            wins[w] += 1
        for w in bestt:
            wins_t[w] += 1
        out.append(f"| {k} | " + " | ".join(f"{x / 1e9:.4f}" for x in vals) +
                   f" | {','.join(map(str, best))} | " + " | ".join(f"{x / 1e9:.3f}" for x in valt) +
                   f" | {','.join(map(str, bestt))} | {pct(C(k, 'greener_w1') / C(k, 'baseline') - 1)} / "
                   f"{pct(C(k, 'greener_w21') / C(k, 'baseline') - 1)} |")
    out.append("\nMinimum (ties included), leakage only: " +
               ", ".join(f"W={w}: {wins[w]}" for _, w in ws) + "; with transitions: " +
               ", ".join(f"W={w}: {wins_t[w]}" for _, w in ws) + "\n")

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
    out.append("| Node | Baseline leakage (uJ, sum) | GREENER leakage (uJ) | reduction (GM) | with transitions (GM) |")
    out.append("|---|---|---|---|---|")
    for nm in (45, 32, 22):
        fl, fd = f[nm]
        b = g = 0.0
        r1, r2 = [], []
        for k in kern:
            if not (have(k, "baseline") and have(k, "greener")):
                continue
            b += E(k, "baseline") * fl
            g += E(k, "greener") * fl
            r1.append(E(k, "greener") / E(k, "baseline"))
            r2.append((E(k, "greener") * fl + T(k, "greener") * fd) / (E(k, "baseline") * fl))
        out.append(f"| {nm} nm | {b / 1e9:.3f} | {g / 1e9:.3f} | {100 * (1 - gm(r1)):.2f}% | "
                   f"{100 * (1 - gm(r2)):.2f}% |")

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
    main(sys.argv[1] if len(sys.argv) > 1 else "sweeps/thesis-ch4/results.csv")
