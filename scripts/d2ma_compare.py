#!/usr/bin/env python3
"""Baseline vs D2MA on the D2MA paper's Table 1 GPU (fermi-gtx480, GTO): runs each pair of
workload programs under `simtlab run --mode timing` and prints one JSON object per kernel pair
(cycles, warp instructions, the D2MA engine's counters summed over SMs).
  scripts/d2ma_compare.py BUILD_BIN_SIMTLAB BASELINE_DIR D2MA_DIR OUT.json [-j N] [--set k=v]...
--set applies to both runs of a pair; the D2MA run adds d2ma.enable=true. --only LUD1,DCT runs
those pairs only. For a program with several kernels the pair names the kernel compared.
--xfer measures the baselines' transfer regions (simtlab_xfer_begin markers, sm[i].xfer)."""
import argparse, json, subprocess, sys, os, tempfile
from concurrent.futures import ThreadPoolExecutor

PAIRS = [  # label, baseline program + args, D2MA program + args
    ("GAUSS", ["imfilter", "256", "gauss"], ["d2ma_imfilter", "256", "gauss"]),
    ("MEAN", ["imfilter", "256", "mean"], ["d2ma_imfilter", "256", "mean"]),
    ("SOBEL", ["imfilter", "256", "sobel"], ["d2ma_imfilter", "256", "sobel"]),
    ("SGEMV", ["sgemv", "7168", "512"], ["d2ma_sgemv", "7168", "512"]),
    ("MM", ["mm"], ["d2ma_mm"]),
    ("TRANS1", ["transpose", "1024", "coalesced"], ["d2ma_transpose", "1024", "coalesced"]),
    ("TRANS2", ["transpose", "1024", "diagonal"], ["d2ma_transpose", "1024", "diagonal"]),
    # Programs with several kernels: the fourth field names the kernel compared (every launch of
    # it is summed: cycles, warp instructions, and the per-launch stats).
    ("LUD1", ["lud"], ["d2ma_lud"], "lud_internal"),
    ("LUD2", ["lud"], ["d2ma_lud"], "lud_diagonal"),
    ("DCT", ["dct8x8"], ["d2ma_dct8x8"], "CUDAkernel1DCT"),
    ("DWT", ["dwt"], ["d2ma_dwt"], "dwtHaar1D"),
    ("PATH", ["pathfinder"], ["d2ma_pathfinder"], "dynproc_kernel"),
    ("FW", ["fwt"], ["d2ma_fwt"], "fwtBatch1Kernel"),
]
SETS = ["sm.scheduler=gto"]


def run(simtlab, prog, extra, kernel=None):
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    cmd = [simtlab, "run", "-q", "--mode", "timing", "--gpu", "fermi-gtx480", "--stats", path]
    for s in SETS + extra:
        cmd += ["--set", s]
    p = subprocess.run(cmd + ["--"] + prog, capture_output=True, text=True)
    ok = p.returncode == 0 and "PASSED" in p.stdout
    d = json.load(open(path)) if os.path.getsize(path) else {}
    os.unlink(path)
    r = {"ok": ok, "cmd": " ".join(cmd[1:] + ["--"] + [os.path.basename(prog[0])] + prog[1:])}
    if not d:
        return r
    if kernel is None:
        ks = d["kernels"][:1]
        gpus = [d["stats"]["gpu"]]
    else:  # every launch of this kernel, each with its own stats
        ks = [k for k in d["kernels"] if kernel in k["name"]]
        gpus = [k["stats"]["gpu"] for k in ks]
        r["launches"] = len(ks)
    r["cycles"] = sum(k["cycles"] for k in ks)
    r["warp_insts"] = sum(k["warp_insts"] for k in ks)
    r["occupancy"] = ks[0].get("occupancy")
    sms = [v for g in gpus for n, v in g.items() if n.startswith("sm[")]
    slots = sum(s["issue_slots"]["value"] for s in sms)
    stall = {}
    for s in sms:
        for lab, v in s["stall"]["values"].items():
            stall[lab] = stall.get(lab, 0) + v
    r["stall_share"] = {lab: round(v / max(1, slots), 4) for lab, v in stall.items()}
    if any("xfer" in s for s in sms):  # the baseline's marked transfer regions
        tot = {}
        for s in sms:
            for n, v in s.get("xfer", {}).items():
                if isinstance(v, dict) and isinstance(v.get("value"), int):
                    tot[n] = tot.get(n, 0) + v["value"]
        r["xfer"] = tot
        act = sum(s["active_cycles"]["value"] for s in sms)
        r["all_wait_share"] = round(tot.get("all_wait_cycles", 0) / max(1, act), 4)
    if any("d2ma" in s for s in sms):
        tot = {}
        for s in sms:
            for n, v in s.get("d2ma", {}).items():
                if isinstance(v, dict) and isinstance(v.get("value"), int):
                    tot[n] = tot.get(n, 0) + v["value"]
        r["d2ma"] = tot
        act = sum(s["active_cycles"]["value"] for s in sms)
        r["all_wait_share"] = round(tot.get("all_wait_cycles", 0) / max(1, act), 4)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("simtlab")
    ap.add_argument("base_dir")
    ap.add_argument("d2ma_dir")
    ap.add_argument("out")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--only", default="", help="comma-separated labels (default: all)")
    ap.add_argument("--xfer", action="store_true",
                    help="measure the baselines' marked transfer regions (d2ma.xfer_regions)")
    a = ap.parse_args()
    jobs = []
    for lab, b, d, *kn in PAIRS:
        if a.only and lab not in a.only.split(","):
            continue
        kn = kn[0] if kn else None
        base_set = list(a.set) + (["d2ma.xfer_regions=true"] if a.xfer else [])
        jobs.append((lab, "base", [os.path.join(a.base_dir, b[0])] + b[1:], base_set, kn))
        jobs.append((lab, "d2ma", [os.path.join(a.d2ma_dir, d[0])] + d[1:],
                     ["d2ma.enable=true"] + a.set, kn))
    with ThreadPoolExecutor(a.j) as ex:
        res = list(ex.map(lambda j: run(a.simtlab, j[2], j[3], j[4]), jobs))
    out = {}
    for (lab, kind, _, _, _), r in zip(jobs, res):
        out.setdefault(lab, {})[kind] = r
    for lab, v in out.items():
        if v["base"].get("cycles") and v["d2ma"].get("cycles"):
            v["speedup"] = round(v["base"]["cycles"] / v["d2ma"]["cycles"], 3)
            v["inst_ratio"] = round(v["d2ma"]["warp_insts"] / v["base"]["warp_insts"], 3)
        print(lab, v.get("speedup"), v.get("inst_ratio"), v["base"]["ok"], v["d2ma"]["ok"],
              file=sys.stderr)
    json.dump(out, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
