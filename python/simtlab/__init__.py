"""simtlab from Python: load a run's or a sweep's statistics into pandas, run simulations and
sweeps from code, plot the usual figures and write the HTML report.

    import simtlab
    kernels = simtlab.run("./app", "1024", gpu="fermi-c2050")   # one row per kernel launch
    df = simtlab.sweep("experiments/schedulers.yaml", jobs=2)  # the sweep's tidy CSV
    simtlab.speedups(df)                                       # per workload and variant
    simtlab.plots.speedup(df).savefig("speedup.svg")

`import simtlab` needs only the standard library. The DataFrame functions need pandas, the
plots and the report matplotlib too (Debian: python3-pandas, python3-matplotlib; pip: pandas,
matplotlib); without them they raise simtlab.MissingDependency (an ImportError) saying which
package is missing. The readers that return plain Python objects (kernel_rows, interval_rows,
hot_lines, sweep_rows, read_stats, read_plan, read_status, iter_kernels), flatten_stats,
kernel_base_name, geomean and `simtlab annotate` work without either. A missing, damaged or
incomplete file raises simtlab.SimtlabDataError naming the file and the field.
"""
from . import plots
from .data import (find_simtlab, flatten_stats, geomean, hot_lines, interval_rows, kernel_base_name,
                   kernel_rows, load_hot_lines, load_intervals, load_run, load_sweep,
                   load_sweep_hot_lines, load_sweep_intervals, per_run, read_stats, run, speedups,
                   sweep, sweep_rows)
from .errors import MissingDependency, MissingFile, SimtlabDataError, SimtlabWarning
from .statsfile import iter_kernels, read_plan, read_status

__version__ = "0.1.0"
__all__ = ["MissingDependency", "MissingFile", "SimtlabDataError", "SimtlabWarning", "find_simtlab",
           "flatten_stats", "geomean", "hot_lines", "interval_rows", "iter_kernels",
           "kernel_base_name", "kernel_rows", "load_hot_lines", "load_intervals", "load_run",
           "load_sweep", "load_sweep_hot_lines", "load_sweep_intervals", "per_run", "plots",
           "read_plan", "read_stats", "read_status", "run", "speedups", "sweep", "sweep_rows"]
