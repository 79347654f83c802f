#!/usr/bin/env python3
"""Compare `simtlab ptx regs` register counts with `ptxas -v` for PTX files (issue #14).

usage: regs_vs_ptxas.py SIMTLAB PTXAS FILE.ptx [MORE.ptx ...]

Prints a Markdown table row per function that ptxas reports (entries, and .func it compiled
separately): simtlab's count under the SASS model (the default of `simtlab ptx regs`) and for
the PTX as written (`--plain`), then a summary of the ratios simtlab/ptxas. The architecture passed to ptxas is the
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
    ratios, ratios_plain = [], []
    print("| file | function | ptxas | simtlab (SASS model) | ratio | PTX as written | ratio "
          "| max live (as written) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for path in files:
        ours = simtlab_regs(simtlab, path)
        plain = simtlab_regs(simtlab, path, ("--plain",))
        theirs = ptxas_regs(ptxas, path)
        for name, n in theirs.items():
            if name not in ours:
                continue
            count = ours[name][0]
            count_p, live = plain[name]
            ratio = count / n if n else float("inf")
            ratio_p = count_p / n if n else float("inf")
            ratios.append(ratio)
            ratios_plain.append(ratio_p)
            short = name if len(name) <= 48 else name[:45] + "..."
            print(f"| {os.path.basename(path)} | `{short}` | {n} | {count} | {ratio:.2f} "
                  f"| {count_p} | {ratio_p:.2f} | {live} |")
    print()
    print("| simtlab count | functions | median simtlab/ptxas | in 0.9-1.2 | below 0.9 "
          "| above 1.2 | above 1.5 | min | max |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, rs in (("SASS model", ratios), ("PTX as written (`--plain`)", ratios_plain)):
        if rs:
            print(f"| {label} | {len(rs)} | {statistics.median(rs):.2f} "
                  f"| {sum(0.9 <= r <= 1.2 for r in rs)} | {sum(r < 0.9 for r in rs)} "
                  f"| {sum(r > 1.2 for r in rs)} | {sum(r > 1.5 for r in rs)} "
                  f"| {min(rs):.2f} | {max(rs):.2f} |")


if __name__ == "__main__":
    main()
