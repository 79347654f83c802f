"""Stats into pandas, and running simtlab from code. Column names match `simtlab sweep
collect` (src/tools/sweep_cmd.cpp): fixed columns, `cfg:<key>`, `stat:<dotted path>`."""
import json
import math
import os
import re
import shutil
import subprocess
import tempfile

import pandas as pd

_HERE = os.path.dirname(os.path.abspath(__file__))


def find_simtlab():
    """The simtlab binary: $SIMTLAB, `simtlab` on PATH, or build/bin/simtlab of the source tree
    this package sits in."""
    env = os.environ.get("SIMTLAB")
    if env:
        return env
    on_path = shutil.which("simtlab")
    if on_path:
        return on_path
    tree = os.path.normpath(os.path.join(_HERE, "..", "..", "build", "bin", "simtlab"))
    if os.access(tree, os.X_OK):
        return tree
    raise FileNotFoundError("simtlab binary not found: set SIMTLAB=/path/to/simtlab")


def kernel_base_name(symbol):
    """'_Z14calculate_tempiPf' -> 'calculate_temp' (as the C++ side does; unmangled names stay)."""
    if not symbol.startswith("_Z"):
        return symbol
    i = 2
    nested = symbol[i:i + 1] == "N"
    if nested:
        i += 1
        while i < len(symbol) and symbol[i] in "KVr":
            i += 1
    elif symbol[i:i + 2] == "L_":
        i += 2
    elif symbol[i:i + 1] == "L":
        i += 1
    name = None
    while True:
        m = re.match(r"(\d+)", symbol[i:])
        if not m:
            break
        n = int(m.group(1))
        start = i + len(m.group(1))
        if start + n > len(symbol):
            return symbol
        name = symbol[start:start + n]
        i = start + n
        if not nested or i >= len(symbol) or symbol[i] in "EI":
            break
    return name or symbol


def flatten_stats(node, path="", out=None):
    """Every scalar of a stats tree by dotted path, skipping per-instance subtrees (sm[3], ...);
    a stat node gives its value (or total) and, for a vector stat, each named value."""
    out = {} if out is None else out
    if not isinstance(node, dict):
        if isinstance(node, (int, float)) and not isinstance(node, bool):
            out[path] = float(node)
        return out
    for k in ("value", "total"):
        if isinstance(node.get(k), (int, float)) and not isinstance(node.get(k), bool):
            out[path] = float(node[k])
            for vk, vv in (node.get("values") or {}).items():
                if isinstance(vv, (int, float)):
                    out[f"{path}.{vk}"] = float(vv)
            return out
    for k, v in node.items():
        if "[" in k or k in ("desc", "unit", "formula"):
            continue
        flatten_stats(v, f"{path}.{k}" if path else k, out)
    return out


def load_run(stats_json):
    """A run's stats JSON (`simtlab run --stats`) as one row per kernel launch."""
    with open(stats_json) as f:
        d = json.load(f)
    rows = []
    for k in d.get("kernels", []):
        occ = k.get("occupancy") or {}
        row = {
            "kernel": k.get("name"), "kernel_base": kernel_base_name(k.get("name", "")),
            "launch": k.get("index"), "kernel_status": k.get("status"),
            "grid": "x".join(map(str, k.get("grid", []))),
            "block": "x".join(map(str, k.get("block", []))),
            "regs_per_thread": k.get("regs_per_thread"),
            "shared_bytes": k.get("static_shared_bytes", 0) + k.get("dynamic_shared_bytes", 0),
            "ctas_per_sm": occ.get("ctas_per_sm"), "cycles": k.get("cycles"),
            "warp_insts": k.get("warp_insts"), "thread_insts": k.get("thread_insts"),
        }
        gpu = (k.get("stats") or {}).get("gpu")
        if gpu:
            row.update({"stat:" + n: v for n, v in flatten_stats(gpu).items()})
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs["mode"] = d.get("mode")
    df.attrs["config"] = d.get("config", {})
    df.attrs["preset"] = d.get("config", {}).get("preset")
    return df


INTERVAL_SERIES = ("cycles", "active_cycles", "warp_insts", "thread_insts", "issue_slots",
                   "resident_warp_cycles", "l1d_accesses", "l1d_hits", "l2_accesses", "l2_hits",
                   "dram_reads", "dram_writes", "dram_requests", "dram_row_hits",
                   "dram_busy_cycles")


def load_intervals(stats_json):
    """The interval statistics (`--set stats.interval=N`) of a run's stats JSON as one row per
    interval, kernels in launch order: `kernel`, `launch`, `end_cycle` (absolute core cycle at
    the interval's end), `interval_cycles`, the chip-wide series (sm_* for SM sums that share a
    name with the interval's own cycles: `sm_cycles`) and `stall.<reason>`. Empty when the run
    recorded none."""
    with open(stats_json) as f:
        d = json.load(f)
    rows = []
    for k in d.get("kernels", []):
        iv = k.get("intervals")
        if not iv:
            continue
        g = iv["gpu"]
        for i, end in enumerate(iv["end"]):
            row = {"kernel": k.get("name"), "launch": k.get("index"),
                   "end_cycle": k.get("start_cycle", 0) + end, "interval_cycles": iv["cycles"][i]}
            for name in INTERVAL_SERIES:
                if name in g:
                    row["sm_cycles" if name == "cycles" else name] = g[name][i]
            for reason, v in g.get("stall", {}).items():
                row["stall." + reason] = v[i]
            rows.append(row)
    return pd.DataFrame(rows)


def load_sweep_intervals(directory):
    """load_intervals of every run of a sweep (first repetition), with `workload` and
    `variant` columns; empty when no run recorded intervals."""
    plan_path = os.path.join(directory, "plan.json")
    if not os.path.exists(plan_path):
        return pd.DataFrame()
    with open(plan_path) as f:
        plan = json.load(f)
    parts = []
    for r in plan.get("runs", []):
        if r.get("rep", 0):
            continue
        path = os.path.join(directory, "runs", r["id"], "stats.json")
        if not os.path.exists(path):
            continue
        t = load_intervals(path)
        if not t.empty:
            parts.append(t.assign(workload=r["workload"], variant=r["variant"]))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def load_hot_lines(stats_json, top=5):
    """The `top` source lines (or PTX instructions, for builds without -lineinfo) with the most
    stall slots per kernel of a run made with `--set sim.per_pc_stats=true`: one row per line
    with `kernel`, `launch`, `file`, `line`, `text` (PTX, for instruction rows), `stall_total`,
    `share` (of the kernel's attributed stall slots), `execs`, `top_reason`, `l1_misses` and
    `l2_misses`. Empty when the run has no per-instruction statistics."""
    with open(stats_json) as f:
        d = json.load(f)
    reasons = ["mem_pipeline", "collector_full", "unit_busy", "scoreboard", "barrier",
               "control", "fetch", "throttled"]
    rows = []
    for k in d.get("kernels", []):
        a = k.get("attribution")
        if not a:
            continue
        src = any(a["lines"]["file"])
        t = a["lines"] if src else a["instructions"]
        total = sum(t["stall_total"]) or 1
        order = sorted(range(len(t["stall_total"])), key=lambda i: -t["stall_total"][i])[:top]
        for i in order:
            top_reason = max(reasons, key=lambda r: t.get("stall_" + r, [0] * (i + 1))[i])
            rows.append({"kernel": k.get("name"), "launch": k.get("index"),
                         "file": os.path.basename(a["files"][t["file"][i]]) if src else "",
                         "line": t["line"][i] if src else t["ptx_line"][i],
                         "text": "" if src else t["text"][i].strip(),
                         "stall_total": t["stall_total"][i],
                         "share": t["stall_total"][i] / total, "execs": t["execs"][i],
                         "top_reason": top_reason, "l1_misses": t["l1_misses"][i],
                         "l2_misses": t["l2_misses"][i]})
    return pd.DataFrame(rows)


def load_sweep_hot_lines(directory, top=5):
    """load_hot_lines of every run of a sweep (first repetition) with `workload` and `variant`
    columns; empty when no run recorded per-instruction statistics."""
    plan_path = os.path.join(directory, "plan.json")
    if not os.path.exists(plan_path):
        return pd.DataFrame()
    with open(plan_path) as f:
        plan = json.load(f)
    parts = []
    for r in plan.get("runs", []):
        if r.get("rep", 0):
            continue
        path = os.path.join(directory, "runs", r["id"], "stats.json")
        if not os.path.exists(path):
            continue
        t = load_hot_lines(path, top)
        if not t.empty:
            parts.append(t.assign(workload=r["workload"], variant=r["variant"]))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def load_sweep(directory, collect=False):
    """A sweep's tidy CSV (DIR/results.csv; `simtlab sweep collect` writes it first when it is
    missing or `collect` is true)."""
    path = os.path.join(directory, "results.csv")
    if collect or not os.path.exists(path):
        subprocess.run([find_simtlab(), "sweep", "collect", directory], check=True,
                       stderr=subprocess.DEVNULL)
    df = pd.read_csv(path, keep_default_na=True, dtype={"config_hash": str})
    plan_path = os.path.join(directory, "plan.json")
    if os.path.exists(plan_path):
        with open(plan_path) as f:
            df.attrs["plan"] = json.load(f)
    return df


def run(program, *args, gpu="fermi-gtx480", sets=(), mode=None, stats=None, check=True,
        simtlab=None):
    """Run `program args` under simtlab; returns its kernels (load_run). The program's stdout
    and stderr are in .attrs['stdout'] / ['stderr']; with check, a non-zero exit raises."""
    cmd = [simtlab or find_simtlab(), "run", "--gpu", gpu, "--no-progress"]
    for s in sets:
        cmd += ["--set", s]
    if mode:
        cmd += ["--mode", mode]
    tmp = None
    if stats is None:
        tmp = tempfile.mkdtemp(prefix="simtlab-py-")
        stats = os.path.join(tmp, "stats.json")
    cmd += ["--stats", stats, "--", program, *map(str, args)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        if check and p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-2000:]}")
        df = load_run(stats) if os.path.exists(stats) else pd.DataFrame()
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    df.attrs["stdout"], df.attrs["stderr"], df.attrs["returncode"] = p.stdout, p.stderr, p.returncode
    return df


def sweep(experiment, out=None, backend="local", jobs=1, extra=(), check=True):
    """Run (or resume) a sweep and return its tidy CSV as a DataFrame."""
    cmd = [find_simtlab(), "sweep", "run", experiment, "--backend", backend, "-j", str(jobs)]
    if out:
        cmd += ["--out", out]
    cmd += list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-2000:]}")
    if out is None:
        import yaml
        with open(experiment) as f:
            out = os.path.join("sweeps", yaml.safe_load(f)["experiment"])
    return load_sweep(out)


def per_run(df, metric="cycles"):
    """Kernel rows summed per (workload, variant): `metric` and the instruction counts."""
    cols = [c for c in (metric, "warp_insts", "thread_insts") if c in df.columns]
    g = df.groupby(["workload", "variant"], sort=False)[list(dict.fromkeys(cols))].sum()
    return g.reset_index()


def geomean(values):
    vals = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    if not vals:
        return float("nan")
    if any(v <= 0 for v in vals):
        raise ValueError("geomean needs positive values")
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def speedups(df, baseline=None, metric="cycles"):
    """Speedup of every variant over the baseline per workload (baseline metric / variant
    metric, summed over the workload's kernels), with a final 'geomean' row. Only workloads
    whose runs all passed count."""
    if baseline is None:
        base_rows = df[df["baseline"] == 1] if "baseline" in df.columns else df.iloc[0:0]
        if base_rows.empty:
            raise ValueError("no baseline: pass baseline=VARIANT")
        baseline = base_rows["variant"].iloc[0]
    ok = df
    if "run_status" in df.columns:
        bad = set(df.loc[df["run_status"] != "passed", "workload"])
        ok = df[~df["workload"].isin(bad)]
    t = per_run(ok, metric).pivot(index="workload", columns="variant", values=metric)
    order = list(dict.fromkeys(ok["variant"]))
    t = t[[v for v in order if v in t.columns]]
    out = t.rdiv(t[baseline], axis=0)
    out.loc["geomean"] = [geomean(out[c]) for c in out.columns]
    return out
