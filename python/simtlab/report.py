"""`python3 -m simtlab.report SWEEP_DIR [-o FILE]` (also `simtlab report`): one self-contained
HTML file (figures inlined as SVG, no network) with the sweep's figures, the configuration
differences between its variants, the runs that failed, and a table of every number plotted.

The page's own script counts the figures that rendered with a non-empty box and records it
(and any script error) on <body data-figures=N data-errors=...>, which the browser test reads."""
import argparse
import html
import io
import os
import sys
import warnings

from . import plots
from .data import load_sweep, load_sweep_hot_lines, load_sweep_intervals
from .errors import MissingDependency, SimtlabDataError, SimtlabWarning, need


def _svg(fig):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    import matplotlib.pyplot as plt
    plt.close(fig)
    s = buf.getvalue()
    return s[s.index("<svg"):]  # drop the XML prolog and DOCTYPE


def _table(df, floatfmt="{:.4g}"):
    return df.to_html(classes="num", float_format=lambda v: floatfmt.format(v), border=0)


def _config_diff(df, plan):
    variants = plan.get("variants", []) if plan else []
    rows = []
    for v in variants:
        rows.append({"variant": v["name"], "baseline": "yes" if v["name"] == plan.get("baseline") else "",
                     "gpu": v["gpu"], "mode": v["mode"], "--set": " ".join(v.get("set", []))})
    cfg_cols = [c for c in df.columns if c.startswith("cfg:")]
    pd = need("pandas", "simtlab report")
    t = pd.DataFrame(rows)
    if cfg_cols and not t.empty:
        vals = df.groupby("variant", sort=False)[cfg_cols].first()
        differing = [c for c in cfg_cols if vals[c].nunique(dropna=False) > 1]
        for c in differing:
            t[c[4:]] = t["variant"].map(vals[c])
    return t


CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}
th{background:#f4f4f4}.fig svg{max-width:100%;height:auto}
.failed{color:#b00}details{margin:.5em 0}
"""

CHECK_JS = """
(function(){
  var errors=[];
  window.addEventListener('error',function(e){errors.push(String(e.message));
    document.body.setAttribute('data-errors',errors.join(' | '));});
  window.addEventListener('load',function(){
    var n=0;document.querySelectorAll('.fig svg').forEach(function(s){
      var r=s.getBoundingClientRect();var shapes=s.querySelectorAll('path,rect,use').length;
      if(r.width>0&&r.height>0&&shapes>0)n++;});
    document.body.setAttribute('data-figures',String(n));
    document.body.setAttribute('data-errors',errors.join(' | '));
  });
})();
"""


def build(directory):
    df = load_sweep(directory)
    plan = df.attrs.get("plan", {})
    name = plan.get("experiment", os.path.basename(os.path.abspath(directory)))
    parts = [f"<h1>simtlab sweep: {html.escape(name)}</h1>"]
    if plan.get("description"):
        parts.append(f"<p>{html.escape(plan['description'])}</p>")
    runs = df.drop_duplicates(["workload", "variant", "rep"]) if "rep" in df.columns else df
    n_failed = int((runs["run_status"] != "passed").sum())
    parts.append(f"<p>{len(runs)} runs ({n_failed} not passed), {len(df)} kernel rows, "
                 f"{df['workload'].nunique()} workloads x {df['variant'].nunique()} variants; "
                 f"baseline <b>{html.escape(str(plan.get('baseline', '')))}</b>.</p>")
    parts.append("<h2>Variants and their configuration differences</h2>")
    parts.append(_table(_config_diff(df, plan)))
    if n_failed:
        bad = runs[runs["run_status"] != "passed"][["workload", "variant", "run_status"]]
        parts.append("<h2 class=failed>Runs that did not pass (excluded from speedups)</h2>")
        parts.append(_table(bad))
    figures = 0
    for key, fn in plots.ALL:
        try:
            fig = fn(df)
        except (KeyError, ValueError) as e:  # nothing to plot for this sweep
            parts.append(f"<!-- {key}: {html.escape(str(e))} -->")
            continue
        if fig is None:
            continue
        table = fig.simtlab_table
        parts.append(f"<h2>{html.escape(fig.axes[0].get_title())}</h2>")
        parts.append(f"<div class=fig id=fig-{key}>{_svg(fig)}</div>")
        parts.append(f"<details><summary>numbers</summary>{_table(table)}</details>")
        figures += 1
    # Interval statistics (runs made with --set stats.interval=N): one figure per workload.
    iv = load_sweep_intervals(directory)
    for i, workload in enumerate(iv["workload"].unique() if not iv.empty else []):
        fig = plots.intervals(iv, workload)
        if fig is None:
            continue
        parts.append(f"<h2>{html.escape(fig.axes[0].get_title())}</h2>")
        parts.append(f"<div class=fig id=fig-intervals-{i}>{_svg(fig)}</div>")
        parts.append(f"<details><summary>numbers</summary>{_table(fig.simtlab_table)}</details>")
        figures += 1
    # Per-instruction statistics (runs made with --set sim.per_pc_stats=true): the hottest lines.
    hot = load_sweep_hot_lines(directory)
    if not hot.empty:
        parts.append("<h2>Hottest source lines (stall slots per kernel)</h2>")
        cols = ["workload", "variant", "kernel", "file", "line", "text", "share", "stall_total",
                "execs", "top_reason", "l1_misses", "l2_misses"]
        parts.append(_table(hot[cols]))
    parts.append("<h2>Every kernel row</h2><details><summary>table</summary>")
    keep = [c for c in df.columns if not c.startswith("stat:") and not c.startswith("host_")]
    parts.append(_table(df[keep]))
    parts.append("</details>")
    doc = ("<!DOCTYPE html><html><head><meta charset=utf-8>"
           f"<title>simtlab: {html.escape(name)}</title><style>{CSS}</style>"
           f"<script>{CHECK_JS}</script></head><body data-expected-figures={figures}>"
           + "\n".join(parts) + "</body></html>\n")
    return doc, figures


def main(argv=None):
    ap = argparse.ArgumentParser(prog="simtlab report", description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="a sweep's output directory")
    ap.add_argument("-o", "--output", help="HTML file (default: DIR/report.html)")
    a = ap.parse_args(argv)
    if not os.path.exists(os.path.join(a.dir, "plan.json")):
        print(f"simtlab report: {a.dir} holds no sweep (no plan.json)", file=sys.stderr)
        return 1
    try:
        need("pandas", "simtlab report")
        need("matplotlib", "simtlab report")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            doc, figures = build(a.dir)
        for w in caught:
            if issubclass(w.category, SimtlabWarning):
                print(f"simtlab report: warning: {w.message}", file=sys.stderr)
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    except (MissingDependency, SimtlabDataError) as e:
        print(f"simtlab report: {e}", file=sys.stderr)
        return 1
    out = a.output or os.path.join(a.dir, "report.html")
    with open(out, "w") as f:
        f.write(doc)
    print(f"simtlab report: {figures} figures -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
