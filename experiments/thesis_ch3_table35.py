#!/usr/bin/env python3
"""Table 3.5 of the thesis in kind (docs/results/thesis-ch3.md): for every kernel of the ch. 3
sets (thesis-ch3-set1/set2 in workloads/manifest.yaml), the executed thread instructions with
and without the relssp pass (sharing.relssp=opt, and postdom), functional mode, scaled args,
and the difference per thread: 1 = only relssp was inserted on every thread's path, 2 = relssp
plus one split critical edge's branch, in between = paths differ.

Usage: thesis_ch3_table35.py SIMTLAB WORKLOADS_DIR [MANIFEST]
"""
import csv
import os
import subprocess
import sys
import tempfile

import yaml


def run(simtlab, prog, args, sets):
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as f:
        path = f.name
    os.unlink(path)
    cmd = [simtlab, "run", "-q", "--gpu", "fermi-c2050", "--mode", "functional", "--csv", path]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd + ["--", prog] + args, check=True, stdout=subprocess.DEVNULL)
    rows = list(csv.DictReader(open(path)))
    os.unlink(path)
    out = {}  # kernel base name -> [thread_insts, threads]
    for r in rows:
        name = r["kernel"].strip('"')
        dims = [int(x) for x in r["block"].split("x")]
        t = int(r["ctas"]) * dims[0] * dims[1] * dims[2]
        acc = out.setdefault(name, [0, 0])
        acc[0] += int(r["thread_insts"])
        acc[1] += t
    return out


def main():
    simtlab, wdir = sys.argv[1], sys.argv[2]
    man = yaml.safe_load(open(sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        os.path.dirname(__file__), "..", "workloads", "manifest.yaml")))
    print("| Kernel | Set | Threads | Instructions (no pass) | OPT | OPT - base | per thread "
          "| PostDom - base | per thread |")
    print("|---|---|---|---|---|---|---|---|---|")
    for w in man["workloads"]:
        ks = [k for k in w.get("kernels", [])
              if any(s in ("thesis-ch3-set1", "thesis-ch3-set2") for s in k.get("sets", []))]
        if not ks:
            continue
        prog = os.path.join(wdir, w["binary"])
        args = [str(a) for a in (w.get("scaled_args") or w.get("args") or [])]
        base = run(simtlab, prog, args, [])
        opt = run(simtlab, prog, args, ["sharing.relssp=opt"])
        pd = run(simtlab, prog, args, ["sharing.relssp=postdom"])
        for k in ks:
            full = next((n for n in base if n == k["kernel"] or k["kernel"] in n), None)
            if full is None:
                print(f"| {k.get('label') or k['kernel']} | | not launched | | | | | | |")
                continue
            b, t = base[full]
            o, p = opt[full][0], pd[full][0]
            s = ",".join(x[len("thesis-ch3-"):] for x in k["sets"] if x.startswith("thesis-ch3-"))
            print(f"| {k.get('label') or k['kernel']} | {s} | {t} | {b} | {o} | {o - b} | "
                  f"{(o - b) / t:.3f} | {p - b} | {(p - b) / t:.3f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
