#!/usr/bin/env python3
"""Virtual vs architectural register numbering (issue #14) on CUDA programs: per program, the
cycles, register-bank conflicts and spill traffic of both numberings in timing mode.

usage: arch_numbering_report.py SIMTLAB PROG [PROG ...] [--set KEY=VALUE ...]

Prints a Markdown table (docs/registers.md) and a summary. Not a test: a report generator.
"""
import json
import os
import subprocess
import sys
import tempfile


def run(simtlab, prog, sets):
    with tempfile.TemporaryDirectory() as d:
        stats = os.path.join(d, "s.json")
        cmd = [simtlab, "run", "-q", "--no-progress", "--mode", "timing", "--stats", stats]
        for s in sets:
            cmd += ["--set", s]
        r = subprocess.run(cmd + ["--", prog], capture_output=True, text=True, timeout=900)
        if r.returncode != 0 or not os.path.exists(stats):
            return None
        with open(stats) as f:
            j = json.load(f)
    out = {"cycles": 0, "conflicts": 0, "reloads": 0, "stores": 0, "spilled": 0, "insts": 0,
           "stdout": r.stdout}
    for k in j["kernels"]:
        out["cycles"] += k.get("cycles", 0)
        out["insts"] += k.get("warp_insts", 0)
        sm = k.get("stats", {}).get("gpu", {}).get("sm_total", {})
        out["conflicts"] += sm.get("reg_bank_conflicts", {}).get("value", 0)
        ra = sm.get("regalloc", {})
        out["reloads"] += ra.get("spill_reloads", {}).get("value", 0)
        out["stores"] += ra.get("spill_stores", {}).get("value", 0)
        out["spilled"] = max(out["spilled"], k.get("registers", {}).get("spilled_values", 0))
    return out


def main():
    args, sets = [], []
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--set":
            sets.append(next(it))
        else:
            args.append(a)
    if len(args) < 2:
        sys.exit(__doc__)
    simtlab, progs = args[0], args[1:]
    print("| program | cycles, virtual | cycles, architectural | change | bank conflicts, "
          "virtual | bank conflicts, architectural | spill reloads + stores (warp insts) | "
          "warp insts, virtual → architectural | output |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    changes = []
    for p in progs:
        v = run(simtlab, p, sets)
        a = run(simtlab, p, sets + ["sm.register_numbering=architectural"])
        if not v or not a:
            print(f"| {os.path.basename(p)} | failed | | | | | | | |")
            continue
        ch = (a["cycles"] - v["cycles"]) / v["cycles"] if v["cycles"] else 0.0
        same_work = a["insts"] == v["insts"]
        changes.append((ch, os.path.basename(p), a["reloads"] + a["stores"], same_work))
        print(f"| {os.path.basename(p)} | {v['cycles']} | {a['cycles']} | {100 * ch:+.2f}% "
              f"| {v['conflicts']} | {a['conflicts']} | {a['reloads'] + a['stores']} "
              f"| {v['insts']}{'' if same_work else ' → ' + str(a['insts'])} "
              f"| {'same' if v['stdout'] == a['stdout'] else 'DIFFERS'} |")
    if changes:
        no_spill = [c for c in changes if c[2] == 0 and c[3]]
        print()
        print(f"{len(changes)} programs; without spills and with the same warp instructions "
              f"({len(no_spill)}): cycle change "
              f"min {100 * min(c[0] for c in no_spill):+.2f}%, max "
              f"{100 * max(c[0] for c in no_spill):+.2f}%, mean "
              f"{100 * sum(c[0] for c in no_spill) / len(no_spill):+.2f}%")


if __name__ == "__main__":
    main()
