#!/usr/bin/env python3
"""calib.ubench_method: the calibration microbenchmarks (microbench/) measure what the simulator
is configured with, where the relation is exact.

  alu.<op> cycles/instruction == sm.<class>.latency   (dependent chain after a warm-up chain:
                                                       t1 - t0 = N x latency, sm.h's latency
                                                       contract: a dependent instruction issues
                                                       exactly `latency` cycles after its producer)
  pchase.l1 == sm.l1d.hit_latency + 2                 (load-to-use of an L1 hit: issue t, operands
  smem.latency == sm.smem_latency + 2                  read and dispatched to the LD/ST queue at
                                                       t+1, taken from the queue at t+2, data at
                                                       t+2+latency, dependent load issues then)

Each relation is checked at the preset's values and again with every latency changed by --set,
so a benchmark that printed a fixed number, or measured something else, fails.

usage: ubench_check.py SIMTLAB MICROBENCH_DIR [--gpu PRESET]
"""
import re
import subprocess
import sys


def info(simtlab, gpu, sets):
    out = subprocess.run([simtlab, "info", "--gpu", gpu] + sets, check=True, capture_output=True,
                         text=True).stdout
    vals = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\w.\[\]]+) = (\S+)", line)
        if m:
            vals[m.group(1)] = m.group(2).strip('"')
    return vals


def run(simtlab, gpu, sets, prog, args):
    cmd = [simtlab, "run", "-q", "--mode", "timing", "--gpu", gpu] + sets + ["--", prog] + args
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "ubench":
            res[f[1]] = float(f[2])
    return res


def main():
    simtlab, ubdir = sys.argv[1], sys.argv[2]
    gpu = sys.argv[sys.argv.index("--gpu") + 1] if "--gpu" in sys.argv else "fermi-gtx480"
    alu = {"fadd": "fp32", "ffma": "fp32", "imad": "int_mul", "sin": "sfu", "dadd": "fp64"}
    variants = [[], ["--set", "sm.fp32.latency=7", "--set", "sm.int_mul.latency=9",
                     "--set", "sm.sfu.latency=19", "--set", "sm.fp64.latency=11",
                     "--set", "sm.l1d.hit_latency=50", "--set", "sm.smem_latency=40"]]
    bad = 0
    for sets in variants:
        cfg = info(simtlab, gpu, sets)
        got = run(simtlab, gpu, sets, f"{ubdir}/ub_alu", list(alu))
        got.update(run(simtlab, gpu, sets, f"{ubdir}/ub_mem", ["l1", "smem_lat"]))
        want = {f"alu.{op}": float(cfg[f"sm.{cls}.latency"]) for op, cls in alu.items()}
        want["pchase.l1"] = float(cfg["sm.l1d.hit_latency"]) + 2
        want["smem.latency"] = float(cfg["sm.smem_latency"]) + 2
        for k, v in want.items():
            ok = got.get(k) == v
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {' '.join(sets[1::2]) or 'preset'}: {k} = {got.get(k)}"
                  f" (expected {v})")
    print("PASSED" if not bad else f"FAILED: {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
