#!/usr/bin/env python3
"""Per-instruction statistics (sim.per_pc_stats, issue #20): exact sums and `simtlab annotate`.

Usage: check_attribution.py SIMTLAB PROGRAM [SOURCE_FILE]
Runs PROGRAM (built with -lineinfo) in timing mode with per-instruction statistics and checks,
per kernel:
 - every instruction column summed over the PTX instructions equals the same column summed
   over source lines, and both equal the kernel's own totals: execs == warp_insts,
   thread_insts, every stall reason but idle == sm_total.stall, sb_mem + sb_alu == scoreboard,
   rf_bank_conflicts == reg_bank_conflicts, divergent == divergent_branches,
   smem_extra_passes == ldst.bank_conflict_cycles, transactions == ldst transactions;
 - with -lineinfo, every executed instruction has a source line (SOURCE_FILE's or an inlined
   CUDA header's);
 - the same run without per-instruction statistics reports identical kernel stats;
 - `simtlab annotate` marks (>>) exactly the line with the most stall slots, prints its
   source text, and names it as the hottest.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

REASONS = ["issued", "mem_pipeline", "collector_full", "unit_busy", "scoreboard", "barrier",
           "control", "fetch"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(simtlab, prog, stats, extra):
    cmd = [simtlab, "run", "-q", "--mode", "timing", "--stats", stats] + extra + ["--", prog]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr[-1500:]}")
    with open(stats) as f:
        return json.load(f)


def stat(tree, *path):
    for p in path:
        tree = tree[p]
    return tree["value"] if isinstance(tree, dict) and "value" in tree else tree


def main():
    simtlab, prog = sys.argv[1], sys.argv[2]
    source = sys.argv[3] if len(sys.argv) > 3 else None
    tmp = tempfile.mkdtemp()
    on = run(simtlab, prog, os.path.join(tmp, "on.json"), ["--set", "sim.per_pc_stats=true"])
    off = run(simtlab, prog, os.path.join(tmp, "off.json"), [])
    if len(on["kernels"]) != len(off["kernels"]):
        fail("kernel count differs with per-instruction statistics on")
    checked = 0
    for k, k0 in zip(on["kernels"], off["kernels"]):
        name = k["name"]
        if k["stats"] != k0["stats"] or k["cycles"] != k0["cycles"]:
            fail(f"{name}: stats differ with sim.per_pc_stats on")
        a = k.get("attribution")
        if a is None:
            fail(f"{name}: no attribution section")
        ins, lines = a["instructions"], a["lines"]
        sm = k["stats"]["gpu"]["sm_total"]
        want = {"execs": k["warp_insts"], "thread_insts": k["thread_insts"],
                "rf_bank_conflicts": stat(sm, "reg_bank_conflicts"),
                "divergent": stat(sm, "divergent_branches"),
                "smem_extra_passes": stat(sm, "ldst", "bank_conflict_cycles"),
                "transactions": stat(sm, "ldst", "transactions")}
        for r in REASONS:
            want["stall_" + r] = sm["stall"]["values"][r]
        for col, v in want.items():
            si, sl = sum(ins[col]), sum(lines[col])
            if not (si == sl == v):
                fail(f"{name}: {col}: instructions sum {si}, lines sum {sl}, kernel total {v}")
        if sum(ins["sb_mem"]) + sum(ins["sb_alu"]) != want["stall_scoreboard"]:
            fail(f"{name}: sb_mem + sb_alu != scoreboard stalls")
        for c in a["columns"]:
            if sum(ins[c]) != sum(lines[c]):
                fail(f"{name}: column {c} differs between instructions and lines")
        if source:
            files = a["files"]
            for i, f in enumerate(ins["file"]):
                # (inlined CUDA header code is charged to the header's line)
                if ins["execs"][i] and not (0 < f < len(files) and files[f]):
                    fail(f"{name}: executed pc {ins['pc'][i]} ({ins['text'][i]}) has no line")
            if not any(files[f].endswith(os.path.basename(source)) for f in lines["file"]):
                fail(f"{name}: no line of {source}")
        # annotate marks the line with the most stall slots.
        n = len(lines["line"])
        hot = max(range(n), key=lambda i: (lines["stall_total"][i], lines["execs"][i]))
        hot_file, hot_line = a["files"][lines["file"][hot]], lines["line"][hot]
        r = subprocess.run([simtlab, "annotate", os.path.join(tmp, "on.json"), "--kernel",
                            str(k["index"])], capture_output=True, text=True)
        if r.returncode:
            fail(f"simtlab annotate exited {r.returncode}: {r.stderr[-1500:]}")
        marked = [l for l in r.stdout.splitlines() if l.startswith(">>")]
        if len(marked) != 1:
            fail(f"{name}: annotate marked {len(marked)} lines:\n{r.stdout}")
        m = re.match(r"^>>\s+[\d.]+%\s+\d+\s+\d+\s+\d+\s+\d+\s+\S+\s+(\d+)  (.*)$", marked[0])
        if source:
            if not m or int(m.group(1)) != hot_line:
                fail(f"{name}: annotate marked {marked[0]!r}, the hottest line is {hot_line}")
            src_path = source if hot_file.endswith(os.path.basename(source)) else hot_file
            with open(src_path) as f:
                text = f.read().split("\n")[hot_line - 1]
            if m.group(2) != text:
                fail(f"{name}: marked line shows {m.group(2)!r}, source has {text!r}")
            if f"hottest: {hot_file}:{hot_line}" not in r.stdout:
                fail(f"{name}: annotate does not name {hot_file}:{hot_line} as hottest")
        checked += 1
    print(f"OK: {checked} kernels; per-instruction and per-line sums equal the kernel totals; "
          "annotate marks the hottest line")


if __name__ == "__main__":
    main()
