"""Stats into pandas, and running simtlab from code. Column names match `simtlab sweep
collect` (src/tools/sweep_cmd.cpp): fixed columns, `cfg:<key>`, `stat:<dotted path>`.

pandas is imported by the functions that return a DataFrame, when they are called; the others
(kernel_rows, interval_rows, hot_lines, flatten_stats, kernel_base_name, geomean, the readers in
statsfile) need only the standard library. A file that is missing, not valid or lacks a field
raises SimtlabDataError naming the file and the field."""
import csv
import math
import os
import re
import shutil
import subprocess
import tempfile
import warnings

from .errors import MissingFile, SimtlabDataError, SimtlabWarning, need
from .statsfile import (REASONS, attribution_tables, iter_kernels, read_json, read_plan,
                        read_status)

_HERE = os.path.dirname(os.path.abspath(__file__))


def _pd(feature):
    return need("pandas", feature)


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


def read_stats(stats_json):
    """A stats file (`simtlab run --stats`) as Python objects, checked: a JSON object with a
    "kernels" list of objects (SimtlabDataError naming the file otherwise)."""
    d = read_json(stats_json, "stats file")
    if not isinstance(d, dict):
        raise SimtlabDataError(f"{stats_json}: not a JSON object")
    ks = d.get("kernels")
    if not isinstance(ks, list):
        raise SimtlabDataError(f"{stats_json}: kernels: missing or not a list (not a stats file "
                               "of simtlab run)")
    for i, k in enumerate(ks):
        if not isinstance(k, dict):
            raise SimtlabDataError(f"{stats_json}: kernels[{i}]: not an object")
    return d


def _field(obj, key, types, where, default=None):
    """obj[key] when it has one of `types`; `default` when absent; SimtlabDataError naming
    `where`.key otherwise."""
    v = obj.get(key)
    if v is None:
        return default
    if not isinstance(v, types) or isinstance(v, bool) and bool not in types:
        raise SimtlabDataError(f"{where}.{key}: {v!r} is not "
                               f"{' or '.join(t.__name__ for t in types)}")
    return v


def _dims(k, key, where):
    d = _field(k, key, (list,), where, [])
    if d and (len(d) != 3 or not all(isinstance(x, int) for x in d)):
        raise SimtlabDataError(f"{where}.{key}: {d!r} is not three integers")
    return "x".join(map(str, d))


def kernel_rows(stats_json):
    """A run's stats JSON as one dict per kernel launch (the rows of load_run; standard
    library only)."""
    return _kernel_rows(read_stats(stats_json), stats_json)


def _kernel_rows(d, stats_json):
    rows = []
    for i, k in enumerate(d["kernels"]):
        w = f"{stats_json}: kernels[{i}]"
        name = _field(k, "name", (str,), w, "")
        occ = _field(k, "occupancy", (dict,), w, {})
        row = {
            "kernel": name, "kernel_base": kernel_base_name(name),
            "launch": _field(k, "index", (int,), w), "kernel_status": _field(k, "status", (str,), w),
            "grid": _dims(k, "grid", w), "block": _dims(k, "block", w),
            "regs_per_thread": _field(k, "regs_per_thread", (int,), w),
            "shared_bytes": _field(k, "static_shared_bytes", (int,), w, 0)
            + _field(k, "dynamic_shared_bytes", (int,), w, 0),
            "ctas_per_sm": occ.get("ctas_per_sm"), "cycles": _field(k, "cycles", (int,), w),
            "warp_insts": _field(k, "warp_insts", (int,), w),
            "thread_insts": _field(k, "thread_insts", (int,), w),
        }
        gpu = _field(_field(k, "stats", (dict,), w, {}), "gpu", (dict,), w + ".stats")
        if gpu:
            row.update({"stat:" + n: v for n, v in flatten_stats(gpu).items()})
        rows.append(row)
    return rows


def load_run(stats_json):
    """A run's stats JSON (`simtlab run --stats`) as one row per kernel launch (a DataFrame;
    needs pandas)."""
    pd = _pd("simtlab.load_run")
    d = read_stats(stats_json)
    df = pd.DataFrame(_kernel_rows(d, stats_json))
    cfg = d.get("config") if isinstance(d.get("config"), dict) else {}
    df.attrs["mode"] = d.get("mode")
    df.attrs["config"] = cfg
    df.attrs["preset"] = cfg.get("preset")
    return df


INTERVAL_SERIES = ("cycles", "active_cycles", "warp_insts", "thread_insts", "issue_slots",
                   "resident_warp_cycles", "l1d_accesses", "l1d_hits", "l2_accesses", "l2_hits",
                   "dram_reads", "dram_writes", "dram_requests", "dram_row_hits",
                   "dram_busy_cycles")


def interval_rows(stats_json):
    """The interval statistics (`--set stats.interval=N`) of a run's stats JSON as one dict per
    interval (the rows of load_intervals; standard library only)."""
    rows = []
    for ki, k in enumerate(read_stats(stats_json)["kernels"]):
        w = f"{stats_json}: kernels[{ki}].intervals"
        iv = k.get("intervals")
        if not iv:
            continue
        if not isinstance(iv, dict):
            raise SimtlabDataError(f"{w}: not an object")
        g = _field(iv, "gpu", (dict,), w)
        end = _field(iv, "end", (list,), w)
        cyc = _field(iv, "cycles", (list,), w)
        if g is None or end is None or cyc is None:
            missing = [f for f, v in (("gpu", g), ("end", end), ("cycles", cyc)) if v is None]
            raise SimtlabDataError(f"{w}: missing field '{missing[0]}'")
        series = {n: g[n] for n in INTERVAL_SERIES if n in g}
        series.update({"stall." + r: v for r, v in _field(g, "stall", (dict,), w + ".gpu",
                                                          {}).items()})
        for n, v in [("cycles", cyc)] + list(series.items()):
            if not isinstance(v, list) or len(v) != len(end):
                raise SimtlabDataError(f"{w}.{'' if n == 'cycles' else 'gpu.'}{n}: not a list "
                                       f"of {len(end)} values (one per interval)")
        for i, e in enumerate(end):
            row = {"kernel": k.get("name"), "launch": k.get("index"),
                   "end_cycle": k.get("start_cycle", 0) + e, "interval_cycles": cyc[i]}
            for name, v in series.items():
                row["sm_cycles" if name == "cycles" else name] = v[i]
            rows.append(row)
    return rows


def load_intervals(stats_json):
    """The interval statistics (`--set stats.interval=N`) of a run's stats JSON as one row per
    interval, kernels in launch order: `kernel`, `launch`, `end_cycle` (absolute core cycle at
    the interval's end), `interval_cycles`, the chip-wide series (sm_* for SM sums that share a
    name with the interval's own cycles: `sm_cycles`) and `stall.<reason>`. Empty when the run
    recorded none. Needs pandas."""
    pd = _pd("simtlab.load_intervals")
    return pd.DataFrame(interval_rows(stats_json))


def _sweep_parts(directory, rows_of, what, on_error):
    """rows_of(stats path) for the first repetition of every run of a sweep that has stats,
    with `workload` and `variant` added. A stats file that cannot be read is reported
    (on_error "warn": a warning naming it, and the run left out; "raise": SimtlabDataError)."""
    plan = read_plan(directory)
    rows = []
    for r in plan["runs"]:
        if r.get("rep", 0):
            continue
        path = os.path.join(directory, "runs", r["id"], "stats.json")
        if not os.path.exists(path):
            continue  # not run, or failed before writing stats: results.csv says which
        try:
            part = rows_of(path)
        except SimtlabDataError as e:
            if on_error == "raise":
                raise
            warnings.warn(f"{e}; the {what} of run {r['id']} are left out", SimtlabWarning,
                          stacklevel=3)
            continue
        rows += [dict(x, workload=r["workload"], variant=r["variant"]) for x in part]
    return rows


def load_sweep_intervals(directory, on_error="warn"):
    """load_intervals of every run of a sweep (first repetition), with `workload` and
    `variant` columns; empty when no run recorded intervals. A run whose stats file is
    unreadable is left out with a warning (on_error="raise": SimtlabDataError)."""
    pd = _pd("simtlab.load_sweep_intervals")
    return pd.DataFrame(_sweep_parts(directory, interval_rows, "intervals", on_error))


def hot_lines(stats_json, top=5):
    """The rows of load_hot_lines as dicts (standard library only). Reads the stats file one
    kernel at a time (statsfile.iter_kernels), so memory stays far below the file's size."""
    rows = []
    keys = ("name", "index", "attribution")
    for ki, k in enumerate(iter_kernels(stats_json, keys)):
        a = attribution_tables(k, f"{stats_json}: kernels[{ki}]")
        if a is None:
            continue
        src = any(a["lines"]["file"])
        t = a["lines"] if src else a["instructions"]
        total = sum(t["stall_total"]) or 1
        order = sorted(range(len(t["stall_total"])), key=lambda i: -t["stall_total"][i])[:top]
        for i in order:
            top_reason = max(REASONS,
                             key=lambda r: t["stall_" + r][i] if "stall_" + r in t else 0)
            rows.append({"kernel": k.get("name"), "launch": k.get("index"),
                         "file": os.path.basename(a["files"][t["file"][i]]) if src else "",
                         "line": t["line"][i] if src else t["ptx_line"][i],
                         "text": "" if src else t["text"][i].strip(),
                         "stall_total": t["stall_total"][i],
                         "share": t["stall_total"][i] / total, "execs": t["execs"][i],
                         "top_reason": top_reason, "l1_misses": t["l1_misses"][i],
                         "l2_misses": t["l2_misses"][i]})
    return rows


def load_hot_lines(stats_json, top=5):
    """The `top` source lines (or PTX instructions, for builds without -lineinfo) with the most
    stall slots per kernel of a run made with `--set sim.per_pc_stats=true`: one row per line
    with `kernel`, `launch`, `file`, `line`, `text` (PTX, for instruction rows), `stall_total`,
    `share` (of the kernel's attributed stall slots), `execs`, `top_reason`, `l1_misses` and
    `l2_misses`. Empty when the run has no per-instruction statistics. Needs pandas."""
    pd = _pd("simtlab.load_hot_lines")
    return pd.DataFrame(hot_lines(stats_json, top))


def load_sweep_hot_lines(directory, top=5, on_error="warn"):
    """load_hot_lines of every run of a sweep (first repetition) with `workload` and `variant`
    columns; empty when no run recorded per-instruction statistics. A run whose stats file is
    unreadable is left out with a warning (on_error="raise": SimtlabDataError)."""
    pd = _pd("simtlab.load_sweep_hot_lines")
    return pd.DataFrame(_sweep_parts(directory, lambda p: hot_lines(p, top), "hot lines",
                                     on_error))


# The columns `simtlab sweep collect` always writes.
SWEEP_COLUMNS = ("experiment", "workload", "variant", "baseline", "rep", "run_status", "preset",
                 "config_hash", "kernel", "kernel_base", "launch", "kernel_status", "grid",
                 "block", "regs_per_thread", "shared_bytes", "ctas_per_sm", "cycles",
                 "warp_insts", "thread_insts", "host_run_seconds", "host_kernel_seconds")


def sweep_rows(directory):
    """A sweep's results.csv as a header and rows of strings, checked (standard library only;
    `simtlab sweep collect DIR` writes it)."""
    path = os.path.join(directory, "results.csv")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        raise MissingFile(f"{path}: missing (run `simtlab sweep collect {directory}`)") from None
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise SimtlabDataError(f"{path}: cannot be read ({e})") from None
    if not rows:
        raise SimtlabDataError(f"{path}: empty file (no header)")
    header = rows[0]
    missing = [c for c in SWEEP_COLUMNS if c not in header]
    if missing:
        raise SimtlabDataError(f"{path}: no column '{missing[0]}' (not written by simtlab sweep "
                               "collect?)")
    for i, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise SimtlabDataError(f"{path}: row {i} has {len(row)} fields, the header "
                                   f"{len(header)}; the file is damaged or cut short")
    return header, rows[1:]


def load_sweep(directory, collect=False):
    """A sweep's tidy CSV (DIR/results.csv; `simtlab sweep collect` writes it first when it is
    missing or `collect` is true)."""
    pd = _pd("simtlab.load_sweep")
    path = os.path.join(directory, "results.csv")
    if collect or not os.path.exists(path):
        cmd = [find_simtlab(), "sweep", "collect", directory]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise SimtlabDataError(f"{path}: {' '.join(cmd)} failed: {p.stderr.strip()[-2000:]}")
    sweep_rows(directory)  # a damaged file or a missing column: an error naming it
    try:
        df = pd.read_csv(path, keep_default_na=True, dtype={"config_hash": str})
    except (ValueError, pd.errors.ParserError) as e:
        raise SimtlabDataError(f"{path}: cannot be read ({e})") from None
    if os.path.exists(os.path.join(directory, "plan.json")):
        df.attrs["plan"] = read_plan(directory)
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
    pd = _pd("simtlab.run")
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
    _pd("simtlab.sweep")  # before the sweep runs, not after
    cmd = [find_simtlab(), "sweep", "run", experiment, "--backend", backend, "-j", str(jobs)]
    if out:
        cmd += ["--out", out]
    cmd += list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-2000:]}")
    if out is None:
        yaml = need("yaml", "simtlab.sweep without out=")
        with open(experiment) as f:
            out = os.path.join("sweeps", yaml.safe_load(f)["experiment"])
    return load_sweep(out)


def per_run(df, metric="cycles"):
    """Kernel rows summed per (workload, variant): `metric` and the instruction counts (a
    DataFrame in, a DataFrame out)."""
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
