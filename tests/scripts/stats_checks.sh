#!/usr/bin/env bash
# End-to-end checks of simtlab's outputs on one program:
#   stats     the stats JSON passes check_stats.py
#   trace     the trace passes check_trace.py against the stats of the same run (complete
#             with trace.max_events=0; with a budget of 3000 slices and windows of 50 cycles
#             it is sampled and keeps at most 3000 warp-state and memory slices)
#   tracesize (examples/sgemm) the default trace of the SGEMM example passes check_trace.py and
#             stays under 1,200 bytes per simulated cycle (docs/outputs.md: 1,110 measured)
#   intervals stats.interval=500: every interval series adds up to its kernel total and the
#             kernels' stats are those of the run without intervals (check_intervals.py)
#   progress  (prog_multi_kernel) with stderr not a terminal and --progress-interval 0, plain
#             progress lines (no carriage return) name the kernels demangled and show an ETA
#             once CTAs finish; --no-progress and --quiet print none
#   determinism  two identical runs give byte-identical stats JSON once the "host" section
#             (wall-clock measurements) is removed
#   skip      skipping idle SM cycles changes nothing but speed
#   csv       --csv appends exactly one row per kernel with a header
#   regcap    (prog_launch_bounds) registers are capped as ptxas would for the simulated GPU:
#             launch bounds of 1024 threads on 32768 registers give 32 (16 on 16384);
#             sm.max_regs_per_thread lowers it further
#   fault     (prog_oob_fault) a faulting kernel's record says so and counts what it ran before
#             the fault: functionally warps 0-2 of the block run all 10 instructions, warp 3
#             faults at its 9th (the store), so 38 warp instructions (38 x 32 threads)
#   texture   (prog_texture_linear, prog_texture_array) texture fetches go through the L1T:
#             per kernel, L1T accesses = the distinct 128-byte blocks each warp's fetches
#             read (worked out from the programs below), every miss is one L1T fill request
#             and one tex_load access of the L2, and no texture read touches the L1D
# Usage: stats_checks.sh CHECK SIMTLAB PROGRAM
set -eu
check=$1; simtlab=$2; prog=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { "$simtlab" run --quiet "$@" -- "$prog" > "$tmp/out.txt"; }
case "$check" in
  stats) run --stats "$tmp/s.json"; python3 "$here/check_stats.py" "$tmp/s.json" ;;
  trace)
    run --stats "$tmp/s.json" --trace "$tmp/t.json" --set trace.max_events=0
    python3 "$here/check_trace.py" "$tmp/t.json" "$tmp/s.json"
    run --stats "$tmp/s.json" --trace "$tmp/t.json" --set trace.max_events=3000 --set trace.sample_window=50
    python3 "$here/check_trace.py" "$tmp/t.json" "$tmp/s.json"
    python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["traceEvents"]
d=sum(1 for x in e if x.get("cat") in ("warp","stall","mem"))
s=[x for x in e if x["name"]=="trace sampled"]
assert s and d <= 3000, (d, len(s)); print("trace budget OK:", d, "detail slices, stride", s[-1]["args"]["stride"])' "$tmp/t.json" ;;
  progress)
    "$simtlab" run --progress-interval 0 -- "$prog" > /dev/null 2> "$tmp/err.txt"
    grep -q '^\[simtlab\] saxpy(float, float const\*, float\*, int): cycle [0-9]*, .*CTAs [0-9]*/16' "$tmp/err.txt"
    grep -q 'ETA [0-9]' "$tmp/err.txt"
    ! grep -q $'\r' "$tmp/err.txt"
    "$simtlab" run --progress-interval 0 --no-progress -- "$prog" > /dev/null 2> "$tmp/none.txt"
    "$simtlab" run --progress-interval 0 -q -- "$prog" > /dev/null 2>> "$tmp/none.txt"
    ! grep -q '^\[simtlab\]' "$tmp/none.txt"
    echo "progress OK: $(grep -c '^\[simtlab\]' "$tmp/err.txt") plain lines" ;;
  tracesize)
    run --stats "$tmp/s.json" --trace "$tmp/t.json"
    python3 "$here/check_trace.py" "$tmp/t.json" "$tmp/s.json" --max-bytes-per-cycle 1200 --perfetto ;;
  intervals)
    run --stats "$tmp/s.json" --set stats.interval=500; run --stats "$tmp/off.json"
    python3 "$here/check_intervals.py" "$tmp/s.json" "$tmp/off.json" ;;
  determinism)
    run --stats "$tmp/a.json"; run --stats "$tmp/b.json"
    strip='import json,sys; j=json.load(open(sys.argv[1])); j.pop("host"); print(json.dumps(j, sort_keys=True))'
    python3 -c "$strip" "$tmp/a.json" > "$tmp/a.txt"; python3 -c "$strip" "$tmp/b.json" > "$tmp/b.txt"
    cmp "$tmp/a.txt" "$tmp/b.txt" && echo "determinism OK ($(wc -c < "$tmp/a.txt") bytes)" ;;
  skip)
    # Skipping idle SM cycles is a pure speed-up: identical results with it off.
    run --stats "$tmp/a.json"; run --set sm.skip_idle_cycles=false --stats "$tmp/b.json"
    strip='import json,sys; j=json.load(open(sys.argv[1])); j.pop("host"); j["config"].pop("hash"); j["config"]["values"]["sm"].pop("skip_idle_cycles"); print(json.dumps(j, sort_keys=True))'
    python3 -c "$strip" "$tmp/a.json" > "$tmp/a.txt"; python3 -c "$strip" "$tmp/b.json" > "$tmp/b.txt"
    cmp "$tmp/a.txt" "$tmp/b.txt" && echo "skip-idle equivalence OK" ;;
  concurrency)
    # Kernels of different streams overlap: the run spans far fewer cycles than one kernel
    # at a time, with identical instruction counts.
    run --stats "$tmp/a.json"; run --set gpu.max_concurrent_kernels=1 --stats "$tmp/b.json"
    python3 - "$tmp/a.json" "$tmp/b.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
span = lambda j: max(k["end_cycle"] for k in j["kernels"]) - min(k["start_cycle"] for k in j["kernels"])
if a["totals"]["warp_insts"] != b["totals"]["warp_insts"]:
    sys.exit("FAIL: instruction counts differ")
sa, sb = span(a), span(b)
print(f"span concurrent {sa} cycles, serial {sb} cycles")
if not sa < 0.6 * sb:
    sys.exit("FAIL: concurrent kernels did not overlap")
PY
    ;;
  csv)
    run --csv "$tmp/r.csv" --stats "$tmp/s.json"; run --csv "$tmp/r.csv" --stats "$tmp/s.json"
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["kernels"]))' "$tmp/s.json")
    lines=$(wc -l < "$tmp/r.csv")
    [ "$lines" -eq $((1 + 2 * n)) ] || { echo "FAIL: $lines CSV lines for 2 runs of $n kernels"; exit 1; }
    head -1 "$tmp/r.csv" | grep -q '^config_hash,preset,mode,kernel_index,kernel,' || { echo "FAIL: bad CSV header"; exit 1; }
    echo "csv OK ($lines lines)" ;;
  regcap)
    run --stats "$tmp/a.json"; run --set sm.max_regs_per_thread=20 --stats "$tmp/b.json"
    run --set sm.registers=16384 --stats "$tmp/c.json"
    grep -q '^PASSED' "$tmp/out.txt" || { echo "FAIL: program did not pass with 16K registers"; exit 1; }
    python3 - "$tmp/a.json" "$tmp/b.json" "$tmp/c.json" <<'PY'
import json, sys
a, b, c = (json.load(open(f))["kernels"][0] for f in sys.argv[1:4])
print("default:", a["regs_per_thread"], "of", a["regs_wanted"], a["regs_source"],
      "| max_regs_per_thread 20:", b["regs_per_thread"], "| 16K registers:", c["regs_per_thread"])
if a["regs_source"] != "cubin": sys.exit("FAIL: register count not taken from the cubin")
if not a["regs_wanted"] > 32: sys.exit("FAIL: the cubin should want more than 32 registers")
if a["regs_per_thread"] != 32: sys.exit("FAIL: launch bounds (1024 threads, 32768 registers) should give 32")
if b["regs_per_thread"] != 20: sys.exit("FAIL: sm.max_regs_per_thread=20 should give 20")
if c["regs_per_thread"] != 16: sys.exit("FAIL: launch bounds on 16384 registers should give 16")
PY
    echo "regcap OK" ;;
  fault)
    "$simtlab" run --mode functional --stats "$tmp/f.json" -- "$prog" > "$tmp/out.txt" 2> "$tmp/err.txt"
    grep -q '^PASSED' "$tmp/out.txt" || { echo "FAIL: program did not pass"; exit 1; }
    grep -q 'functional mode.*1 kernel launch, 38 warp instructions (1216 thread)' "$tmp/err.txt" ||
      { echo "FAIL: summary:"; cat "$tmp/err.txt"; exit 1; }
    run --mode timing --stats "$tmp/t.json"
    python3 - "$tmp/f.json" "$tmp/t.json" <<'PY'
import json, sys
f, t = (json.load(open(x)) for x in sys.argv[1:3])
for name, j in (("functional", f), ("timing", t)):
    k = j["kernels"][0]
    print(f'{name}: status {k["status"]}, {k["warp_insts"]} warp instructions, '
          f'{k["thread_insts"]} thread instructions; totals {j["totals"]["warp_insts"]}')
    if k["status"] != "fault" or "invalid global write" not in k.get("error", ""):
        sys.exit(f"FAIL: {name}: the kernel record does not say it faulted")
    if k["warp_insts"] == 0 or j["totals"]["warp_insts"] != k["warp_insts"]:
        sys.exit(f"FAIL: {name}: instructions before the fault not counted")
if (f["kernels"][0]["warp_insts"], f["kernels"][0]["thread_insts"]) != (38, 1216):
    sys.exit("FAIL: functional counts should be 38 warp / 1216 thread instructions")
PY
    echo "fault OK" ;;
  texture)
    run --stats "$tmp/a.json"
    grep -q '^PASSED' "$tmp/out.txt" || { echo "FAIL: program did not pass"; exit 1; }
    python3 - "$tmp/a.json" "$(basename "$prog")" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
# Expected L1T accesses per kernel (one per distinct 128-byte block per warp instruction).
expected = {
    # gatherTex, n = 3000, 12 CTAs of 256: per warp idx[i] and vals[i] are one block each, the
    # gather vals[(7i + 11) % n] spans 7-8 blocks: 927 in all.
    "prog_texture_linear": [927],
    # W x H = 16 x 8 floats, 64-byte rows (two per block), one warp of 16 lanes per row:
    # bilinear at +(0.75, 0.25) reads rows y-1, y (clamped): 1+1+2+1+2+1+2+1 = 11 blocks;
    # at +(0.5, 1.0) rows y, y+1: 1+2+1+2+1+2+1+1 = 11; wrap/point one row each: 8;
    # uchar4 one 64-byte row: 1; 3D ints 16 x 8 x 4, a warp covers two 64-byte rows: 16;
    # the surface-writing kernel reads no texture: 0.
    "prog_texture_array": [11, 11, 8, 1, 16, 0],
}[sys.argv[2]]
got = []
for k in j["kernels"]:
    g = k["stats"]["gpu"]
    sms = [v for n, v in g.items() if n.startswith("sm[")]
    acc = sum(s["l1t"]["accesses"]["values"]["tex_load"] for s in sms)
    miss = sum(s["l1t"]["misses"]["values"]["tex_load"] for s in sms)
    fills = sum(s["l1t"]["fill_requests"]["value"] for s in sms)
    l1d_loads = sum(s["l1d"]["accesses"]["values"]["load"] for s in sms)
    l2 = sum(sl["accesses"]["values"]["tex_load"] for n, p in g["mem"].items()
             if n.startswith("partition[") for sn, sl in p.items() if sn.startswith("slice["))
    print(f'{k["name"]}: L1T accesses {acc}, misses {miss}, fill requests {fills}, '
          f'L2 tex_load accesses {l2}, L1D loads {l1d_loads}')
    if not (miss == fills == l2): sys.exit("FAIL: L1T misses, fill requests and L2 accesses differ")
    if acc and not 0 < miss <= acc: sys.exit("FAIL: implausible L1T misses")
    if l1d_loads: sys.exit("FAIL: texture kernels should not load through the L1D")
    got.append(acc)
if got != expected: sys.exit(f"FAIL: L1T accesses {got}, expected {expected}")
PY
    echo "texture OK" ;;
  *) echo "unknown check $check"; exit 2 ;;
esac
