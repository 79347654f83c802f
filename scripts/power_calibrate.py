#!/usr/bin/env python3
"""Fit the seed-004 coefficients of src/power/coefficients/tesla-synth-65.yaml (docs/power-area.md,
"Calibration") with the model itself (`simtlab power`), and print the fitted values and the
comparison with the targets.

Targets: per-SM area and power of the Tesla configuration (Table 5.2 / 16 SMs) and of the four
other SP counts, derived from Table 5.3 (spec d2ma-and-configurable-ppa.md Sec. 2.6):
  A(2N)/A(N) = 2/(1+dSP/mm^2),  P(2N)/P(N) = 2(1-r).
Area is linear in a_fixed, a_lane, a_pair_bit (a_bit_ff held: it is set from the cell count);
peak-activity power is linear in e_clk_bit and e_logic_um2 (leak_mm2 and the action energies
held). Each column of the least-squares design matrix is the model run with one coefficient set to
1 and the fitted others to 0, so the fit uses exactly the formulas of src/power/model.cpp.
Weights: relative error (1/target^2).

  scripts/power_calibrate.py [build/bin/simtlab]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SIMTLAB = sys.argv[1] if len(sys.argv) > 1 else "build/bin/simtlab"
BASE = os.path.join(os.path.dirname(__file__), "..", "src/power/coefficients/tesla-synth-65.yaml")
SPS = [4, 8, 16, 32, 64]
AREA = [1.45, 1.588, 1.75, 2.66, 5.60]   # mm^2 per SM
POWER = [0.71, 0.722, 0.77, 1.04, 1.92]  # W per SM
SMS = 16


def model(n, overrides):
    text = open(BASE).read()
    for k, v in overrides.items():
        text, cnt = re.subn(rf"(\n  {k}: {{(?:[^}}]*?)value: )[-0-9.e]+", rf"\g<1>{v!r}", text)
        assert cnt == 1, k
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([SIMTLAB, "power", "--gpu", "tesla", "--set",
                              f"power.coefficients={f.name}", "--set", f"power.lanes={n}",
                              "--set", f"power.warp_width={64 if n == 64 else 32}"],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)
    return json.loads(out)


def lstsq(cols, y, w):
    k = len(cols)
    a = [[sum(w[i] * cols[p][i] * cols[q][i] for i in range(len(y))) for q in range(k)]
         for p in range(k)]
    b = [sum(w[i] * cols[p][i] * y[i] for i in range(len(y))) for p in range(k)]
    for i in range(k):  # Gauss-Jordan
        piv = max(range(i, k), key=lambda r: abs(a[r][i]))
        a[i], a[piv], b[i], b[piv] = a[piv], a[i], b[piv], b[i]
        for r in range(k):
            if r != i:
                f = a[r][i] / a[i][i]
                a[r] = [x - f * y_ for x, y_ in zip(a[r], a[i])]
                b[r] -= f * b[i]
    return [b[i] / a[i][i] for i in range(k)]


def fit(names, held, target, get):
    zero = {n: 0.0 for n in names}
    base = [get(model(n, {**held, **zero})) for n in SPS]
    cols = []
    for name in names:
        one = {**zero, name: 1.0}
        cols.append([get(model(n, {**held, **one})) - b for n, b in zip(SPS, base)])
    y = [t - b for t, b in zip(target, base)]
    return dict(zip(names, lstsq(cols, y, [1 / t ** 2 for t in target])))


def main():
    area = fit(["a_fixed", "a_lane", "a_pair_bit"], {}, AREA,
               lambda j: j["area_mm2"]["sm"]["sum"])
    pw = fit(["e_clk_bit", "e_logic_um2"], area, POWER,
             lambda j: j["peak"]["power_w"]["sum"] / SMS)
    print("fitted:", {k: float(f"{v:.4g}") for k, v in {**area, **pw}.items()})
    print("| SP/SM | area/SM target | model | power/SM target | model | dSP/mm^2 seed | model "
          "| dW/SP seed | model | f_max MHz | limiter |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    seed_d = [None, 83, 81, 32, -5]
    seed_r = [None, 49, 47, 32, 8]
    prev = None
    for i, n in enumerate(SPS):
        j = model(n, {**area, **pw})
        a = j["area_mm2"]["sm"]["sum"]
        p = j["peak"]["power_w"]["sum"] / SMS
        cp = j["critical_path"]
        d = r = ""
        if prev:
            d = f"{((n / a) / (prev[0] / prev[1]) - 1) * 100:+.0f}%"
            r = f"{(1 - (p / n) / (prev[2] / prev[0])) * 100:.0f}%"
        print(f"| {n} | {AREA[i]} | {a:.3f} | {POWER[i]} | {p:.3f} | "
              f"{'' if seed_d[i] is None else f'{seed_d[i]:+d}%'} | {d} | "
              f"{'' if seed_r[i] is None else f'{seed_r[i]}%'} | {r} | {cp['f_max_mhz']:.0f} | "
              f"{cp['limiter']} |")
        prev = (n, a, p)


if __name__ == "__main__":
    main()
