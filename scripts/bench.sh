#!/usr/bin/env bash
# scripts/bench.sh [BUILD_DIR]: simtlab's benchmarks (`make bench`; see docs/benchmarks.md).
#
#  1. simtlab_microbench (Google Benchmark): PTX parsing, module loading and functional
#     execution of synthetic kernels through the func::Device API.
#  2. The benchmark CUDA programs under `simtlab run --quiet --stats FILE.json`:
#       functional mode: alu_bound, mem_bound, divergent (and sgemm for reference)
#       timing mode (GPU preset $BENCH_GPU, default fermi-gtx480): sgemm, vecadd, pchase, stream
#       and pchase/stream again on every other preset in configs/
#     and one table of their simulation rates from the stats JSON, plus the pchase latencies
#     and stream bandwidth next to each preset's configured values.
#
# Speed targets are reported, not asserted: the script fails only when a program fails (non-zero
# exit status or no PASSED line) or a tool is missing.
#
# Environment:
#   BENCH_GPU=PRESET          GPU preset for the timing runs (default fermi-gtx480)
#   BENCH_MEM_GPUS="p q ..."  presets pchase and stream also run on (default: all of configs/;
#                             empty: none)
#   BENCH_ONLY="a b ..."      run only these programs (alu_bound mem_bound divergent sgemm_f
#                             sgemm vecadd pchase stream; pchase also selects pchase@PRESET)
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
rm -f "$RESULTS"/*.json "$RESULTS"/*.out "$RESULTS"/*.time "$RESULTS"/runs.tsv

echo "simtlab benchmarks: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc) CPU(s) visible; every run is single-threaded"
echo "build: $BUILD   timing preset: $GPU   results: $RESULTS"
echo

micro_failed=0
# ---- 1. microbenchmarks ------------------------------------------------------------------------
if [[ "${BENCH_MICRO:-1}" != 0 ]]; then
  MICRO="$BUILD/bin/simtlab_microbench"
  if [[ -x "$MICRO" ]]; then
    echo "== simtlab_microbench (Google Benchmark) =="
    args=(--benchmark_min_time="${BENCH_MICRO_MIN_TIME:-0.5}" --benchmark_out="$RESULTS/microbench.json"
          --benchmark_out_format=json --benchmark_counters_tabular=true)
    [[ -n "${BENCH_MICRO_FILTER:-}" ]] && args+=(--benchmark_filter="$BENCH_MICRO_FILTER")
    "$MICRO" "${args[@]}" >"$RESULTS/microbench.out" 2>&1
    mrc=$?
    grep -v '^\*\*\*WARNING\*\*\*' "$RESULTS/microbench.out"
    if [[ $mrc -ne 0 ]]; then
      echo "bench.sh: simtlab_microbench FAILED (exit $mrc)" >&2
      micro_failed=1
    fi
    echo
  else
    echo "(simtlab_microbench not built: Google Benchmark missing; skipped)"
    echo
  fi
fi

# ---- 2. programs under simtlab run -------------------------------------------------------------
# The memory microbenchmarks (pchase, stream) also run on these presets (default: every preset
# in configs/), as pchase@PRESET and stream@PRESET.
if [[ -n "${BENCH_MEM_GPUS+x}" ]]; then
  MEM_GPUS=$BENCH_MEM_GPUS
else
  MEM_GPUS=""
  for f in "$ROOT"/configs/*.yaml; do
    [[ -e "$f" ]] && MEM_GPUS+="$(basename "$f" .yaml) "
  done
fi

# name | mode | GPU preset | executable | arguments
PROGRAMS=(
  "alu_bound|functional|$GPU|$BENCH_DIR/alu_bound|"
  "mem_bound|functional|$GPU|$BENCH_DIR/mem_bound|"
  "divergent|functional|$GPU|$BENCH_DIR/divergent|"
  "sgemm_f|functional|$GPU|$BUILD/examples/sgemm|384 384 384"
  "sgemm|timing|$GPU|$BUILD/examples/sgemm|384 384 384"
  "vecadd|timing|$GPU|$BENCH_DIR/vecadd|"
  "pchase|timing|$GPU|$BENCH_DIR/pchase|"
  "stream|timing|$GPU|$BENCH_DIR/stream|"
)
for g in $MEM_GPUS; do
  [[ "$g" == "$GPU" ]] && continue
  PROGRAMS+=("pchase@$g|timing|$g|$BENCH_DIR/pchase|" "stream@$g|timing|$g|$BENCH_DIR/stream|")
done

failed=$micro_failed
echo "== programs under simtlab run =="
for entry in "${PROGRAMS[@]}"; do
  IFS='|' read -r name mode gpu exe args <<<"$entry"
  if [[ -n "$ONLY" && " $ONLY " != *" $name "* && " $ONLY " != *" ${name%@*} "* ]]; then continue; fi
  if [[ ! -x "$exe" ]]; then
    echo "  $name: $exe not built" >&2
    failed=1
    continue
  fi
  json="$RESULTS/$name.json"
  out="$RESULTS/$name.out"
  printf '  %-18s %-10s %-12s %s %s ... ' "$name" "$mode" "$gpu" "$(basename "$exe")" "$args"
  # `time` (user + sys) of the whole run goes to $name.time; the program's own output to $out.
  TIMEFORMAT='%R %U %S'
  # shellcheck disable=SC2086  # $args is a word list
  { time "$SIMTLAB" run --quiet --gpu "$gpu" --mode "$mode" --stats "$json" -- "$exe" $args >"$out" 2>&1; } \
    2>"$RESULTS/$name.time"
  rc=$?
  # The last line is time's; a crash message may come before it.
  read -r real user sys < <(tail -n 1 "$RESULTS/$name.time")
  read -r total cpu < <(python3 -c "import sys
try: r, u, s = (float(x) for x in sys.argv[1:4]); print(f'{r:.2f} {u + s:.2f}')
except Exception: print('- -')" "${real:-}" "${user:-}" "${sys:-}")
  if [[ $rc -ne 0 ]] || ! grep -q '^PASSED' "$out" || [[ ! -s "$json" ]]; then
    echo "FAILED (exit $rc, ${total} s; output in $out)"
    tail -5 "$out" | sed 's/^/      /'
    failed=1
    status=FAILED
  else
    echo "PASSED (${total} s wall, ${cpu} s CPU)"
    status=PASSED
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$mode" "$status" "$total" "$cpu" >>"$RESULTS/runs.tsv"
done
echo

# ---- 3. report ----------------------------------------------------------------------------------
if [[ ! -s "$RESULTS/runs.tsv" ]]; then
  echo "no rate programs ran"
else
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

def bytes_(b):
    for f, u in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if b >= f:
            return f"{b / f:g} {u}" if b % f == 0 else f"{b / f:.1f} {u}"
    return f"{b} B"

def kib(b):
    return bytes_(b) if b else "n/a"

def cfg_get(values, path, default=None):
    cur = values
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur

loaded = {}
rows = []
for name, mode, status, total, cpu in runs:
    path = os.path.join(res, name + ".json")
    j = None
    if os.path.exists(path):
        try:
            j = json.load(open(path))
        except Exception as e:  # a crashed run may leave a partial file
            print(f"bench.sh: cannot read {path}: {e}", file=sys.stderr)
    loaded[name] = j
    if j is None:
        rows.append([name, mode, "-", "-", "-", "-", total, cpu, "-", "-", "-", status])
        continue
    t = j["totals"]
    r = j.get("sim_rate") or j.get("host") or {}  # the rates moved from sim_rate to host
    tgt = TARGETS.get((name, mode))
    note = status
    if tgt and status == "PASSED":
        v = r.get(tgt[0], 0.0)
        note = f"{'MET' if v >= tgt[1] else 'MISSED'} ({tgt[2]})"
    rows.append([name, mode, f"{t['warp_insts']:,}", f"{t['thread_insts']:,}",
                 f"{t['cycles']:,}" if t["cycles"] else "-",
                 f"{r.get('kernel_wall_seconds', 0.0):.2f}", total, cpu,
                 si(r.get("thread_insts_per_s")), si(r.get("warp_insts_per_s")),
                 si(r.get("cycles_per_s")) if t["cycles"] else "-", note])

hdr = ["program", "mode", "warp-insts", "thread-insts", "cycles", "kernel s", "total s", "cpu s",
       "thread-inst/s", "warp-inst/s", "cycles/s", "status / target"]
w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(hdr)]
print("== simulation rates (from the stats JSON: simulated instructions or cycles per second of kernel wall time) ==")
left = (0, 1, len(hdr) - 1)
print("  ".join(h.ljust(w[i]) if i in left else h.rjust(w[i]) for i, h in enumerate(hdr)))
for r in rows:
    print("  ".join(c.ljust(w[i]) if i in left else c.rjust(w[i]) for i, c in enumerate(r)))
print("  kernel s: wall time of the simulated kernels, which the rates are computed over; total s: wall time of the")
print("  whole `simtlab run` (program start-up, PTX loading, host-side self-check); cpu s: its user+sys CPU time.")
print("  cpu s well below total s means the machine was busy with other work and the rates are pessimistic.")
contended = []
for name, mode, status, total, cpu in runs:
    j = loaded.get(name)
    try:
        frac = float(cpu) / float(total)
    except (ValueError, ZeroDivisionError):
        continue
    if j is not None and frac < 0.9:
        contended.append((name, mode, frac, j))
if contended:
    print("  Runs that got less than 90% of a CPU; their rates scaled by total s / cpu s (an estimate of the")
    print("  uncontended single-core rate, assuming the kernels lost CPU like the whole run did):")
    for name, mode, frac, j in contended:
        r = j.get("sim_rate") or j.get("host") or {}
        cyc = si(r.get("cycles_per_s", 0) / frac) if j["totals"]["cycles"] else "-"
        print(f"    {name:<20}{mode:<11}cpu/wall {frac:4.2f}:  {si(r.get('thread_insts_per_s', 0) / frac):>7} thread-inst/s"
              f"  {si(r.get('warp_insts_per_s', 0) / frac):>7} warp-inst/s  {cyc:>7} cycles/s")
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
    model = cfg_get(values, "sim.memory_model", None)
    if not isinstance(mem, dict) or model == "fixed" or cfg_get(values, "mem.l2") is None:
        fixed = cfg_get(values, "sim.fixed_memory_latency")
        c["model"] = f"fixed (every L1 miss: sim.fixed_memory_latency = {fixed} cycles)"
        c["l2"] = c["dram"] = fixed
        c["l2_src"] = c["dram_src"] = "sim.fixed_memory_latency"
        c["bw"] = None
        c["bw_src"] = "n/a: the fixed memory model (sim.memory_model=fixed) has no DRAM bandwidth limit"
        return c
    c["model"] = f"{model or 'full'}"
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

summary = {}  # preset -> {"L1": (meas, conf), ..., "bw": (GB/s, configured, pct)}

def report_pchase(name, pj):
    values = pj["config"]["values"]
    preset = pj["config"]["preset"]
    mc = memory_config(values)
    out = open(os.path.join(res, name + ".out")).read()
    print(f"== {name}: load-to-use latency in core cycles (preset '{preset}', memory model: {mc['model']}) ==")
    probes = {m.group(1): float(m.group(2)) for m in re.finditer(r"PROBE (\S+) (\S+)", out)}
    print(f"  {'level':<6}{'measured':>10}{'configured':>12}{'delta':>8}   configured value")
    for lvl, key in (("L1", "l1"), ("L2", "l2"), ("DRAM", "dram")):
        meas = probes.get(lvl)
        conf = mc[key]
        summary.setdefault(preset, {})[lvl] = (meas, conf)
        print(f"  {lvl:<6}{(f'{meas:.2f}' if meas is not None else '-'):>10}"
              f"{(f'{conf:.1f}' if conf is not None else '-'):>12}{fmt_delta(meas, conf):>8}   {mc[key + '_src']}")
    print("  (probes: L1 = 4 KB ring, ld.global.ca; L2 = 128 KB ring, ld.global.cg; DRAM = 8.1 MB ring, ld.global.cg;")
    print("   measured includes the SM's issue/operand-collector/LD-ST pipeline cycles, configured does not)")
    l1size = cfg_get(values, "sm.l1d.size")
    line = cfg_get(values, "sm.l1d.line") or 128
    l2size = None
    if cfg_get(values, "mem.l2.slice.size") and cfg_get(values, "mem.map.channels"):
        l2size = (cfg_get(values, "mem.l2.slice.size") * cfg_get(values, "mem.map.channels")
                  * cfg_get(values, "mem.map.sub_partitions", 1))
    m = re.search(r"sweep: ring of (\d+) nodes", out)
    nodes = int(m.group(1)) if m else None
    print(f"  stride sweep: ring of {nodes} nodes, ld.global.ca (L1D {kib(l1size)}, L2 {kib(l2size) if l2size else 'n/a'}, "
          f"{line} B lines)")
    print(f"  {'stride':>8}{'footprint':>11}{'lines':>9}{'ptr64':>9}{'idx32':>9}   {'level by capacity':<20}observed (nearest probe)")
    for m in re.finditer(r"SWEEP (\d+) (\d+) (\S+) (\S+)", out):
        st, fp, p64, i32 = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        lines_b = fp if st < line else (nodes or 0) * line  # bytes of distinct lines touched
        if l1size and lines_b <= l1size:
            cap = "L1"
        elif l2size is None:
            cap = "below L1"
        elif lines_b <= l2size:
            cap = "L2"
        else:
            cap = "DRAM"
        obs = "-"
        v = float(p64) if p64 != "nan" else (float(i32) if i32 != "nan" else None)
        if v is not None and probes:
            near = min(probes, key=lambda k: abs(probes[k] - v))
            obs = near if abs(probes[near] - v) <= 5 else f"{near} {v - probes[near]:+.0f} cycles"
            if st < line and cap != "L1":
                obs += " (line shared by several nodes)"
            elif not obs.startswith(cap) and obs.startswith("DRAM"):
                obs += "  <- conflict misses (power-of-two stride)"
        print(f"  {bytes_(st):>8}{bytes_(fp):>11}{bytes_(lines_b):>9}{p64.replace('nan', '-'):>9}"
              f"{i32.replace('nan', '-'):>9}   {cap:<20}{obs}")
    print("  (ptr64: p = *p; idx32: off = *(base + off), adds one mad.wide.u32 per load; lines = bytes of distinct")
    print("   cache lines the ring touches; with strides < line size several nodes share a line)")
    print()

def report_stream(name, sj):
    values = sj["config"]["values"]
    preset = sj["config"]["preset"]
    mc = memory_config(values)
    out = open(os.path.join(res, name + ".out")).read()
    m = re.search(r"STREAM bytes=(\d+) span_cycles=(\d+)", out)
    print(f"== {name}: DRAM bandwidth (preset '{preset}', core clock {mc['core_mhz']} MHz) ==")
    if not m:
        print("  no STREAM line in the program output\n")
        return
    nbytes, span = int(m.group(1)), int(m.group(2))
    kc = sj["totals"]["cycles"]
    hz = mc["core_mhz"] * 1e6
    def gbs(cyc):
        return nbytes / (cyc / hz) / 1e9 if cyc else None
    for label, cyc in (("device clock64() span", span), ("kernel cycles (stats JSON)", kc)):
        g = gbs(cyc)
        pct = 100 * g / mc["bw"] if (g and mc["bw"]) else None
        if label.startswith("kernel"):
            summary.setdefault(preset, {})["bw"] = (g, mc["bw"], pct)
        print(f"  {label:<28} {cyc:>10,} cycles  {nbytes / cyc if cyc else 0:8.1f} B/cycle  "
              f"{(f'{g:.1f}' if g else '-'):>7} GB/s   {f'{pct:.1f}% of configured' if pct else 'configured: n/a'}")
    if mc["bw"]:
        print(f"  configured DRAM bandwidth: {mc['bw']:.1f} GB/s = {mc['bw_src']}")
    else:
        print(f"  configured DRAM bandwidth: {mc['bw_src']}")
    print("  (bytes = 16 MB read + 16 MB written; target, issue #6: >= 70% of the configured DRAM bandwidth)")
    print()

for name, *_ in runs:
    j = loaded.get(name)
    if j is None:
        continue
    if name.split("@")[0] == "pchase":
        report_pchase(name, j)
    elif name.split("@")[0] == "stream":
        report_stream(name, j)

if summary:
    print("== memory microbenchmarks per preset (measured / configured; latencies in core cycles) ==")
    print(f"  {'preset':<14}{'L1':>14}{'L2':>16}{'DRAM':>16}{'stream GB/s':>24}")
    def lat(v):
        if not v or v[0] is None:
            return "-"
        return f"{v[0]:.1f} / {v[1]:.0f}" if v[1] is not None else f"{v[0]:.1f} / -"
    for preset, d in summary.items():
        bw = d.get("bw")
        bws = "-"
        if bw and bw[0]:
            bws = f"{bw[0]:.1f} / {bw[1]:.1f} ({bw[2]:.0f}%)" if bw[1] else f"{bw[0]:.1f} / -"
        print(f"  {preset:<14}{lat(d.get('L1')):>14}{lat(d.get('L2')):>16}{lat(d.get('DRAM')):>16}{bws:>24}")
    print("  (stream GB/s over the kernel's total cycles; issue #6 targets: latencies within a few cycles,"
          " bandwidth >= 70%)")
    print()
PY
fi

# ---- 4. peak memory over many launches -----------------------------------------------------------
# Timing mode with --stats keeps every kernel's record: peak RSS must stay flat from 1,000 to
# 10,000 launches (issue #10; it was ~3 MB per launch). BENCH_LAUNCHES="a b ..." overrides.
if [[ -x "$BENCH_DIR/many_launches" && ( -z "$ONLY" || " $ONLY " == *" many_launches "* ) ]]; then
  echo "== many launches: peak resident memory (timing mode, --stats) =="
  printf "  %-10s %14s %10s %16s\n" launches "peak RSS (MB)" "wall (s)" "launches/s"
  for n in ${BENCH_LAUNCHES:-1000 10000}; do
    line=$(python3 - "$SIMTLAB" "$BENCH_DIR/many_launches" "$n" "$RESULTS/many_launches_$n.json" <<'PY'
import resource, subprocess, sys, time
simtlab, prog, n, stats = sys.argv[1:5]
t = time.time()
r = subprocess.run([simtlab, "run", "--quiet", "--gpu", "fermi-gtx480", "--stats", stats, "--", prog, n],
                   stdout=subprocess.DEVNULL)
wall = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{r.returncode} {rss:.1f} {wall:.1f} {int(n) / wall:.0f}")
PY
)
    read -r rc rss wall lps <<< "$line"
    [[ "$rc" == 0 ]] || { echo "  many_launches $n: FAILED (exit $rc)"; failed=1; }
    printf "  %-10s %14s %10s %16s\n" "$n" "$rss" "$wall" "$lps"
    rm -f "$RESULTS/many_launches_$n.json"  # ~0.5 MB of per-kernel stats per launch
  done
  echo
fi

if [[ $failed -ne 0 ]]; then
  echo "bench.sh: some benchmark programs FAILED (see above)" >&2
  exit 1
fi
echo "bench.sh: all benchmark programs PASSED (speed targets above are reported, not enforced)"
