#!/usr/bin/env python3
"""Check a PTX file with `simtlab ptx check` and compare every kernel's static shared memory
with what `ptxas -v` reports for the same PTX.

usage: ptx_smem_vs_ptxas.py SIMTLAB PTXAS FILE.ptx [MORE.ptx ...]

Several files are one linked program (nvcc -rdc=true): simtlab checks them together and
ptxas compiles each one with -c (relocatable). The architecture passed to ptxas is the
file's `.target`. Exits 0 when `simtlab ptx check` succeeds and every kernel agrees.
"""
import re
import subprocess
import sys


def ptx_target(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"\s*\.target\s+(sm_\d+[a-z]?)", line)
            if m:
                return m.group(1)
    return "sm_75"


def ptxas_smem(ptxas, path, relocatable):
    """Kernel name -> static shared bytes, from `ptxas -v`."""
    cmd = [ptxas, "-v", "-arch=" + ptx_target(path), "-o", "/dev/null", path]
    if relocatable:
        cmd.insert(1, "-c")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ptxas failed on {path}:\n{r.stderr}")
    out = {}
    kernel = None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            kernel = m.group(1)
            out[kernel] = 0
            continue
        if re.search(r"Compiling function|Function properties for", line) and "entry" not in line:
            if "Compiling function" in line:
                kernel = None
            continue
        m = re.search(r"Used \d+ registers", line)
        if m and kernel is not None:
            s = re.search(r"(\d+) bytes smem", line)
            out[kernel] = int(s.group(1)) if s else 0
            kernel = None
    return out


def simtlab_smem(simtlab, paths):
    r = subprocess.run([simtlab, "ptx", "check", *paths], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"simtlab ptx check {' '.join(paths)} failed (exit {r.returncode}):\n{r.stderr}")
    out = {}
    kernel = None
    for line in r.stdout.splitlines():
        m = re.match(r"kernel (\S+)$", line)
        if m:
            kernel = m.group(1)
            continue
        if re.match(r"function \S+$", line):
            kernel = None
            continue
        m = re.match(r"\s+shared memory: (\d+) bytes static", line)
        if m and kernel is not None:
            out[kernel] = int(m.group(1))
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    simtlab, ptxas, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    ours = simtlab_smem(simtlab, paths)
    theirs = {}
    for p in paths:
        theirs.update(ptxas_smem(ptxas, p, relocatable=len(paths) > 1))
    bad = 0
    for k in sorted(set(ours) | set(theirs)):
        a, b = ours.get(k), theirs.get(k)
        if a != b:
            bad += 1
            print(f"MISMATCH {k}: simtlab {a} bytes, ptxas {b} bytes")
    print(f"{' '.join(paths)}: {len(theirs)} kernels, {len(theirs) - bad} agree")
    if not theirs:
        print("no kernels found")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
