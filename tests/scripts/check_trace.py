#!/usr/bin/env python3
"""Check a Chrome trace-event file written by `simtlab run --trace` against the stats file of
the same run.

Usage: check_trace.py TRACE.json STATS.json [--max-bytes-per-cycle N] [--perfetto]
 - valid JSON with a traceEvents list; every event has name, ph, pid (and ts, except metadata)
 - every process (GPU, SM n) and every track that carries slices is named by 'M' metadata
 - no two slices on one track partially overlap (the trace-event format requires slices on a
   track to nest; simtlab's never overlap at all)
 - one kernel slice per launch, lasting the kernel's cycles; one CTA slice per CTA
 - warp-state slices are named "issue" or a stall reason; counter tracks IPC, memory
   instructions in flight and DRAM requests exist
 - unless the trace says it was sampled (trace.max_events) or kernels ran concurrently: the
   "issue" slices cover exactly the issued warp instructions, and there is one memory slice
   per non-shared memory instruction
 - --max-bytes-per-cycle: file size / simulated cycles stays under N
 - --perfetto: also load the file with Perfetto's trace processor (Python package `perfetto`)
   and check it imports the slices and counters; skipped with a note when it is not installed
"""
import argparse
import collections
import json
import os
import sys

REASONS = {"issue", "mem_pipeline", "collector_full", "unit_busy", "scoreboard", "barrier",
           "control", "fetch", "idle", "not_selected", "throttled", "lock_wait", "wake_up"}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def perfetto_check(path, n_slices):
    try:
        from perfetto.trace_processor import TraceProcessor  # noqa: import inside
    except ImportError:
        print("perfetto trace processor: not installed, skipped (pip install perfetto; it "
              "downloads trace_processor_shell on first use; then rerun with --perfetto)")
        return
    tp = TraceProcessor(trace=path)
    slices = next(iter(tp.query("select count(*) as n from slice"))).n
    counters = next(iter(tp.query("select count(*) as n from counter"))).n
    tp.close()
    if slices != n_slices or counters == 0:
        fail(f"perfetto imported {slices} slices (file has {n_slices}) and {counters} counter values")
    print(f"perfetto trace processor: {slices} slices, {counters} counter values imported")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("stats")
    ap.add_argument("--max-bytes-per-cycle", type=float)
    ap.add_argument("--perfetto", action="store_true")
    a = ap.parse_args()
    t = json.load(open(a.trace))
    s = json.load(open(a.stats))
    ev = t.get("traceEvents")
    if not isinstance(ev, list) or not ev:
        fail("no traceEvents")
    for e in ev:
        for key in ("name", "ph", "pid"):
            if key not in e:
                fail(f"event lacks '{key}': {e}")
        if e["ph"] != "M" and "ts" not in e:
            fail(f"event lacks 'ts': {e}")
        if e["ph"] == "X" and (not isinstance(e.get("dur"), int) or e["dur"] <= 0 or e["dur"] > 1 << 40):
            fail(f"bad duration: {e}")
    # Names: processes and tracks.
    procs = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    if 0 not in procs:
        fail("the GPU process is not named")
    xs = [e for e in ev if e["ph"] == "X"]
    for e in xs + [e for e in ev if e["ph"] == "C"]:
        if e["pid"] not in procs:
            fail(f"process {e['pid']} has no process_name: {e}")
    for e in xs:
        if (e["pid"], e["tid"]) not in threads:
            fail(f"track {e['pid']}/{e['tid']} has no thread_name: {e}")
    # No partial overlap on a track (and, simtlab's own rule, no overlap at all).
    tracks = collections.defaultdict(list)
    for e in xs:
        tracks[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    for key, sl in tracks.items():
        sl.sort()
        for (s0, e0, n0), (s1, e1, n1) in zip(sl, sl[1:]):
            if s1 < e0:
                fail(f"track {key}: slice {n1} [{s1},{e1}) overlaps {n0} [{s0},{e0})")
    kernels = [e for e in xs if e.get("cat") == "kernel"]
    if len(kernels) != len(s["kernels"]):
        fail(f"{len(kernels)} kernel events, {len(s['kernels'])} kernels")
    for e, k in zip(sorted(kernels, key=lambda e: e["ts"]), s["kernels"]):
        if e["args"]["kernel"] != k["name"] or e["dur"] != k["cycles"]:
            fail(f"kernel event {e['name']} lasts {e['dur']}, the kernel took {k['cycles']} cycles")
    ctas = [e for e in xs if e.get("cat") == "cta"]
    want = sum(k["ctas"] for k in s["kernels"])
    if len(ctas) != want:
        fail(f"{len(ctas)} CTA events, {want} CTAs ran")
    states = [e for e in xs if e.get("cat") in ("warp", "stall")]
    bad = {e["name"] for e in states} - REASONS
    if bad:
        fail(f"warp-state slices with unknown names {bad}")
    if not any(e["cat"] == "stall" for e in states):
        fail("no stall slices")
    counters = {(e["pid"], e["name"]) for e in ev if e["ph"] == "C"}
    for name in ("IPC", "memory instructions in flight", "DRAM requests"):
        if (0, name) not in counters:
            fail(f"no GPU counter track '{name}'")
    sampled = [e for e in ev if e["name"] == "trace sampled"]
    # Concurrent kernels (several kernel tracks): the run-level stats add up whole-GPU deltas
    # of overlapping kernels, so the exact counts below do not apply.
    concurrent = any(e["tid"] != 0 for e in kernels)
    if not sampled and not concurrent:
        issued = sum(e["dur"] for e in states if e["name"] == "issue")
        if issued != s["totals"]["warp_insts"]:
            fail(f"warp issue slices cover {issued} cycles, {s['totals']['warp_insts']} warp instructions issued")
        mem = sum(1 for e in xs if e.get("cat") == "mem")
        ldst = s["stats"]["gpu"]["sm_total"]["ldst"]
        want_mem = ldst["mem_insts"]["value"] - ldst["shared_accesses"]["value"]
        if mem != want_mem:
            fail(f"{mem} memory-access events, {want_mem} non-shared memory instructions executed")
    cycles = sum(k["cycles"] for k in s["kernels"])
    size = os.path.getsize(a.trace)
    note = f", sampled (stride {sampled[-1]['args']['stride']})" if sampled else ""
    print(f"trace OK: {len(ev)} events, {len(tracks)} tracks, {size} bytes, "
          f"{size / max(cycles, 1):.0f} bytes per simulated cycle{note}")
    if a.max_bytes_per_cycle is not None and size / max(cycles, 1) > a.max_bytes_per_cycle:
        fail(f"{size / cycles:.0f} bytes per cycle > {a.max_bytes_per_cycle}")
    if a.perfetto:
        perfetto_check(a.trace, len(xs))


if __name__ == "__main__":
    main()
