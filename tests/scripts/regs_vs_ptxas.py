#!/usr/bin/env python3
"""Compare `simtlab ptx regs` register counts with `ptxas -v` for PTX files (issue #14).

usage: regs_vs_ptxas.py SIMTLAB PTXAS FILE.ptx [MORE.ptx ...]

Prints a Markdown table row per function that ptxas reports (entries, and .func it compiled
separately): simtlab's count as allocated and with R1 reserved (`--reserve 1`, the sm_70+
stack pointer), then the median ratios simtlab/ptxas. The architecture passed to ptxas is the
file's `.target`. Not a test: a report generator for docs/registers.md.
"""
import os
import re
import statistics
import subprocess
import sys


def ptx_target(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"\s*\.target\s+(sm_\d+[a-z]?)", line)
            if m:
                return m.group(1)
    return "sm_75"


def ptxas_regs(ptxas, path):
    """Function name -> (registers, spill stores) from `ptxas -v`."""
    cmd = [ptxas, "-v", "-arch=" + ptx_target(path), "-o", "/dev/null", path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        cmd.insert(1, "-c")  # relocatable (-rdc) code with external calls
        r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"<!-- ptxas failed on {path} -->", file=sys.stderr)
        return {}
    out, name = {}, None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling (?:entry )?function '([^']+)'", line)
        if m:
            name = m.group(1)
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and name is not None:
            out[name] = int(m.group(1))
            name = None
    return out


def simtlab_regs(simtlab, path, extra=()):
    r = subprocess.run([simtlab, "ptx", "regs", path, *extra], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"simtlab ptx regs {path} failed:\n{r.stderr}")
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"function (\S+): (\d+) registers, (\d+) predicates \(max live (\d+)", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(4)))
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    simtlab, ptxas, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    ratios, ratios_sp = [], []
    print("| file | function | ptxas | simtlab | max live | ratio | simtlab, R1 reserved | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for path in files:
        ours = simtlab_regs(simtlab, path)
        ours_sp = simtlab_regs(simtlab, path, ("--reserve", "1"))
        theirs = ptxas_regs(ptxas, path)
        for name, n in theirs.items():
            if name not in ours:
                continue
            count, live = ours[name]
            count_sp = ours_sp[name][0]
            ratio = count / n if n else float("inf")
            ratio_sp = count_sp / n if n else float("inf")
            ratios.append(ratio)
            ratios_sp.append(ratio_sp)
            short = name if len(name) <= 48 else name[:45] + "..."
            print(f"| {os.path.basename(path)} | `{short}` | {n} | {count} | {live} | {ratio:.2f} "
                  f"| {count_sp} | {ratio_sp:.2f} |")
    for label, rs in (("as allocated", ratios), ("R1 reserved", ratios_sp)):
        if rs:
            print()
            print(f"{label}: functions {len(rs)}, median ratio {statistics.median(rs):.2f}, "
                  f"in 0.9-1.2: {sum(0.9 <= r <= 1.2 for r in rs)}, "
                  f"below 0.9: {sum(r < 0.9 for r in rs)}, above 1.2: {sum(r > 1.2 for r in rs)}, "
                  f"above 1.5: {sum(r > 1.5 for r in rs)}, min {min(rs):.2f}, max {max(rs):.2f}")

if __name__ == "__main__":
    main()
