#!/usr/bin/env python3
"""Every test program and workload still produces correct output with each research mechanism
on (issue #23): runs each program in timing mode with the baseline configuration and with each
mechanism's switches, and requires the same exit code and the same stdout (test programs), or a
final PASSED line (self-checking workloads, their default arguments).

Usage:
  mechanisms_correct.py SIMTLAB PROGRAMS_DIR WORKLOADS_DIR [-j N] [--only NAME,...]
                        [--mechs MECH,...] [--baseline-cache DIR]

`make test` runs one ctest per mechanism (mechanisms.correct.<mech>) so ctest can spread them
over the cores and no single test runs hundreds of simulations. Those tests share the baseline
runs through --baseline-cache: a baseline's exit code and stdout are stored under a key made of
the command and the identity (path, size, mtime) of simtlab, its libcudart.so.13 and the
program, computed once under a file lock by whichever test needs it first.

Mechanisms checked (each a list of --set overrides on fermi-gtx480):
  rfc          sm.scheduler=two_level rfc.enable=true (baseline: sm.scheduler=two_level)
  mrpb         mrpb.enable=true
  mrpb_bypass  mrpb.enable=true mrpb.bypass=true
  bypass       mrpb.bypass=true
  ccws         ccws.enable=true
  swl          swl.warps=8
  dyncta       dyncta.enable=true
  attribution  sim.per_pc_stats=true (per-instruction statistics, issue #20)
  arch_regs    sm.register_numbering=architectural (issue #14)
  arch_spill   the same with sm.max_regs_per_thread=16 (spill reloads and stores)
  its          sim.its=true (independent thread scheduling, issue #22); programs that need it
               (ITS_ARGS) run with their ITS arguments and must end with PASSED
  classify     classify.enable=true (value classifier statistics, issue #22)
  share_reg    sm.scheduler=owf sharing.mode=reg sharing.reorder=true sharing.dyn=true (#16)
  share_smem   sm.shared_bytes=16K with sm.scheduler=owf sharing.mode=smem (baseline: 16K)
  greener      sm.register_numbering=architectural greener.mode=greener (#18; register power
               states only gate timing and energy)
  sleep_reg    sm.register_numbering=architectural greener.mode=sleep_reg (#18)
  tbc          sim.divergence=tbc (thread block compaction, issue #22)
  tbc_cta      sim.divergence=tbc sm.scheduler=cta_gto (with the CTA-prioritising scheduler)
  dwf          sim.divergence=dwf (dynamic warp formation, Majority issue order, issue #22)
  lpc          sim.lpc=true (likely convergence points on the IPDOM stack, issue #22)
  lpc_stats    sim.lpc=true sim.divergence_stats=true (with the stack statistics)
  dwf_time, dwf_pc, dwf_minority, dwf_pdom   sim.divergence=dwf with sim.dwf_policy=...
"""
import argparse
import concurrent.futures as cf
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

MECHS = {
    "rfc": (["sm.scheduler=two_level"], ["sm.scheduler=two_level", "rfc.enable=true"]),
    "mrpb": ([], ["mrpb.enable=true"]),
    "mrpb_bypass": ([], ["mrpb.enable=true", "mrpb.bypass=true"]),
    "bypass": ([], ["mrpb.bypass=true"]),
    "ccws": ([], ["ccws.enable=true"]),
    "swl": ([], ["swl.warps=8"]),
    "dyncta": ([], ["dyncta.enable=true"]),
    "attribution": ([], ["sim.per_pc_stats=true"]),
    "arch_regs": ([], ["sm.register_numbering=architectural"]),
    "arch_spill": ([], ["sm.register_numbering=architectural", "sm.max_regs_per_thread=16"]),
    "its": ([], ["sim.its=true"]),
    "share_reg": ([], ["sm.scheduler=owf", "sharing.mode=reg", "sharing.reorder=true",
                       "sharing.dyn=true"]),
    "share_smem": (["sm.shared_bytes=16K"], ["sm.shared_bytes=16K", "sm.scheduler=owf",
                                             "sharing.mode=smem"]),
    "classify": ([], ["classify.enable=true"]),
    "greener": ([], ["sm.register_numbering=architectural", "greener.mode=greener"]),
    "sleep_reg": ([], ["sm.register_numbering=architectural", "greener.mode=sleep_reg"]),
    "tbc": ([], ["sim.divergence=tbc"]),
    "tbc_cta": ([], ["sim.divergence=tbc", "sm.scheduler=cta_gto"]),
    "dwf": ([], ["sim.divergence=dwf"]),
    "dwf_time": ([], ["sim.divergence=dwf", "sim.dwf_policy=time"]),
    "dwf_pc": ([], ["sim.divergence=dwf", "sim.dwf_policy=pc"]),
    "dwf_minority": ([], ["sim.divergence=dwf", "sim.dwf_policy=minority"]),
    "dwf_pdom": ([], ["sim.divergence=dwf", "sim.dwf_policy=pdom"]),
    "lpc": ([], ["sim.lpc=true"]),
    "lpc_stats": ([], ["sim.lpc=true", "sim.divergence_stats=true"]),
}

# Programs that behave differently under independent thread scheduling by design: with sim.its
# they run with these arguments and must pass (the intra-warp spin lock completes). Dynamic warp
# formation has per-thread PCs and no stack either: the lock completes there too.
ITS_ARGS = {"prog_its_spinlock": ["its"]}
# Under the stack (every other mechanism, on the pinned fermi-gtx480) the spin lock must hang.
STACK_ARGS = {"prog_its_spinlock": ["deadlock"]}


CPU = {}  # run name -> CPU seconds (user + sys) of the simulation, for the report


def run(simtlab, prog, sets, timeout=600, args=()):
    """(exit code or "timeout", stdout) of `simtlab run` in timing mode; its CPU time goes to
    CPU[...] (os.wait4 gives the child's own rusage, exact also with -j N)."""
    cmd = [simtlab, "run", "-q", "--no-progress", "--mode", "timing"]
    for s in sets:
        cmd += ["--set", s]
    cmd += ["--", prog, *args]
    with tempfile.TemporaryDirectory() as tmp:  # programs may write files: not next to them
        out_path = os.path.join(tmp, ".stdout")
        with open(out_path, "w+") as out:
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, cwd=tmp,
                                 start_new_session=True)
            deadline = time.monotonic() + timeout
            while True:
                pid, status, ru = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    os.killpg(p.pid, signal.SIGKILL)
                    os.wait4(p.pid, 0)
                    return "timeout", ""
                time.sleep(0.05)
            p.returncode = os.waitstatus_to_exitcode(status)
            CPU[(os.path.basename(prog), tuple(sets))] = ru.ru_utime + ru.ru_stime
            out.seek(0)
            return p.returncode, out.read()


BASELINE_CACHE = None  # --baseline-cache


def file_id(path):
    st = os.stat(path)
    return [os.path.abspath(path), st.st_size, st.st_mtime_ns]


def cached_run(simtlab, prog, sets, args=()):
    """run(), through the baseline cache when one is configured."""
    if not BASELINE_CACHE:
        return run(simtlab, prog, sets, args=args)
    lib = os.path.join(os.path.dirname(os.path.dirname(simtlab)), "lib", "libcudart.so.13")
    ident = {"simtlab": file_id(simtlab), "prog": file_id(prog), "sets": list(sets),
             "args": list(args), "gpu": os.environ.get("SIMTLAB_GPU", ""),
             "lib": file_id(lib) if os.path.exists(lib) else None}
    key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:24]
    os.makedirs(BASELINE_CACHE, exist_ok=True)
    path = os.path.join(BASELINE_CACHE, key + ".json")
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one test computes it; the others wait and read it
        try:
            with open(path) as f:
                got = json.load(f)
            if got.get("ident") == ident:
                return got["rc"], got["stdout"]
        except (OSError, ValueError, KeyError):
            pass
        rc, out = run(simtlab, prog, sets, args=args)
        if rc != "timeout":  # a timeout is not a result to reuse
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"ident": ident, "rc": rc, "stdout": out}, f)
            os.replace(tmp, path)
        return rc, out


def check(simtlab, kind, prog, mech):
    base_sets, on_sets = MECHS[mech]
    name = f"{os.path.basename(prog)} [{mech}]"
    its_args = ITS_ARGS.get(os.path.basename(prog))
    if (mech == "its" or mech.startswith("dwf")) and its_args:
        rc, out = run(simtlab, prog, on_sets, args=its_args)
        ok = rc == 0 and out.strip().splitlines()[-1:] == ["PASSED"]
        return name, ok, f"rc {rc} with {' '.join(its_args)}, last line {out.strip().splitlines()[-1:]}"
    stack_args = STACK_ARGS.get(os.path.basename(prog), [])
    rc, out = run(simtlab, prog, on_sets, args=stack_args)
    if kind == "workload":
        ok = rc == 0 and out.strip().splitlines()[-1:] == ["PASSED"]
        return name, ok, f"rc {rc}, last line {out.strip().splitlines()[-1:]}"
    brc, bout = cached_run(simtlab, prog, base_sets, args=stack_args)
    ok = rc == brc and out == bout and rc != "timeout"
    return name, ok, f"rc {rc} vs baseline {brc}, stdout {'same' if out == bout else 'differs'}"


def main():
    # The mechanisms are checked on the pre-Volta fermi-gtx480 (the stack-based ones are rejected
    # with the default GPU's independent thread scheduling); $SIMTLAB_GPU overrides.
    os.environ.setdefault("SIMTLAB_GPU", "fermi-gtx480")
    ap = argparse.ArgumentParser()
    ap.add_argument("simtlab")
    ap.add_argument("programs")
    ap.add_argument("workloads")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--mechs", default="", help="comma-separated subset of the mechanisms")
    ap.add_argument("--baseline-cache", default="",
                    help="directory sharing baseline runs between invocations (see above)")
    ap.add_argument("--list", action="store_true", help="print the mechanisms' names and exit")
    a = ap.parse_args()
    if a.list:
        print("\n".join(MECHS))
        return 0
    global BASELINE_CACHE
    BASELINE_CACHE = os.path.abspath(a.baseline_cache) if a.baseline_cache else None
    unknown = [m for m in filter(None, a.mechs.split(",")) if m not in MECHS]
    if unknown:
        print(f"unknown mechanism(s): {', '.join(unknown)} (known: {', '.join(MECHS)})")
        return 2
    mechs = [m for m in MECHS if not a.mechs or m in a.mechs.split(",")]
    a.simtlab = os.path.abspath(a.simtlab)
    only = set(filter(None, a.only.split(",")))
    jobs = []
    for d, kind, pred in ((a.programs, "program", lambda f: f.startswith("prog_")),
                          (a.workloads, "workload", lambda f: True)):
        for f in sorted(os.listdir(d)):
            p = os.path.abspath(os.path.join(d, f))
            if not pred(f) or not os.path.isfile(p) or not os.access(p, os.X_OK):
                continue
            if only and f not in only:
                continue
            for m in mechs:
                jobs.append((kind, p, m))
    missing = only - {os.path.basename(p) for _, p, _ in jobs}
    if missing or not jobs:
        print(f"no such program or workload: {', '.join(sorted(missing)) or '(nothing to run)'}")
        return 2
    bad = 0
    with cf.ThreadPoolExecutor(a.j) as ex:
        for (kind, prog, mech), (name, ok, why) in zip(
                jobs, ex.map(lambda j: check(a.simtlab, *j), jobs)):
            cpu = CPU.get((os.path.basename(prog), tuple(MECHS[mech][1])))
            cpu = f" [{cpu:.1f} s CPU]" if cpu is not None else ""
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {why}{cpu}", flush=True)
            bad += not ok
    print(f"{len(jobs) - bad}/{len(jobs)} runs correct")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
