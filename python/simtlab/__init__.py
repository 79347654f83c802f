"""simtlab from Python: load a run's or a sweep's statistics into pandas, run simulations and
sweeps from code, plot the usual figures and write the HTML report.

    import simtlab
    kernels = simtlab.run("./app", "1024", gpu="fermi-c2050")   # one row per kernel launch
    df = simtlab.sweep("experiments/schedulers.yaml", jobs=2)  # the sweep's tidy CSV
    simtlab.speedups(df)                                       # per workload and variant
    simtlab.plots.speedup(df).savefig("speedup.svg")

Needs Debian's python3-pandas, python3-matplotlib (plots, report) and python3-yaml.
"""
from .data import (find_simtlab, flatten_stats, geomean, kernel_base_name, load_hot_lines,
                   load_intervals, load_run, load_sweep_hot_lines, load_sweep, load_sweep_intervals, per_run, run, speedups, sweep)
from . import plots

__version__ = "0.1.0"
__all__ = ["find_simtlab", "flatten_stats", "geomean", "kernel_base_name", "load_hot_lines",
           "load_sweep_hot_lines", "load_intervals",
           "load_run", "load_sweep", "load_sweep_intervals", "per_run", "run", "speedups", "sweep", "plots"]
