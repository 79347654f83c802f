#!/usr/bin/env python3
"""Check a Chrome trace-event file written by `simtlab run --trace` against the stats file of
the same run.

Usage: check_trace.py TRACE.json STATS.json
 - valid JSON with a traceEvents list; every event has name, ph, ts, pid (and dur for 'X')
 - one kernel event per launch whose duration equals the kernel's cycles
 - one CTA event per CTA of each kernel
 - warp 'issue' intervals cover exactly the issued warp instructions of the run
 - one memory-access event per memory instruction
"""
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    t = json.load(open(sys.argv[1]))
    s = json.load(open(sys.argv[2]))
    ev = t.get("traceEvents")
    if not isinstance(ev, list) or not ev:
        fail("no traceEvents")
    for e in ev:
        for key in ("name", "ph", "ts", "pid"):
            if key not in e:
                fail(f"event lacks '{key}': {e}")
        if e["ph"] == "X" and (not isinstance(e.get("dur"), int) or e["dur"] <= 0 or e["dur"] > 1 << 40):
            fail(f"bad duration: {e}")
    kernels = [e for e in ev if e.get("cat") == "kernel"]
    if len(kernels) != len(s["kernels"]):
        fail(f"{len(kernels)} kernel events, {len(s['kernels'])} kernels")
    for e, k in zip(kernels, s["kernels"]):
        if e["name"] != k["name"] or e["dur"] != k["cycles"]:
            fail(f"kernel event {e['name']} lasts {e['dur']}, the kernel took {k['cycles']} cycles")
    ctas = [e for e in ev if e.get("cat") == "cta"]
    want = sum(k["ctas"] for k in s["kernels"])
    if len(ctas) != want:
        fail(f"{len(ctas)} CTA events, {want} CTAs ran")
    issued = sum(e["dur"] for e in ev if e.get("cat") == "warp")
    if issued != s["totals"]["warp_insts"]:
        fail(f"warp issue intervals cover {issued} cycles, {s['totals']['warp_insts']} warp instructions issued")
    mem = sum(1 for e in ev if e.get("cat") == "mem")
    want_mem = s["stats"]["gpu"]["sm_total"]["ldst"]["mem_insts"]["value"]
    if mem != want_mem:
        fail(f"{mem} memory-access events, {want_mem} memory instructions executed")
    print(f"trace OK: {len(ev)} events")


if __name__ == "__main__":
    main()
