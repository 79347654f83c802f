#!/usr/bin/env python3
"""Check a simtlab stats JSON file: schema and invariants.

Usage: check_stats.py STATS.json
 - top-level sections: simtlab, mode, config (preset, hash, values), kernels, totals, host
 - every stat leaf has a unit; per kernel, the per-SM warp/thread instructions sum to the
   kernel's totals and to gpu.sm_total
 - every cache: hits + misses + hit_reserved (MSHR merges) + bypasses == accesses (per kind)
 - every SM: stall reasons sum to issue slots
 - totals equal the sum over kernels
Exits 1 with a message on the first violation.
"""
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def leaves(tree, path=""):
    for k, v in tree.items():
        if not isinstance(v, dict):
            continue
        p = f"{path}.{k}" if path else k
        if "unit" in v and ("value" in v or "values" in v or "count" in v):
            yield p, v
        else:
            yield from leaves(v, p)


def is_cache(g):
    return all(k in g for k in ("accesses", "hits", "misses"))


def caches(tree, path=""):
    for k, v in tree.items():
        if not isinstance(v, dict) or "unit" in v:
            continue
        p = f"{path}.{k}" if path else k
        if is_cache(v):
            yield p, v
        yield from caches(v, p)


def main():
    j = json.load(open(sys.argv[1]))
    for key in ("simtlab", "mode", "config", "kernels", "totals", "host"):
        if key not in j:
            fail(f"missing top-level key '{key}'")
    for key in ("preset", "hash", "values"):
        if key not in j["config"]:
            fail(f"config lacks '{key}'")
    if len(j["config"]["hash"]) != 16:
        fail("config hash is not 16 hex digits")
    tw = tt = tc = 0
    for k in j["kernels"]:
        tw += k["warp_insts"]
        tt += k["thread_insts"]
        tc += k["cycles"]
        if j["mode"] != "timing":
            continue
        g = k["stats"]["gpu"]
        for p, leaf in leaves(g, "gpu"):
            if not isinstance(leaf.get("unit"), str):
                fail(f"{p} has no unit")
        sms = {n: v for n, v in g.items() if n.startswith("sm[")}
        if not sms:
            fail("no sm[i] groups in a timing-mode kernel")
        sw = sum(v["warp_insts"]["value"] for v in sms.values())
        st = sum(v["thread_insts"]["value"] for v in sms.values())
        if sw != k["warp_insts"] or st != k["thread_insts"]:
            fail(f"kernel {k['name']}: per-SM instructions {sw}/{st} != kernel totals {k['warp_insts']}/{k['thread_insts']}")
        if g["sm_total"]["warp_insts"]["value"] != sw:
            fail("gpu.sm_total.warp_insts != sum of sm[i].warp_insts")
        for n, v in sms.items():
            stalls = sum(v["stall"]["values"].values())
            if stalls != v["issue_slots"]["value"]:
                fail(f"{n}: stall reasons sum to {stalls}, issue slots {v['issue_slots']['value']}")
            if v["stall"]["values"]["issued"] != v["warp_insts"]["value"]:
                fail(f"{n}: issued slots != warp instructions")
        for p, c in caches(g, "gpu"):
            a = c["accesses"]
            for kind, n in a["values"].items():
                parts = sum(c[x]["values"][kind] for x in ("hits", "misses", "hit_reserved", "bypasses") if x in c)
                if parts != n:
                    fail(f"{p}: {kind}: hits+misses+hit_reserved+bypasses = {parts} != accesses {n}")
    t = j["totals"]
    if (t["warp_insts"], t["thread_insts"]) != (tw, tt):
        fail("total instructions differ from the sum over kernels")
    # Elapsed cycles: the union of the kernels' [start, end) intervals (kernels of different
    # streams may overlap).
    iv = sorted((k["start_cycle"], k["end_cycle"]) for k in j["kernels"])
    covered, cur = 0, None
    for a, b in iv:
        if cur and a <= cur[1]:
            cur[1] = max(cur[1], b)
        else:
            if cur:
                covered += cur[1] - cur[0]
            cur = [a, b]
    if cur:
        covered += cur[1] - cur[0]
    if t["cycles"] != covered:
        fail(f"totals.cycles {t['cycles']} != elapsed kernel time {covered}")
    if covered > tc:
        fail("elapsed kernel time exceeds the sum of kernel cycles")
    if t["launches"] != len(j["kernels"]):
        fail("totals.launches != number of kernels")
    print(f"stats OK: {len(j['kernels'])} kernel(s), {tw} warp instructions, {tc} cycles")


if __name__ == "__main__":
    main()
