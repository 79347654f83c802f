#!/usr/bin/env bash
# End-to-end checks of simtlab's outputs on one program:
#   stats     the stats JSON passes check_stats.py
#   trace     the trace passes check_trace.py against the stats of the same run
#   determinism  two identical runs give byte-identical stats JSON once the "host" section
#             (wall-clock measurements) is removed
#   skip      skipping idle SM cycles changes nothing but speed
#   csv       --csv appends exactly one row per kernel with a header
#   regcap    (prog_launch_bounds) registers are capped as ptxas would for the simulated GPU:
#             launch bounds of 1024 threads on 32768 registers give 32 (16 on 16384);
#             sm.max_regs_per_thread lowers it further
# Usage: stats_checks.sh CHECK SIMTLAB PROGRAM
set -eu
check=$1; simtlab=$2; prog=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { "$simtlab" run --quiet "$@" -- "$prog" > "$tmp/out.txt"; }
case "$check" in
  stats) run --stats "$tmp/s.json"; python3 "$here/check_stats.py" "$tmp/s.json" ;;
  trace) run --stats "$tmp/s.json" --trace "$tmp/t.json"; python3 "$here/check_trace.py" "$tmp/t.json" "$tmp/s.json" ;;
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
  *) echo "unknown check $check"; exit 2 ;;
esac
