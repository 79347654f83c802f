#!/usr/bin/env bash
# scripts/bench.sh [BUILD_DIR]: simtlab's benchmarks (`make bench`; see docs/benchmarks.md).
#
#  1. simtlab_microbench (Google Benchmark): PTX parsing, module loading and functional
#     execution of synthetic kernels through the func::Device API.
#  2. The benchmark CUDA programs under `simtlab run --quiet --stats FILE.json`:
#       functional mode: alu_bound, mem_bound, divergent (and sgemm for reference)
#       timing mode (GPU preset $BENCH_GPU, default fermi-gtx480): sgemm, vecadd, pchase, stream
#     and one table of their simulation rates from the stats JSON, plus the pchase latencies
#     and stream bandwidth next to the preset's configured values.
#
# Speed targets are reported, not asserted: the script fails only when a program fails (non-zero
# exit status or no PASSED line) or a tool is missing.
#
# Environment:
#   BENCH_GPU=PRESET          GPU preset for the timing runs (default fermi-gtx480)
#   BENCH_ONLY="a b ..."      run only these programs (alu_bound mem_bound divergent sgemm_f
#                             sgemm vecadd pchase stream)
#   BENCH_MICRO=0             skip the Google Benchmark microbenchmarks
#   BENCH_MICRO_FILTER=REGEX  --benchmark_filter for them (default: all)
#   BENCH_MICRO_MIN_TIME=S    --benchmark_min_time for them (default 0.5)
#   BENCH_RESULTS=DIR         where stats JSON and program output are kept
#                             (default BUILD_DIR/bench/results)
set -u -o pipefail

BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
SIMTLAB="$BUILD/bin/simtlab"
BENCH_DIR="$BUILD/bench"
GPU=${BENCH_GPU:-fermi-gtx480}
RESULTS=${BENCH_RESULTS:-$BENCH_DIR/results}
ONLY=${BENCH_ONLY:-}

die() { echo "bench.sh: $*" >&2; exit 2; }
[[ -x "$SIMTLAB" ]] || die "$SIMTLAB not found; build first (cmake --build $BUILD --target simtlab_bench)"
command -v python3 >/dev/null || die "python3 is needed to read the stats JSON"
mkdir -p "$RESULTS" || die "cannot create $RESULTS"
rm -f "$RESULTS"/*.json "$RESULTS"/*.out "$RESULTS"/runs.tsv

echo "simtlab benchmarks: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc) CPU(s) visible; every run is single-threaded"
echo "build: $BUILD   timing preset: $GPU   results: $RESULTS"
echo

# ---- 1. microbenchmarks ------------------------------------------------------------------------
if [[ "${BENCH_MICRO:-1}" != 0 ]]; then
  MICRO="$BUILD/bin/simtlab_microbench"
  if [[ -x "$MICRO" ]]; then
    echo "== simtlab_microbench (Google Benchmark) =="
    args=(--benchmark_min_time="${BENCH_MICRO_MIN_TIME:-0.5}" --benchmark_out="$RESULTS/microbench.json"
          --benchmark_out_format=json --benchmark_counters_tabular=true)
    [[ -n "${BENCH_MICRO_FILTER:-}" ]] && args+=(--benchmark_filter="$BENCH_MICRO_FILTER")
    "$MICRO" "${args[@]}" 2>&1 | grep -v '^\*\*\*WARNING\*\*\*' || echo "bench.sh: simtlab_microbench failed" >&2
    echo
  else
    echo "(simtlab_microbench not built: Google Benchmark missing; skipped)"
    echo
  fi
fi

# ---- 2. programs under simtlab run -------------------------------------------------------------
# name | mode | executable | arguments
PROGRAMS=(
  "alu_bound|functional|$BENCH_DIR/alu_bound|"
  "mem_bound|functional|$BENCH_DIR/mem_bound|"
  "divergent|functional|$BENCH_DIR/divergent|"
  "sgemm_f|functional|$BUILD/examples/sgemm|256 256 256"
  "sgemm|timing|$BUILD/examples/sgemm|256 256 256"
  "vecadd|timing|$BENCH_DIR/vecadd|"
  "pchase|timing|$BENCH_DIR/pchase|"
  "stream|timing|$BENCH_DIR/stream|"
)

failed=0
echo "== programs under simtlab run =="
for entry in "${PROGRAMS[@]}"; do
  IFS='|' read -r name mode exe args <<<"$entry"
  if [[ -n "$ONLY" && " $ONLY " != *" $name "* ]]; then continue; fi
  if [[ ! -x "$exe" ]]; then
    echo "  $name: $exe not built" >&2
    failed=1
    continue
  fi
  json="$RESULTS/$name.json"
  out="$RESULTS/$name.out"
  printf '  %-10s %-10s %s %s ... ' "$name" "$mode" "$(basename "$exe")" "$args"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086  # $args is a word list
  "$SIMTLAB" run --quiet --gpu "$GPU" --mode "$mode" --stats "$json" -- "$exe" $args >"$out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  total=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
  if [[ $rc -ne 0 ]] || ! grep -q '^PASSED' "$out" || [[ ! -s "$json" ]]; then
    echo "FAILED (exit $rc, ${total} s; output in $out)"
    tail -5 "$out" | sed 's/^/      /'
    failed=1
    status=FAILED
  else
    echo "PASSED (${total} s)"
    status=PASSED
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$mode" "$status" "$total" >>"$RESULTS/runs.tsv"
done
echo

# ---- 3. report ---------------------------------------------------------------------------------
[[ -s "$RESULTS/runs.tsv" ]] || { echo "no programs ran"; exit $failed; }
python3 - "$RESULTS" <<'PY' || failed=1
import json, math, os, re, sys

res = sys.argv[1]
runs = [l.rstrip("\n").split("\t") for l in open(os.path.join(res, "runs.tsv")) if l.strip()]

# Targets from the issues: (program, mode) -> (rate key, minimum, label)
TARGETS = {
    ("alu_bound", "functional"): ("thread_insts_per_s", 300e6, "issue #3: >= 300M thread-inst/s"),
    ("sgemm", "timing"): ("warp_insts_per_s", 300e3, "issue #5: >= 300K warp-inst/s"),
}

def si(x, unit=""):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    for f, s in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= f:
            return f"{x / f:.3g}{s}{unit}"
    return f"{x:.3g}{unit}"

def cfg_get(values, path, default=None):
    cur = values
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur

loaded = {}
rows = []
for name, mode, status, total in runs:
    path = os.path.join(res, name + ".json")
    j = None
    if os.path.exists(path):
        try:
            j = json.load(open(path))
        except Exception as e:  # a crashed run may leave a partial file
            print(f"bench.sh: cannot read {path}: {e}", file=sys.stderr)
    loaded[name] = j
    if j is None:
        rows.append([name, mode, "-", "-", "-", "-", total, "-", "-", "-", status])
        continue
    t, r = j["totals"], j["sim_rate"]
    tgt = TARGETS.get((name, mode))
    note = status
    if tgt and status == "PASSED":
        v = r.get(tgt[0], 0.0)
        note = f"{'MET' if v >= tgt[1] else 'MISSED'} ({tgt[2]})"
    rows.append([name, mode, f"{t['warp_insts']:,}", f"{t['thread_insts']:,}",
                 f"{t['cycles']:,}" if t["cycles"] else "-",
                 f"{r['kernel_wall_seconds']:.2f}", total,
                 si(r["thread_insts_per_s"]), si(r["warp_insts_per_s"]),
                 si(r["cycles_per_s"]) if t["cycles"] else "-", note])

hdr = ["program", "mode", "warp-insts", "thread-insts", "cycles", "kernel s", "total s",
       "thread-inst/s", "warp-inst/s", "cycles/s", "status / target"]
w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(hdr)]
print("== simulation rates (sim_rate from the stats JSON: instructions or cycles per second of kernel wall time) ==")
print("  ".join(h.ljust(w[i]) if i in (0, 1, 10) else h.rjust(w[i]) for i, h in enumerate(hdr)))
for r in rows:
    print("  ".join(c.ljust(w[i]) if i in (0, 1, 10) else c.rjust(w[i]) for i, c in enumerate(r)))
print("  (kernel s = simulated kernels' wall time the rates are computed over; total s = whole `simtlab run`,"
      " including program start-up, PTX loading and the host-side self-check)")
print()

# ---- configured memory-system values ----------------------------------------------------------
# DRAM timing sets as defined in src/timing/mem/dram_timing.cpp, used where a mem.dram.*
# override is -1 ("keep the timing set's value").
DRAM_SETS = {
    "gddr5_h5gq1h24afr": dict(data_rate=4, burst_length=8, tRCD=12, tCL=12, tRP=12),
    "gddr3_thesis": dict(data_rate=2, burst_length=4, tRCD=12, tCL=12, tRP=12),
}

def memory_config(values):
    """Configured latencies (core cycles) and DRAM bandwidth, with how each was derived."""
    c = {}
    core = cfg_get(values, "gpu.core_mhz", 700.0)
    c["core_mhz"] = core
    c["l1"] = cfg_get(values, "sm.l1d.hit_latency")
    c["l1_src"] = "sm.l1d.hit_latency"
    mem = cfg_get(values, "mem")
    model = cfg_get(values, "mem.model", None)
    if not isinstance(mem, dict) or model == "fixed" or cfg_get(values, "mem.l2") is None:
        fixed = cfg_get(values, "sim.fixed_memory_latency")
        c["model"] = f"fixed (every L1 miss: sim.fixed_memory_latency = {fixed} cycles)"
        c["l2"] = c["dram"] = fixed
        c["l2_src"] = c["dram_src"] = "sim.fixed_memory_latency"
        c["bw"] = None
        c["bw_src"] = "n/a: the fixed memory model has no DRAM bandwidth limit (mem.* not configured)"
        return c
    c["model"] = f"full ({model or 'mem.* present'})"
    icnt_mhz = cfg_get(values, "gpu.icnt_mhz", core)
    l2_mhz = cfg_get(values, "gpu.l2_mhz", core)
    dram_mhz = cfg_get(values, "gpu.dram_mhz", core)
    to_core = lambda cycles, mhz: cycles * core / mhz
    icnt = cfg_get(values, "mem.icnt.latency", 0)
    rop = cfg_get(values, "mem.l2.rop_latency", 0)
    l2hit = cfg_get(values, "mem.l2.slice.hit_latency", 0)
    dlat = cfg_get(values, "mem.l2.dram_latency", 0)
    l2 = 2 * to_core(icnt, icnt_mhz) + to_core(rop + l2hit, l2_mhz)
    c["l2"] = l2
    c["l2_src"] = (f"nominal 2 x mem.icnt.latency ({icnt}) + mem.l2.rop_latency ({rop}) + "
                   f"mem.l2.slice.hit_latency ({l2hit}), clock-converted")
    tset = cfg_get(values, "mem.dram.timing", "")
    known = DRAM_SETS.get(tset, {})
    def dram(key):
        v = cfg_get(values, "mem.dram." + key, -1)
        return v if isinstance(v, (int, float)) and v >= 0 else known.get(key)
    rcd, cl, bl, rate = dram("tRCD"), dram("tCL"), dram("burst_length"), dram("data_rate")
    if None not in (rcd, cl, bl, rate):
        dcyc = rcd + cl + bl / rate
        c["dram"] = l2 + to_core(dlat, l2_mhz) + to_core(dcyc, dram_mhz)
        c["dram_src"] = (f"nominal L2 path + mem.l2.dram_latency ({dlat}) + tRCD+tCL+BL/rate "
                         f"({rcd}+{cl}+{bl}/{rate} DRAM cycles at {dram_mhz} MHz), closed row, no queueing")
    else:
        c["dram"] = None
        c["dram_src"] = f"n/a (DRAM timing set '{tset}' unknown to bench.sh)"
    ch = cfg_get(values, "mem.map.channels")
    bw = cfg_get(values, "mem.dram.bus_width")
    if None not in (ch, bw, rate):
        c["bw"] = ch * bw * rate * dram_mhz * 1e6 / 1e9
        c["bw_src"] = (f"mem.map.channels ({ch}) x mem.dram.bus_width ({bw} B) x data rate ({rate}) x "
                       f"gpu.dram_mhz ({dram_mhz})")
    else:
        c["bw"] = None
        c["bw_src"] = "n/a (mem.map.channels / mem.dram.bus_width / data rate missing)"
    return c

def fmt_delta(meas, conf):
    if meas is None or conf is None:
        return "-"
    return f"{meas - conf:+.1f}"

pj = loaded.get("pchase")
if pj is not None:
    values = pj["config"]["values"]
    mc = memory_config(values)
    out = open(os.path.join(res, "pchase.out")).read()
    print(f"== pchase: load-to-use latency in core cycles (preset '{pj['config']['preset']}', memory model: {mc['model']}) ==")
    probes = {m.group(1): float(m.group(2)) for m in re.finditer(r"PROBE (\S+) (\S+)", out)}
    print(f"  {'level':<6}{'measured':>10}{'configured':>12}{'delta':>8}   configured value")
    for lvl, key in (("L1", "l1"), ("L2", "l2"), ("DRAM", "dram")):
        meas = probes.get(lvl)
        conf = mc[key]
        print(f"  {lvl:<6}{(f'{meas:.2f}' if meas is not None else '-'):>10}"
              f"{(f'{conf:.1f}' if conf is not None else '-'):>12}{fmt_delta(meas, conf):>8}   {mc[key + '_src']}")
    print("  (probes: L1 = 4 KB ring, ld.global.ca; L2 = 128 KB ring, ld.global.cg; DRAM = 8.1 MB ring, ld.global.cg;"
          " measured includes the SM's issue/operand-collector/LD-ST pipeline cycles, configured does not)")
    l1size = cfg_get(values, "sm.l1d.size")
    l2size = None
    if cfg_get(values, "mem.l2.slice.size") and cfg_get(values, "mem.map.channels"):
        l2size = (cfg_get(values, "mem.l2.slice.size") * cfg_get(values, "mem.map.channels")
                  * cfg_get(values, "mem.map.sub_partitions", 1))
    print(f"  stride sweep, 128-node ring, ld.global.ca (L1D {si(l1size, 'B')}, L2 {si(l2size, 'B') if l2size else 'n/a'}):")
    print(f"  {'stride':>8}{'footprint':>11}{'ptr64':>9}{'idx32':>9}   expected level")
    for m in re.finditer(r"SWEEP (\d+) (\d+) (\S+) (\S+)", out):
        s, fp, p64, i32 = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        if l1size and fp <= l1size:
            lvl = "L1 (footprint <= L1D)"
        elif l1size and s < (cfg_get(values, "sm.l1d.line") or 128):
            lvl = "L1 + miss every line"
        elif l2size is None:
            lvl = "below L1 (fixed model)" if "fixed" in mc["model"] else "L2 or DRAM"
        elif fp <= l2size:
            lvl = "L2 (footprint <= L2)"
        else:
            lvl = "DRAM (footprint > L2)"
        print(f"  {si(s, 'B'):>8}{si(fp, 'B'):>11}{p64:>9}{i32:>9}   {lvl}")
    print("  (ptr64: p = *p; idx32: off = *(base + off), adds one mad.wide.u32 per load; strides < line size share lines)")
    print()

sj = loaded.get("stream")
if sj is not None:
    values = sj["config"]["values"]
    mc = memory_config(values)
    out = open(os.path.join(res, "stream.out")).read()
    m = re.search(r"STREAM bytes=(\d+) span_cycles=(\d+)", out)
    print(f"== stream: DRAM bandwidth (preset '{sj['config']['preset']}', core clock {mc['core_mhz']} MHz) ==")
    if m:
        nbytes, span = int(m.group(1)), int(m.group(2))
        kc = sj["totals"]["cycles"]
        hz = mc["core_mhz"] * 1e6
        def gbs(cyc):
            return nbytes / (cyc / hz) / 1e9 if cyc else None
        for label, cyc in (("device clock64() span", span), ("kernel cycles (stats JSON)", kc)):
            g = gbs(cyc)
            pct = f"{100 * g / mc['bw']:.1f}% of configured" if (g and mc["bw"]) else "configured: n/a"
            print(f"  {label:<28} {cyc:>10,} cycles  {nbytes / cyc if cyc else 0:8.1f} B/cycle  "
                  f"{(f'{g:.1f}' if g else '-'):>7} GB/s   {pct}")
        if mc["bw"]:
            print(f"  configured DRAM bandwidth: {mc['bw']:.1f} GB/s = {mc['bw_src']}")
        else:
            print(f"  configured DRAM bandwidth: {mc['bw_src']}")
        print("  (target, issue #6: >= 70% of the configured DRAM bandwidth)")
    else:
        print("  no STREAM line in the program output")
    print()
PY

if [[ $failed -ne 0 ]]; then
  echo "bench.sh: some benchmark programs FAILED (see above)" >&2
  exit 1
fi
echo "bench.sh: all benchmark programs PASSED (speed targets above are reported, not enforced)"
