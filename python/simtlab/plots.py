"""The usual figures of a sweep, from its tidy CSV (simtlab.load_sweep). Each returns a
matplotlib Figure (or None when the data has nothing to show) and the table it plots in
fig.simtlab_table (a DataFrame), so a report can print every number it plots.

matplotlib and pandas are imported when a figure is made (importing this module needs
neither); without them the functions raise simtlab.MissingDependency."""
from .data import speedups
from .errors import need

_plt = None


def _pyplot(feature):
    """matplotlib.pyplot, set up once: the Agg backend and deterministic SVG (element ids from
    a fixed salt, no creation date: the same sweep gives the same report, byte for byte)."""
    global _plt
    if _plt is None:
        matplotlib = need("matplotlib", feature)
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = "simtlab"
        _plt = need("matplotlib.pyplot", feature)
    return _plt


STALL_PREFIX = "stat:sm_total.stall."


def _bars(table, title, ylabel, stacked=False, hline=None):
    """Grouped (or stacked) bars of a table: one group per row, one bar per column. Small
    tables get vertical bars; tables with many bars get horizontal ones, the figure growing in
    height so every label stays readable (rows top to bottom in table order)."""
    plt = _pyplot("simtlab.plots")
    per_group = 1 if stacked else max(1, len(table.columns))
    bars = len(table.index) * per_group
    if bars <= 30:
        fig, ax = plt.subplots(figsize=(min(14.0, 3.0 + 0.28 * bars + 0.3 * len(table.index)), 4.2))
        table.plot.bar(ax=ax, stacked=stacked, width=0.8, rot=30)
        ax.set_ylabel(ylabel)
        if hline is not None:
            ax.axhline(hline, color="black", linewidth=0.8, linestyle="--")
        for lbl in ax.get_xticklabels():
            lbl.set_horizontalalignment("right")
    else:
        fig, ax = plt.subplots(figsize=(10.0, 1.5 + 0.2 * bars + 0.1 * len(table.index)))
        table.iloc[::-1].plot.barh(ax=ax, stacked=stacked, width=0.8)
        ax.set_xlabel(ylabel)
        if hline is not None:
            ax.axvline(hline, color="black", linewidth=0.8, linestyle="--")
    ax.set_title(title)
    if bars > 30:
        ax.set_ylabel("")
    else:
        ax.set_xlabel("")
    ax.legend(fontsize="small", ncol=2 if len(table.columns) > 6 else 1,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.simtlab_table = table
    return fig


def speedup(df, baseline=None, metric="cycles"):
    """Speedup of each variant over the baseline per workload, plus the geometric mean."""
    _pyplot("simtlab.plots.speedup")
    t = speedups(df, baseline, metric)
    base = baseline or df.loc[df["baseline"] == 1, "variant"].iloc[0]
    t = t[[c for c in t.columns if c != base]]
    if t.empty:
        return None
    return _bars(t, f"Speedup over {base} ({metric})", "speedup", hline=1.0)


def _weighted(df, col):
    """A per-kernel ratio stat averaged over each run's kernels, weighted by cycles."""
    d = df.dropna(subset=[col, "cycles"])
    d = d.assign(_w=d[col] * d["cycles"])
    g = d.groupby(["workload", "variant"], sort=False)[["_w", "cycles"]].sum()
    return (g["_w"] / g["cycles"]).unstack("variant")


def stall_breakdown(df):
    """Why scheduler issue slots did or did not issue, as fractions, per workload and variant."""
    _pyplot("simtlab.plots.stall_breakdown")
    cols = [c for c in df.columns if c.startswith(STALL_PREFIX)]
    if not cols:
        return None
    g = df.groupby(["workload", "variant"], sort=False)[cols].sum()
    frac = g.div(g.sum(axis=1), axis=0).fillna(0.0)
    frac.columns = [c[len(STALL_PREFIX):] for c in cols]
    frac.index = [f"{w} / {v}" for w, v in frac.index]
    frac = frac.loc[:, (frac > 0).any(axis=0)]
    return _bars(frac, "Issue-slot breakdown", "fraction of slots", stacked=True)


def occupancy(df):
    """Average resident warps per active cycle (cycle-weighted over kernels)."""
    _pyplot("simtlab.plots.occupancy")
    col = "stat:sm_total.occupancy"
    if col not in df.columns or df[col].isna().all():
        return None
    return _bars(_weighted(df, col), "Occupancy", "resident warps per active cycle")


def miss_rates(df):
    """L1D and L2 miss rates (misses / accesses over each run's kernels)."""
    _pyplot("simtlab.plots.miss_rates")
    pd = need("pandas", "simtlab.plots.miss_rates")
    pairs = {"L1D": ("stat:sm_total.l1d.misses", "stat:sm_total.l1d.accesses"),
             "L2": ("stat:mem.l2_total.misses", "stat:mem.l2_total.accesses")}
    parts = {}
    for level, (m, a) in pairs.items():
        if m in df.columns and a in df.columns:
            g = df.groupby(["workload", "variant"], sort=False)[[m, a]].sum()
            parts[level] = (g[m] / g[a]).where(g[a] > 0)
    if not parts:
        return None
    t = pd.DataFrame(parts)
    t.index = [f"{w} / {v}" for w, v in t.index]
    return _bars(t, "Miss rate by level", "misses / accesses")


def energy(df):
    """Energy per workload and variant, when the stats carry an energy model's output."""
    _pyplot("simtlab.plots.energy")
    cols = [c for c in df.columns if c.startswith("stat:") and c.endswith("energy_j")]
    if not cols:
        return None
    g = df.groupby(["workload", "variant"], sort=False)[cols].sum().sum(axis=1).unstack("variant")
    return _bars(g, "Energy", "joules")


def intervals(iv, workload):
    """Interval statistics of one workload over time (one line per variant): IPC, resident
    warps per SM, L1D and L2 hit rates, DRAM requests per cycle and row-buffer hit rate, and
    the issue-slot mix of the first variant. `iv` is simtlab.load_sweep_intervals(DIR)."""
    plt = _pyplot("simtlab.plots.intervals")
    d = iv[iv["workload"] == workload]
    if d.empty:
        return None
    d = d.assign(
        ipc=d["thread_insts"] / d["interval_cycles"],
        resident_warps=d["resident_warp_cycles"] / d["sm_cycles"],
        l1d_hit_rate=(d["l1d_hits"] / d["l1d_accesses"]).where(d["l1d_accesses"] > 0))
    panels = [("ipc", "IPC (thread insts/cycle)"), ("resident_warps", "resident warps per SM"),
              ("l1d_hit_rate", "L1D hit rate")]
    if "l2_accesses" in d.columns:
        d = d.assign(l2_hit_rate=(d["l2_hits"] / d["l2_accesses"]).where(d["l2_accesses"] > 0))
        panels.append(("l2_hit_rate", "L2 hit rate"))
    if "dram_requests" in d.columns:
        d = d.assign(dram_per_cycle=d["dram_requests"] / d["interval_cycles"],
                     dram_row_hit_rate=(d["dram_row_hits"] / d["dram_requests"])
                     .where(d["dram_requests"] > 0))
        panels += [("dram_per_cycle", "DRAM requests/cycle"),
                   ("dram_row_hit_rate", "DRAM row-hit rate")]
    fig, axes = plt.subplots(2, 4, figsize=(16.0, 6.5))
    axes = axes.ravel()
    for ax, (col, label) in zip(axes, panels):
        for variant, g in d.groupby("variant", sort=False):
            ax.plot(g["end_cycle"], g[col], label=str(variant), linewidth=1.0)
        ax.set_ylabel(label, fontsize="small")
        ax.set_xlabel("core cycle", fontsize="small")
    axes[0].legend(fontsize="small")
    first = d[d["variant"] == d["variant"].iloc[0]]
    stalls = [c for c in d.columns if c.startswith("stall.")]
    ax = axes[len(panels)]
    if stalls:
        frac = first[stalls].div(first[stalls].sum(axis=1), axis=0).fillna(0.0)
        keep = [c for c in stalls if frac[c].max() > 0]
        ax.stackplot(first["end_cycle"], *[frac[c] for c in keep],
                     labels=[c[6:] for c in keep])
        ax.set_ylabel(f"issue slots ({first['variant'].iloc[0]})", fontsize="small")
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    for extra in axes[len(panels) + 1:]:
        extra.axis("off")
    axes[0].set_title(f"Interval statistics: {workload}")
    fig.tight_layout()
    cols = ["variant", "kernel", "end_cycle", "interval_cycles"] + [c for c, _ in panels]
    fig.simtlab_table = d[cols].reset_index(drop=True)
    return fig


ALL = [("speedup", speedup), ("stalls", stall_breakdown), ("occupancy", occupancy),
       ("miss_rates", miss_rates), ("energy", energy)]
