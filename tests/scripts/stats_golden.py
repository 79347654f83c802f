#!/usr/bin/env python3
"""Golden stats test: with every research mechanism and opt-in feature off, the stats of a fixed
set of runs must stay byte-identical (design/MECHANISMS.md, "Off means absent").

Usage:
  stats_golden.py SIMTLAB PROGRAMS_DIR GOLDEN_FILE [--update] [--artifacts DIR]

GOLDEN_FILE (tests/golden/stats/golden.txt) has one line per run:
  <name> <sha256> <cycles per kernel, comma separated> <warp insts per kernel>
where <name> is "<program>@<gpu>[+<set>...]" and the hash is over the canonical JSON (sorted keys,
no whitespace) of the run's `kernels`, `stats` and `totals`, with every stat's description,
unit and formula text removed (rewording a description is not a change of behaviour) and the
`config`, `host` and `simtlab` sections left out (a new parameter adds a config key; the
golden guards behaviour, not the parameter list).

A full stats file is ~1 MB per run, too big to keep per run in the repository; on a mismatch
the test names the run, prints the cycles/instructions that changed, and writes the flattened
stats of the current build to ARTIFACTS/<name>.txt. Flatten the same run on the previous commit
(`--artifacts` with that build) and diff the two files to see which stat moved.

--update rewrites GOLDEN_FILE from the current build (only when a change of behaviour is meant;
say why in the commit message).
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

# (program, gpu preset, extra --set overrides). Chosen to cover: global/shared/constant
# memory, atomics, textures, divergence and barriers, concurrent streams, every scheduler, and
# the three presets. Not prog_local_arrays: nvcc 13 emits different PTX for local_arrays.cu
# from one compile to the next (same command, same path; seen 2026-11-24: 3 vs 4 hoistable
# loads, 25420 vs 25432 warp instructions), so its stats depend on the build, not on simtlab.
RUNS = [
    ("prog_vecadd", "fermi-gtx480", []),
    ("prog_transpose", "fermi-gtx480", []),
    ("prog_scan", "fermi-gtx480", []),
    ("prog_control_flow", "fermi-gtx480", []),
    ("prog_reduce_sync", "fermi-gtx480", []),
    ("prog_atomics_int", "fermi-gtx480", []),
    ("prog_contended_atomics", "fermi-gtx480", []),
    ("prog_texture_linear", "fermi-gtx480", []),
    ("prog_constant_mem", "fermi-gtx480", []),
    ("prog_concurrent_streams", "fermi-gtx480", []),
    ("prog_warp_reduce", "fermi-gtx480", []),
    ("prog_transpose", "fermi-gtx480", ["sm.scheduler=lrr"]),
    ("prog_transpose", "fermi-gtx480", ["sm.scheduler=two_level"]),
    ("prog_transpose", "fermi-gtx480", ["sm.scheduler=oldest"]),
    ("prog_scan", "fermi-c2050", []),
    ("prog_reduce_sync", "fermi-c2050", []),
    ("prog_vecadd", "tesla", []),
    ("prog_control_flow", "tesla", []),
]

STRIP = {"desc", "unit", "formula"}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in STRIP}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def flatten(v, p, out):
    if isinstance(v, dict):
        for k in sorted(v):
            flatten(v[k], f"{p}.{k}" if p else k, out)
    elif isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
        for i, x in enumerate(v):
            flatten(x, f"{p}[{i}]", out)
    else:
        out.append(f"{p} {json.dumps(v)}")


def run_name(prog, gpu, sets):
    return "@".join([prog, gpu]) + "".join("+" + s for s in sets)


def run_one(simtlab, progdir, prog, gpu, sets):
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "s.json")
        cmd = [simtlab, "run", "-q", "--mode", "timing", "--gpu", gpu, "--stats", stats]
        for s in sets:
            cmd += ["--set", s]
        cmd += ["--", os.path.join(progdir, prog)]
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr[-2000:]}")
        with open(stats) as f:
            d = json.load(f)
    body = strip({k: d[k] for k in ("kernels", "stats", "totals")})
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canon.encode()).hexdigest()
    cycles = ",".join(str(k["cycles"]) for k in d["kernels"]) or "-"
    insts = ",".join(str(k["warp_insts"]) for k in d["kernels"]) or "-"
    return digest, cycles, insts, body


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    update = "--update" in sys.argv
    artifacts = None
    if "--artifacts" in sys.argv:
        artifacts = sys.argv[sys.argv.index("--artifacts") + 1]
        args.remove(artifacts)
    if len(args) != 3:
        sys.exit(__doc__)
    simtlab, progdir, golden = args
    lines = []
    results = {}
    for prog, gpu, sets in RUNS:
        name = run_name(prog, gpu, sets)
        digest, cycles, insts, body = run_one(simtlab, progdir, prog, gpu, sets)
        results[name] = (digest, cycles, insts, body)
        lines.append(f"{name} {digest} {cycles} {insts}")
    if update:
        with open(golden, "w") as f:
            f.write("# stats golden: tests/scripts/stats_golden.py (regenerate with --update)\n")
            f.write("\n".join(lines) + "\n")
        print(f"wrote {golden} ({len(lines)} runs)")
        return
    want = {}
    with open(golden) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, digest, cycles, insts = line.split()
            want[name] = (digest, cycles, insts)
    bad = []
    for name, (digest, cycles, insts, body) in results.items():
        if name not in want:
            bad.append(f"{name}: not in {golden} (run with --update)")
            continue
        wd, wc, wi = want[name]
        if digest == wd:
            continue
        msg = f"{name}: stats differ from the golden"
        if cycles != wc:
            msg += f"; cycles per kernel {wc} -> {cycles}"
        if insts != wi:
            msg += f"; warp instructions per kernel {wi} -> {insts}"
        if artifacts:
            os.makedirs(artifacts, exist_ok=True)
            out = []
            flatten(body, "", out)
            path = os.path.join(artifacts, name.replace("/", "_") + ".txt")
            with open(path, "w") as f:
                f.write("\n".join(out) + "\n")
            msg += f"; flattened stats in {path}"
        bad.append(msg)
    for name in want:
        if name not in results:
            bad.append(f"{name}: in {golden} but no longer run")
    if bad:
        print("FAIL:\n  " + "\n  ".join(bad))
        sys.exit(1)
    print(f"OK: {len(results)} runs byte-identical to the golden stats")


if __name__ == "__main__":
    main()
