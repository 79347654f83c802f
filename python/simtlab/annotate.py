"""`simtlab annotate RUN.json [--source DIR]`: the hottest source lines of each kernel.

Reads the `attribution` section that `simtlab run --set sim.per_pc_stats=true --stats RUN.json`
writes per kernel (schema in docs/outputs.md) and prints, like `perf annotate`, the CUDA source
(for -lineinfo / -G builds) or the PTX with per-line columns: share of the kernel's attributed
stall slots, stall slots, executions, the dominant stall reason, L1/L2 misses. The line with the
most stall slots is marked `>>`.

Standard library only (no pandas). The stats file is read one kernel at a time
(statsfile.iter_kernels: only the fields printed here are kept, the per-instruction columns as
compact arrays), so memory stays well under the file's size however many kernels it holds.
"""
import argparse
import io
import os
import sys

from .errors import SimtlabDataError
from .statsfile import REASONS, attribution_tables, iter_kernels

KEYS = ("name", "index", "cycles", "warp_insts", "attribution")


def dominant(cols, i):
    best, bn = "-", 0
    for r in REASONS:
        c = cols.get("stall_" + r)
        v = c[i] if c is not None else 0
        if v > bn:
            best, bn = r, v
    if best == "scoreboard":
        mem, alu = cols["sb_mem"][i], cols["sb_alu"][i]
        best += "(mem)" if mem >= alu else "(alu)"
    return best


def find_source(path, source_dirs):
    cands = [path] + [os.path.join(d, os.path.basename(path)) for d in source_dirs]
    cands += [os.path.join(d, path.lstrip("/")) for d in source_dirs]
    for c in cands:
        if c and os.path.isfile(c):
            return c
    return None


def row(cols, i, total):
    st = cols["stall_total"][i]
    pct = 100.0 * st / total if total else 0.0
    return (f"{pct:6.2f}% {st:>9} {cols['execs'][i]:>8} {cols['l1_misses'][i]:>7} "
            f"{cols['l2_misses'][i]:>7}  {dominant(cols, i):<16}")


HEADER = ("  stall%    stalls    execs L1 miss L2 miss  top reason       ")


def annotate_kernel(k, source_dirs, ptx, top, out):
    a = k.get("attribution")
    name = k.get("name", "?")
    out.write(f"== kernel {k.get('index', '?')}: {name}  ({k.get('cycles', 0)} cycles, "
              f"{k.get('warp_insts', 0)} warp instructions)\n")
    if not a:
        out.write("   no attribution (run with --set sim.per_pc_stats=true, timing mode)\n")
        return None
    files = a["files"]
    lines = a["lines"]
    n = len(lines["line"])
    total = sum(lines["stall_total"])
    if n == 0:
        out.write("   nothing executed\n")
        return None
    hot = max(range(n), key=lambda i: (lines["stall_total"][i], lines["execs"][i]))
    hot_key = (lines["file"][hot], lines["line"][hot])
    has_src = any(f for f in lines["file"])
    out.write(f"   attributed stall slots: {total}\n")
    if has_src and not ptx:
        by_file = {}
        for i in range(n):
            by_file.setdefault(lines["file"][i], {})[lines["line"][i]] = i
        # Files in order of their stall slots.
        order = sorted(by_file, key=lambda f: -sum(lines["stall_total"][i]
                                                   for i in by_file[f].values()))
        for f in order:
            rows = by_file[f]
            fname = files[f] if f < len(files) else ""
            if not fname:
                out.write("\n   -- instructions without a source line --\n")
                out.write("   " + HEADER + "\n")
                i = rows[0]
                out.write(f"   {row(lines, i, total)}\n")
                continue
            path = find_source(fname, source_dirs)
            out.write(f"\n   -- {fname}" + ("" if path else " (source not found; --source DIR)")
                      + " --\n")
            out.write("   " + HEADER + "  line  source\n")
            text = []
            if path:
                with open(path, errors="replace") as fh:
                    text = fh.read().split("\n")
            lo, hi = min(rows), max(rows)
            for ln in range(max(1, lo - 2), hi + 3):
                src = text[ln - 1] if 0 < ln <= len(text) else ""
                if not text and ln not in rows:
                    continue
                mark = ">>" if (f, ln) == hot_key else "  "
                if ln in rows:
                    out.write(f"{mark} {row(lines, rows[ln], total)}{ln:>6}  {src}\n")
                elif ln <= len(text) or not text:
                    out.write(f"   {'':<{len(HEADER)}}{ln:>6}  {src}\n")
    else:
        ins = a["instructions"]
        hot_i = max(range(len(ins["pc"])), key=lambda i: (ins["stall_total"][i], ins["execs"][i]))
        itotal = sum(ins["stall_total"])
        out.write("   " + HEADER + "    pc  ptx line  instruction\n")
        for i in range(len(ins["pc"])):
            mark = ">>" if i == hot_i else "  "
            out.write(f"{mark} {row(ins, i, itotal)}{ins['pc'][i]:>6} {ins['ptx_line'][i]:>9}  "
                      f"{ins['text'][i].strip()}\n")
        hot_key = None
    # The top lines.
    order = sorted(range(n), key=lambda i: -lines["stall_total"][i])[:top]
    out.write(f"\n   top {len(order)} lines by stall slots:\n")
    for i in order:
        f = lines["file"][i]
        where = f"{os.path.basename(files[f])}:{lines['line'][i]}" if f else "(no source line)"
        out.write(f"   {row(lines, i, total)}{where}\n")
    if has_src:
        f, ln = lines["file"][hot], lines["line"][hot]
        out.write(f"   hottest: {files[f]}:{ln}\n")
    return hot_key


def main(argv=None):
    ap = argparse.ArgumentParser(prog="simtlab annotate", description=__doc__.split("\n")[0])
    ap.add_argument("stats", help="stats JSON of a run with --set sim.per_pc_stats=true")
    ap.add_argument("--source", action="append", default=[], help="directory to find sources in")
    ap.add_argument("--kernel", help="only kernels whose index or name contains this")
    ap.add_argument("--ptx", action="store_true", help="annotate PTX instructions, not source")
    ap.add_argument("--top", type=int, default=5, help="top lines to list (default 5)")
    args = ap.parse_args(argv)

    def wanted(k):
        if args.kernel is None:
            return True
        if args.kernel.isdigit():
            return str(k.get("index")) == args.kernel
        name = k.get("name", "")
        return isinstance(name, str) and args.kernel in name

    # Kernels are printed as they are read; those before the first one with attribution are
    # held back, so that a file without any prints only the error.
    held = io.StringIO()
    out = held
    matched = 0
    try:
        for i, k in enumerate(iter_kernels(args.stats, KEYS)):
            if not wanted(k):
                continue
            matched += 1
            where = f"{args.stats}: kernels[{i}]"
            if attribution_tables(k, where) is not None and out is held:
                sys.stdout.write(held.getvalue())
                out = sys.stdout
            try:
                annotate_kernel(k, args.source, args.ptx, args.top, out)
            except (KeyError, IndexError, TypeError, ValueError) as e:
                raise SimtlabDataError(f"{where}: unexpected content ({type(e).__name__}: {e})")
            out.write("\n")
    except SimtlabDataError as e:
        sys.stdout.flush()
        sys.exit(f"simtlab annotate: {e}")
    except BrokenPipeError:  # `simtlab annotate ... | head`: the reader has gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    if args.kernel is not None and not matched:
        sys.exit(f"simtlab annotate: no kernel matches '{args.kernel}'")
    if out is held:
        sys.exit(f"simtlab annotate: {args.stats} has no per-instruction statistics; run with "
                 "`simtlab run --set sim.per_pc_stats=true --stats FILE` (timing mode)")


if __name__ == "__main__":
    main()
