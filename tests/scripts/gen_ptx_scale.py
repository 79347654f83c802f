#!/usr/bin/env python3
"""Synthetic PTX kernels for the scaling tests of `simtlab ptx regs` and `simtlab ptx cfg`.

  gen_ptx_scale.py live N OUT.ptx     kernel `live`: N independent 32-bit global loads, all live
                                      at once, then summed in a chain (N + 1 live values at the
                                      peak: the register allocator's interference graph is a
                                      clique of N, and the SASS model spills down to its cap)
  gen_ptx_scale.py blocks B OUT.ptx   kernel `blocks`: about B basic blocks, a chain of B / 2
                                      diamonds `setp; @p bra L; add; L:` each with its own
                                      predicate and value (B / 2 reconvergence points)
  --time SIMTLAB [--runs K]           instead of writing a file, time `simtlab ptx regs` (live)
                                      or `simtlab ptx cfg` (blocks) on the kernel, in seconds
                                      (the best of K runs, default 1), one line per size:
                                      gen_ptx_scale.py live 1000,2000,4000 --time build/bin/simtlab

Used by tests/CMakeLists.txt (ptx_scale.*) and for the numbers in src/ptx/README.md.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HEADER = ".version 8.0\n.target sm_75\n.address_size 64\n\n"


def live_kernel(n):
    out = [HEADER,
           ".visible .entry live(.param .u64 live_in, .param .u64 live_out)\n{\n",
           f"  .reg .b32 %r<{n}>;\n  .reg .b32 %s<{n}>;\n  .reg .b64 %rd<3>;\n\n",
           "  ld.param.u64 %rd0, [live_in];\n  cvta.to.global.u64 %rd1, %rd0;\n"]
    for i in range(n):
        out.append(f"  ld.global.u32 %r{i}, [%rd1+{4 * i}];\n")
    out.append("  mov.u32 %s0, %r0;\n")
    for i in range(1, n):
        out.append(f"  add.u32 %s{i}, %s{i - 1}, %r{i};\n")
    out.append("  ld.param.u64 %rd0, [live_out];\n  cvta.to.global.u64 %rd2, %rd0;\n")
    out.append(f"  st.global.u32 [%rd2], %s{n - 1};\n  ret;\n}}\n")
    return "".join(out)


def blocks_kernel(b):
    d = max(1, b // 2)  # diamonds: the branch block and the skipped block
    out = [HEADER,
           ".visible .entry blocks(.param .u64 blocks_out, .param .u32 blocks_n)\n{\n",
           f"  .reg .pred %p<{d}>;\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n\n",
           "  ld.param.u32 %r0, [blocks_n];\n  mov.u32 %r1, 0;\n"]
    for i in range(d):
        out.append(f"  setp.gt.u32 %p{i}, %r0, {i};\n")
        out.append(f"  @%p{i} bra $L__B{i};\n")
        out.append(f"  add.u32 %r1, %r1, {i};\n")
        out.append(f"$L__B{i}:\n")
    out.append("  ld.param.u64 %rd0, [blocks_out];\n  cvta.to.global.u64 %rd1, %rd0;\n")
    out.append("  st.global.u32 [%rd1], %r1;\n  ret;\n}\n")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["live", "blocks"])
    ap.add_argument("size", help="N or B (with --time: a comma-separated list)")
    ap.add_argument("out", nargs="?", help="output PTX file")
    ap.add_argument("--time", metavar="SIMTLAB", help="time simtlab on the kernel instead")
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    gen = live_kernel if a.kind == "live" else blocks_kernel
    if not a.time:
        if not a.out:
            ap.error("OUT.ptx is required without --time")
        with open(a.out, "w") as f:
            f.write(gen(int(a.size)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for s in a.size.split(","):
            path = os.path.join(tmp, f"{a.kind}_{s}.ptx")
            with open(path, "w") as f:
                f.write(gen(int(s)))
            cmd = ([a.time, "ptx", "regs", path, "--kernel", "live"] if a.kind == "live" else
                   [a.time, "ptx", "cfg", path, "--kernel", "blocks"])
            best = None
            for _ in range(a.runs):
                t0 = time.monotonic()
                r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                dt = time.monotonic() - t0
                if r.returncode != 0:
                    sys.stderr.write(r.stderr.decode())
                    return 1
                best = dt if best is None else min(best, dt)
            print(f"{a.kind} {s}: {best:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
