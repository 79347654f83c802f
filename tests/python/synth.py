"""Synthetic stats files in the layout of `simtlab run --stats` with per-instruction statistics
(docs/outputs.md): kernel entries with a per-SM `stats` tree and an `attribution` section, laid
out as simtlab writes them (nlohmann::json dump(2), kernels indented by 4). Standard library
only. Used by test_nodeps.py and test_annotate_memory.py."""
import json

COLUMNS = ["execs", "thread_insts", "stall_issued", "stall_mem_pipeline", "stall_collector_full",
           "stall_unit_busy", "stall_scoreboard", "stall_barrier", "stall_control", "stall_fetch",
           "stall_throttled", "stall_total", "sb_mem", "sb_alu", "rf_bank_conflicts",
           "smem_extra_passes", "transactions", "l1_misses", "l2_misses", "divergent"]
REASONS = ["mem_pipeline", "collector_full", "unit_busy", "scoreboard", "barrier", "control",
           "fetch", "throttled"]


def _stat(desc, value):
    return {"desc": desc, "unit": "events", "value": value}


def _gpu_stats(seed, sms):
    per_sm = {f"stat_{j}": _stat(f"a counter of the SM, number {j}", (seed * 7 + j) % 1000)
              for j in range(40)}
    g = {"sm_total": dict(per_sm, stall={"desc": "issue slots by reason", "unit": "slots",
                                         "total": 100, "values": {r: 10 for r in REASONS}})}
    for s in range(sms):
        g[f"sm[{s}]"] = per_sm
    return {"gpu": g}


def _column(name, n, seed):
    if name == "stall_total":
        return [sum(_column("stall_" + r, 1, seed + i)[0] for r in REASONS) for i in range(n)]
    return [(seed * 31 + i * 17 + len(name) * 101) % 5000 for i in range(n)]


def kernel(index, n_ins, lineinfo=True, sms=15):
    """One kernel entry with `n_ins` instructions (and n_ins // 4 source lines)."""
    n_lines = max(1, n_ins // 4)
    ins = {"pc": [8 * i for i in range(n_ins)], "function": [0] * n_ins,
           "ptx_line": [100 + i for i in range(n_ins)],
           "text": [f"\tld.global.f32 \t%f{i}, [%rd{i % 9}+{4 * i}];" for i in range(n_ins)],
           "file": [1 if lineinfo else 0] * n_ins,
           "line": [10 + i // 4 if lineinfo else 0 for i in range(n_ins)]}
    ins.update({c: _column(c, n_ins, index) for c in COLUMNS})
    lines = {"file": [1 if lineinfo else 0] * n_lines, "line": [10 + i for i in range(n_lines)],
             "instructions": [4] * n_lines}
    lines.update({c: _column(c, n_lines, index + 1) for c in COLUMNS})
    return {"name": f"_Z7kernel{index % 10}Pfi", "index": index, "status": "completed",
            "grid": [64, 1, 1], "block": [256, 1, 1], "regs_per_thread": 20,
            "static_shared_bytes": 0, "dynamic_shared_bytes": 0,
            "occupancy": {"ctas_per_sm": 6, "limited_by": "threads"},
            "cycles": 10000 + index, "warp_insts": 5000 + index, "thread_insts": 160000,
            "start_cycle": 100 * index, "end_cycle": 100 * index + 10000,
            "stats": _gpu_stats(index, sms),
            "attribution": {"files": ["", "/src/kernels.cu"] if lineinfo else [""],
                            "ptx_file": "kernels.ptx", "columns": COLUMNS,
                            "instructions": ins, "lines": lines}}


def write_stats(path, kernels):
    """Write a stats file holding `kernels` (entries, or strings of already dumped entries as
    kernel_text gives) in simtlab's layout. Returns the file's size in bytes."""
    head = {"config": {"preset": "fermi-gtx480", "hash": "0123456789abcdef", "values": {}},
            "host": {"wall_seconds": 1.0, "kernels": []}}
    tail = {"mode": "timing", "simtlab": {"format": 1, "version": "0.1.0"},
            "totals": {"launches": len(kernels), "cycles": 1, "warp_insts": 1,
                       "thread_insts": 1, "ipc": 1.0}}
    with open(path, "w") as f:
        f.write("{")
        for i, (k, v) in enumerate(head.items()):
            f.write(("\n  " if i == 0 else ",\n  ") + json.dumps(k) + ": "
                    + json.dumps(v, indent=2).replace("\n", "\n  "))
        f.write(',\n  "kernels": [')
        for i, k in enumerate(kernels):
            text = k if isinstance(k, str) else kernel_text(k)
            f.write(("\n    " if i == 0 else ",\n    ") + text)
        f.write("\n  ]" if kernels else "]")
        for k, v in tail.items():
            f.write(",\n  " + json.dumps(k) + ": " + json.dumps(v, indent=2).replace("\n", "\n  "))
        f.write("\n}\n")
        return f.tell()


def kernel_text(k):
    """A kernel entry dumped as simtlab does (indent 2, nested 4 deep)."""
    return json.dumps(k, indent=2, sort_keys=True).replace("\n", "\n    ")
