"""`simtlab correlate ROWS.csv`: simulated against measured, row by row.

Each row of ROWS.csv names a program run and what a real GPU measured for it; correlate runs
every row through the sweep machinery (`simtlab sweep run`, one experiment per preset and set of
overrides, timing mode), then prints and writes each row's error, the mean absolute percentage
error (MAPE) and the Pearson correlation of the values, and an HTML page with a log-log scatter
of simulated against measured. Standard library only.

ROWS.csv (a header line, then one row per measurement; `#` lines are comments):

  column     required  meaning
  name       yes       unique row name: letters, digits and _ . + = @ % , - (not starting . or -)
  command    yes       the program; a relative path is taken from the CSV's folder, and
                       `{build}/...` from the build tree (--build-dir; default: the tree of the
                       simtlab that runs)
  args       no        its arguments, shell-quoted (`shlex.split`)
  preset     yes       `--gpu` of the run: a preset name or file
  set        no        `--set` overrides separated by `;`  (`sm.num_schedulers=2;sim.its=false`)
  metric     no        what is compared (default `cycles`):
                         cycles         the sum of the kernels' cycles (those matching `kernel`)
                         stat:PATH      the sum over the kernels of the stat PATH
                                        (flattened like `sweep collect`, e.g. sm_total.warp_insts)
                         ubench:NAME    the value of the program's `ubench NAME VALUE UNIT` line
                         stdout:REGEX   group 1 of the first match of REGEX in the program's stdout
  kernel     no        a regular expression on kernel names (mangled or base) for cycles/stat:
  measured   yes       the measured value
  unit       no        its unit; `us`, `ms` or `s` with `clock_mhz` are converted to cycles
                       (cycles and stat: metrics only); anything else is compared as given
  clock_mhz  no        the clock the measurement ran at (for time units)
  fitted     no        `yes` if the model was fitted to this row: reported, marked, and left out
                       of the headline MAPE and correlation unless --include-fitted
  source     no        where the measured value comes from

Outputs under --out (default: correlate/<csv name>): sweeps/<group>/ (the sweeps, resumable),
correlation.csv (one row per input row), correlation.json (rows and summary) and report.html.
Exit status: 0 when every row ran and was compared, 1 when a run failed or a value was missing,
2 on a bad input file.
"""
import argparse
import csv
import html
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys

from .data import flatten_stats, kernel_base_name
from .errors import SimtlabDataError
from .statsfile import iter_kernels, read_json

NAME_RE = re.compile(r"[A-Za-z0-9_+=@%,][A-Za-z0-9_.+=@%,-]{0,127}$")
COLUMNS = ("name", "command", "args", "preset", "set", "metric", "kernel", "measured", "unit",
           "clock_mhz", "fitted", "source")
TIME_UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6}


class RowsError(SimtlabDataError):
    """A problem in the rows file: message `FILE:LINE: column C: what`."""


# ---- statistics ------------------------------------------------------------------------------

def pct_error(simulated, measured):
    """(simulated - measured) / measured in percent; None when either is missing or measured 0."""
    if simulated is None or measured is None or measured == 0:
        return None
    return 100.0 * (simulated - measured) / measured


def mape(pairs):
    """Mean absolute percentage error of (simulated, measured) pairs; None without pairs."""
    errs = [abs(pct_error(s, m)) for s, m in pairs if pct_error(s, m) is not None]
    return sum(errs) / len(errs) if errs else None


def pearson(xs, ys):
    """Pearson correlation coefficient; None with fewer than 2 points or no spread."""
    n = len(xs)
    if n < 2 or n != len(ys):
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def summary(rows, include_fitted=False):
    """MAPE, Pearson r (linear and of log10 values) and counts over the rows that were compared."""
    used = [r for r in rows if r["simulated"] is not None and r["measured_cycles"] is not None
            and (include_fitted or not r["fitted"])]
    pairs = [(r["simulated"], r["measured_cycles"]) for r in used]
    logs = [(math.log10(s), math.log10(m)) for s, m in pairs if s > 0 and m > 0]
    return {
        "rows": len(rows),
        "compared": len(used),
        "fitted_left_out": 0 if include_fitted else sum(1 for r in rows if r["fitted"]),
        "failed": sum(1 for r in rows if r["simulated"] is None),
        "mape_pct": mape(pairs),
        "pearson_r": pearson([m for _, m in pairs], [s for s, _ in pairs]),
        "pearson_r_log": pearson([m for _, m in logs], [s for s, _ in logs]),
        "within_10pct": sum(1 for s, m in pairs if abs(pct_error(s, m)) <= 10),
        "within_25pct": sum(1 for s, m in pairs if abs(pct_error(s, m)) <= 25),
    }


# ---- reading the rows -------------------------------------------------------------------------

def _number(text, where, what):
    try:
        v = float(text)
    except ValueError:
        raise RowsError(f"{where}: column {what}: expected a number, got {text!r}") from None
    if not math.isfinite(v):
        raise RowsError(f"{where}: column {what}: expected a finite number, got {text!r}")
    return v


def read_rows(path, build_dir):
    """The rows of a rows file, checked; RowsError naming file, line and column otherwise."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = [(i + 1, ln) for i, ln in enumerate(f.read().splitlines())
                     if ln.strip() and not ln.lstrip().startswith("#")]
    except FileNotFoundError:
        raise RowsError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RowsError(f"{path}: cannot be read ({e})") from None
    if not lines:
        raise RowsError(f"{path}: empty (a header line and at least one row expected)")
    reader = csv.reader([ln for _, ln in lines])
    header = [h.strip() for h in next(reader)]
    hline = lines[0][0]
    for h in header:
        if h not in COLUMNS:
            raise RowsError(f"{path}:{hline}: unknown column {h!r} (known: {', '.join(COLUMNS)})")
    for req in ("name", "command", "preset", "measured"):
        if req not in header:
            raise RowsError(f"{path}:{hline}: missing column {req!r}")
    if len(set(header)) != len(header):
        raise RowsError(f"{path}:{hline}: a column appears twice")
    base = os.path.dirname(os.path.abspath(path))
    rows, seen = [], {}
    for (lineno, _), fields in zip(lines[1:], reader):
        where = f"{path}:{lineno}"
        if len(fields) != len(header):
            raise RowsError(f"{where}: {len(fields)} fields, the header has {len(header)}")
        r = {h: v.strip() for h, v in zip(header, fields)}
        name = r["name"]
        if not NAME_RE.match(name):
            raise RowsError(f"{where}: column name: {name!r} is not a valid row name (letters, "
                            "digits and _ . + = @ % , -; not starting with . or -)")
        if name in seen:
            raise RowsError(f"{where}: column name: {name!r} also names the row at line "
                            f"{seen[name]}")
        seen[name] = lineno
        cmd = r["command"]
        if not cmd:
            raise RowsError(f"{where}: column command: empty")
        if cmd.startswith("{build}/"):
            cmd = os.path.join(build_dir, cmd[len("{build}/"):])
        elif "/" in cmd and not os.path.isabs(cmd):
            cmd = os.path.join(base, cmd)
        if "/" in cmd and not (os.path.isfile(cmd) and os.access(cmd, os.X_OK)):
            raise RowsError(f"{where}: column command: {cmd} is not an executable file")
        if "/" not in cmd and not shutil.which(cmd):
            raise RowsError(f"{where}: column command: {cmd!r} is not on PATH")
        try:
            args = shlex.split(r.get("args", ""))
        except ValueError as e:
            raise RowsError(f"{where}: column args: {e}") from None
        if not r["preset"]:
            raise RowsError(f"{where}: column preset: empty")
        sets = [s.strip() for s in r.get("set", "").split(";") if s.strip()]
        for s in sets:
            if "=" not in s:
                raise RowsError(f"{where}: column set: {s!r} is not key=value")
        metric = r.get("metric", "") or "cycles"
        if metric.startswith("stdout:"):
            try:
                rx = re.compile(metric[len("stdout:"):])
            except re.error as e:
                raise RowsError(f"{where}: column metric: bad regular expression ({e})") from None
            if rx.groups < 1:
                raise RowsError(f"{where}: column metric: the regular expression needs a group")
        elif not (metric == "cycles" or metric.startswith("stat:") and len(metric) > 5
                  or metric.startswith("ubench:") and len(metric) > 7):
            raise RowsError(f"{where}: column metric: {metric!r} is not cycles, stat:PATH, "
                            "ubench:NAME or stdout:REGEX")
        kernel = r.get("kernel", "")
        if kernel:
            try:
                re.compile(kernel)
            except re.error as e:
                raise RowsError(f"{where}: column kernel: bad regular expression ({e})") from None
        measured = _number(r["measured"], where, "measured")
        unit = r.get("unit", "") or ""
        clock = r.get("clock_mhz", "")
        clock = _number(clock, where, "clock_mhz") if clock else None
        if clock is not None and clock <= 0:
            raise RowsError(f"{where}: column clock_mhz: must be positive")
        measured_cycles = measured
        if unit in TIME_UNITS:
            if metric != "cycles" and not metric.startswith("stat:"):
                raise RowsError(f"{where}: column unit: a time ({unit}) is converted to cycles "
                                "only for the cycles and stat: metrics")
            if clock is None:
                raise RowsError(f"{where}: column clock_mhz: needed to convert {unit} to cycles")
            measured_cycles = measured * TIME_UNITS[unit] * clock
        fitted = r.get("fitted", "").lower()
        if fitted not in ("", "yes", "no", "true", "false", "1", "0"):
            raise RowsError(f"{where}: column fitted: expected yes or no, got {fitted!r}")
        rows.append({"name": name, "line": lineno, "command": cmd, "args": args,
                     "preset": r["preset"], "set": sets, "metric": metric, "kernel": kernel,
                     "measured": measured, "unit": unit, "clock_mhz": clock,
                     "measured_cycles": measured_cycles,
                     "fitted": fitted in ("yes", "true", "1"), "source": r.get("source", ""),
                     "simulated": None, "error_pct": None, "status": "pending", "why": ""})
    if not rows:
        raise RowsError(f"{path}: no rows after the header")
    return rows


# ---- running ------------------------------------------------------------------------------------

def groups_of(rows):
    """Rows grouped by (preset, overrides): one experiment each, named after its preset."""
    groups = {}
    for r in rows:
        groups.setdefault((r["preset"], tuple(r["set"])), []).append(r)
    out, used = [], set()
    for (preset, sets), rs in groups.items():
        stem = re.sub(r"[^A-Za-z0-9_+=@%,-]", "_", os.path.splitext(os.path.basename(preset))[0])
        stem = stem.lstrip("-_") or "preset"
        name, k = stem, 2
        while name in used:
            name, k = f"{stem}_{k}", k + 1
        used.add(name)
        out.append((name, preset, list(sets), rs))
    return out


def experiment_yaml(name, preset, sets, rows, timeout):
    """An experiment file (JSON scalars are valid YAML) with one command workload per row."""
    q = json.dumps
    lines = [f"experiment: {q('correlate-' + name)}", f"gpu: {q(preset)}", "mode: timing",
             f"timeout: {timeout:g}", "baseline: sim", "variants:", "  sim: {}"]
    if sets:
        lines.append("set: [" + ", ".join(q(s) for s in sets) + "]")
    lines.append("workloads:")
    for r in rows:
        lines.append(f"  - name: {q(r['name'])}")
        lines.append("    command: [" + ", ".join(q(a) for a in [r["command"]] + r["args"]) + "]")
    return "\n".join(lines) + "\n"


def simulated_value(row, run_dir):
    """The row's metric from its run directory; raises SimtlabDataError when it is missing."""
    metric = row["metric"]
    if metric.startswith("ubench:") or metric.startswith("stdout:"):
        path = os.path.join(run_dir, "stdout.txt")
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except FileNotFoundError:
            raise SimtlabDataError(f"{path}: missing (the program's output)") from None
        if metric.startswith("ubench:"):
            want = metric[len("ubench:"):]
            for line in text.splitlines():
                f = line.split()
                if len(f) == 4 and f[0] == "ubench" and f[1] == want:
                    return float(f[2])
            raise SimtlabDataError(f"{path}: no line 'ubench {want} VALUE UNIT'")
        m = re.search(metric[len("stdout:"):], text)
        if not m:
            raise SimtlabDataError(f"{path}: no match of {metric[len('stdout:'):]!r}")
        try:
            return float(m.group(1))
        except ValueError:
            raise SimtlabDataError(f"{path}: {m.group(1)!r} is not a number") from None
    path = os.path.join(run_dir, "stats.json")
    rx = re.compile(row["kernel"]) if row["kernel"] else None
    keys = ["name", "cycles"] + (["stats"] if metric.startswith("stat:") else [])
    total, n = 0.0, 0
    for k in iter_kernels(path, keys):
        name = k.get("name", "")
        if rx and not (rx.search(name) or rx.search(kernel_base_name(name))):
            continue
        n += 1
        if metric == "cycles":
            total += float(k.get("cycles", 0))
        else:
            stat = metric[len("stat:"):]
            flat = flatten_stats(k.get("stats", {}).get("gpu", {}))
            if stat not in flat:
                raise SimtlabDataError(f"{path}: kernel {name}: no stat {stat!r}")
            total += float(flat[stat])
    if n == 0:
        raise SimtlabDataError(f"{path}: no kernel" +
                               (f" matches {row['kernel']!r}" if row["kernel"] else ""))
    return total


def find_simtlab_binary():
    env = os.environ.get("SIMTLAB")
    if env and os.access(env, os.X_OK):
        return env
    from .data import find_simtlab
    return find_simtlab()


def run_all(rows, out, simtlab, jobs, timeout):
    """Runs every group's sweep (resumable) and fills each row's simulated value and status."""
    for name, preset, sets, rs in groups_of(rows):
        gdir = os.path.join(out, "sweeps", name)
        os.makedirs(os.path.join(out, "experiments"), exist_ok=True)
        exp = os.path.join(out, "experiments", name + ".yaml")
        with open(exp, "w", encoding="utf-8") as f:
            f.write(experiment_yaml(name, preset, sets, rs, timeout))
        cmd = [simtlab, "sweep", "run", exp, "--out", gdir, "-j", str(jobs)]
        print(f"simtlab correlate: {len(rs)} rows on {preset}"
              f"{' with ' + ' '.join(sets) if sets else ''}", file=sys.stderr, flush=True)
        p = subprocess.run(cmd)
        if p.returncode not in (0, 1):  # 1: some runs failed (reported per row below)
            raise SimtlabDataError(f"`{' '.join(cmd)}` failed with exit status {p.returncode}")
        for r in rs:
            run_dir = os.path.join(gdir, "runs", r["name"], "sim")
            try:
                st = read_json(os.path.join(run_dir, "status.json"), "the run's status")
            except SimtlabDataError as e:
                r["status"], r["why"] = "failed", str(e)
                continue
            if st.get("status") != "passed":
                r["status"] = "failed"
                r["why"] = f"run {st.get('status')}: {st.get('reason', '')}"
                continue
            try:
                r["simulated"] = simulated_value(r, run_dir)
            except SimtlabDataError as e:
                r["status"], r["why"] = "no value", str(e)
                continue
            r["status"] = "compared"
            r["error_pct"] = pct_error(r["simulated"], r["measured_cycles"])


# ---- reporting --------------------------------------------------------------------------------

def fmt(v, spec=".4g"):
    return "" if v is None else format(v, spec)


def text_table(rows, s):
    out = [f"{'row':28} {'preset':14} {'measured':>12} {'simulated':>12} {'error %':>8}  note"]
    for r in rows:
        note = ("fitted" if r["fitted"] else "") + (r["why"] if r["status"] != "compared" else "")
        out.append(f"{r['name'][:28]:28} {os.path.basename(r['preset'])[:14]:14} "
                   f"{fmt(r['measured_cycles']):>12} {fmt(r['simulated']):>12} "
                   f"{fmt(r['error_pct'], '+.1f'):>8}  {note}")
    left = f" ({s['fitted_left_out']} fitted rows left out)" if s["fitted_left_out"] else ""
    out.append(f"{s['compared']} of {s['rows']} rows compared{left}: "
               f"MAPE {fmt(s['mape_pct'], '.1f')}%, Pearson r {fmt(s['pearson_r'], '.3f')} "
               f"(log10 values: {fmt(s['pearson_r_log'], '.3f')}); "
               f"within 10%: {s['within_10pct']}, within 25%: {s['within_25pct']}")
    return "\n".join(out)


def svg_scatter(rows, size=460, pad=56):
    """A log-log scatter of simulated against measured, with y = x and the ±25% band."""
    pts = [(r["measured_cycles"], r["simulated"], r) for r in rows
           if r["simulated"] and r["measured_cycles"] and r["simulated"] > 0
           and r["measured_cycles"] > 0]
    if not pts:
        return "<p>No row has both values to plot.</p>"
    vals = [v for m, s, _ in pts for v in (m, s)]
    lo = math.floor(math.log10(min(vals) / 1.3))
    hi = math.ceil(math.log10(max(vals) * 1.3))
    if hi == lo:
        hi = lo + 1
    span = size - 2 * pad

    def x(v):
        return pad + (math.log10(v) - lo) / (hi - lo) * span

    def y(v):
        return size - pad - (math.log10(v) - lo) / (hi - lo) * span

    e = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
         f'viewBox="0 0 {size} {size}" font-family="sans-serif" font-size="11">',
         f'<rect x="{pad}" y="{pad}" width="{span}" height="{span}" fill="none" stroke="#888"/>']
    for d in range(lo, hi + 1):
        v = 10.0 ** d
        e.append(f'<line x1="{x(v):.1f}" y1="{size - pad}" x2="{x(v):.1f}" y2="{pad}" '
                 'stroke="#eee"/>')
        e.append(f'<line x1="{pad}" y1="{y(v):.1f}" x2="{size - pad}" y2="{y(v):.1f}" '
                 'stroke="#eee"/>')
        e.append(f'<text x="{x(v):.1f}" y="{size - pad + 14}" text-anchor="middle">1e{d}</text>')
        e.append(f'<text x="{pad - 6}" y="{y(v) + 4:.1f}" text-anchor="end">1e{d}</text>')
    a, b = 10.0 ** lo, 10.0 ** hi
    for f, dash in ((1.0, ""), (1.25, ' stroke-dasharray="4 3"'), (0.75, ' stroke-dasharray="4 3"')):
        e.append(f'<line x1="{x(a):.1f}" y1="{y(a * f):.1f}" x2="{x(b):.1f}" y2="{y(b * f):.1f}" '
                 f'stroke="#999"{dash}/>')
    for m, s, r in pts:
        color = "#c0392b" if r["fitted"] else "#2471a3"
        e.append(f'<circle cx="{x(m):.1f}" cy="{y(s):.1f}" r="4" fill="{color}" '
                 f'fill-opacity="0.75"><title>{html.escape(r["name"])}: measured '
                 f'{m:.4g}, simulated {s:.4g} ({r["error_pct"]:+.1f}%)</title></circle>')
    e.append(f'<text x="{size / 2}" y="{size - 14}" text-anchor="middle">measured</text>')
    e.append(f'<text x="16" y="{size / 2}" text-anchor="middle" '
             f'transform="rotate(-90 16 {size / 2})">simulated</text>')
    e.append("</svg>")
    return "\n".join(e)


def html_report(rows, s, title):
    esc = html.escape
    head = ["row", "preset", "metric", "measured", "unit", "measured (cycles)", "simulated",
            "error %", "fitted", "status", "source"]
    body = []
    for r in rows:
        cells = [r["name"], os.path.basename(r["preset"]), r["metric"], fmt(r["measured"]),
                 r["unit"], fmt(r["measured_cycles"]), fmt(r["simulated"]),
                 fmt(r["error_pct"], "+.1f"), "yes" if r["fitted"] else "",
                 r["status"] + (": " + r["why"] if r["why"] else ""), r["source"]]
        body.append("<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in cells) + "</tr>")
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{esc(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px;font-size:13px}}
td:nth-child(n+4){{text-align:right}}</style></head><body>
<h1>{esc(title)}</h1>
<p>{s['compared']} of {s['rows']} rows compared{'' if not s['fitted_left_out'] else
 f" ({s['fitted_left_out']} fitted rows, red, left out of the figures)"}:
<b>MAPE {fmt(s['mape_pct'], '.1f')}%</b>, Pearson r {fmt(s['pearson_r'], '.3f')}
(of log10 values {fmt(s['pearson_r_log'], '.3f')}); within 10%: {s['within_10pct']},
within 25%: {s['within_25pct']}. Dashed lines: ±25%.</p>
{svg_scatter(rows)}
<table><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr>
{chr(10).join(body)}
</table></body></html>
"""


def write_outputs(rows, s, out, title):
    os.makedirs(out, exist_ok=True)
    cols = ["name", "preset", "set", "metric", "kernel", "measured", "unit", "clock_mhz",
            "measured_cycles", "simulated", "error_pct", "fitted", "status", "why", "source"]
    tmp = os.path.join(out, ".correlation.csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([";".join(r[c]) if c == "set" else
                        ("yes" if r[c] else "no") if c == "fitted" else
                        "" if r[c] is None else r[c] for c in cols])
    os.replace(tmp, os.path.join(out, "correlation.csv"))
    with open(os.path.join(out, "correlation.json"), "w", encoding="utf-8") as f:
        json.dump({"summary": s, "rows": rows}, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "report.html"), "w", encoding="utf-8") as f:
        f.write(html_report(rows, s, title))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="simtlab correlate", description=__doc__.split("\n")[0])
    ap.add_argument("rows", help="the rows file (CSV; format: simtlab correlate --help-format)")
    ap.add_argument("--out", help="output folder (default: correlate/<rows file name>)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="runs at a time")
    ap.add_argument("--build-dir", help="what {build} stands for (default: the tree of simtlab)")
    ap.add_argument("--timeout", type=float, default=0, help="seconds per run (0: none)")
    ap.add_argument("--include-fitted", action="store_true",
                    help="count fitted rows in MAPE and correlation")
    ap.add_argument("--no-run", action="store_true",
                    help="only compare what earlier runs under --out left")
    ap.add_argument("--help-format", action="store_true", help="describe the rows file")
    if argv is None:
        argv = sys.argv[1:]
    if "--help-format" in argv:
        print(__doc__)
        return 0
    a = ap.parse_args(argv)
    if a.jobs < 1:
        ap.error("-j must be at least 1")
    try:
        simtlab = find_simtlab_binary()
        build = a.build_dir or os.path.dirname(os.path.dirname(os.path.realpath(simtlab)))
        rows = read_rows(a.rows, build)
    except SimtlabDataError as e:
        print(f"simtlab correlate: error: {e}", file=sys.stderr)
        return 2
    out = a.out or os.path.join("correlate", os.path.splitext(os.path.basename(a.rows))[0])
    try:
        if a.no_run:
            for name, _, _, rs in groups_of(rows):
                for r in rs:
                    run_dir = os.path.join(out, "sweeps", name, "runs", r["name"], "sim")
                    try:
                        r["simulated"] = simulated_value(r, run_dir)
                        r["status"] = "compared"
                        r["error_pct"] = pct_error(r["simulated"], r["measured_cycles"])
                    except SimtlabDataError as e:
                        r["status"], r["why"] = "no value", str(e)
        else:
            run_all(rows, out, simtlab, a.jobs, a.timeout)
    except SimtlabDataError as e:
        print(f"simtlab correlate: error: {e}", file=sys.stderr)
        return 1
    s = summary(rows, a.include_fitted)
    print(text_table(rows, s))
    write_outputs(rows, s, out, f"simtlab correlate: {os.path.basename(a.rows)}")
    print(f"simtlab correlate: {out}/correlation.csv, {out}/report.html", file=sys.stderr)
    return 0 if s["failed"] == 0 and all(r["status"] == "compared" for r in rows) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(1)
