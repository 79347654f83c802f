#!/usr/bin/env bash
# Runs that must end cleanly and keep their results (issue #10):
#   interrupt   SIGINT during a simulated kernel (timing and functional) and SIGTERM during host
#               code: exit status 128+signal, a valid stats file marked "interrupted" whose last
#               kernel is "interrupted" with partial counts, CSV rows of the finished kernels
#   failed_csv  a livelocked kernel gives a CSV row with status "livelock" and empty result
#               columns, and "status": "livelock" in the stats file
#   memory      peak RSS of 1000 launches (timing mode, --stats) within 8 MB of 100 launches
# Usage: robustness.sh CHECK SIMTLAB PROGRAMS_DIR
set -u
check=$1; simtlab=$2; progs=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case "$check" in
  interrupt)
    for spec in "timing INT kernel 130" "functional INT kernel 130" "timing TERM host 143"; do
      set -- $spec; mode=$1; sig=$2; phase=$3; want=$4
      rm -f "$tmp/s.json" "$tmp/r.csv"
      timeout --preserve-status -s "$sig" 3 "$simtlab" run -q --mode "$mode" --stats "$tmp/s.json" \
        --csv "$tmp/r.csv" -- "$progs/prog_many_launches" 5 "$phase" > "$tmp/out.txt"
      rc=$?
      [ "$rc" -eq "$want" ] || fail "$spec: exit status $rc, expected $want"
      grep -q '^5 launches done' "$tmp/out.txt" || fail "$spec: program output lost"
      grep -q PASSED "$tmp/out.txt" && fail "$spec: the program ran on after the signal"
      python3 - "$tmp/s.json" "$sig" "$phase" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1])); sig = {"INT": 2, "TERM": 15}[sys.argv[2]]
ks = j["kernels"]
assert j["interrupted"]["signal"] == sig, j.get("interrupted")
if sys.argv[3] == "kernel":
    assert len(ks) == 6 and ks[-1]["status"] == "interrupted", [k["status"] for k in ks]
    assert ks[-1]["warp_insts"] > 1000, ks[-1]["warp_insts"]
    assert j["totals"]["failed_launches"] == 1
else:
    assert len(ks) == 5, len(ks)
assert all(k["status"] == "completed" for k in ks[:5])
print(sys.argv[2], sys.argv[3], "kernels:", [k["status"] for k in ks], "last warp_insts", ks[-1]["warp_insts"])
PY
      rows=$(($(wc -l < "$tmp/r.csv") - 1))
      [ "$rows" -eq $([ "$phase" = kernel ] && echo 6 || echo 5) ] || fail "$spec: $rows CSV rows"
    done
    echo "interrupt OK" ;;
  failed_csv)
    "$simtlab" run -q --stats "$tmp/s.json" --csv "$tmp/r.csv" -- "$progs/prog_livelock" flag > /dev/null 2>&1
    tail -1 "$tmp/r.csv" | grep -Eq ',[0-9]+,[0-9]+,,,,,[0-9.]+,livelock$' || fail "row: $(tail -1 "$tmp/r.csv")"
    head -1 "$tmp/r.csv" | grep -q ',cycles,warp_insts,thread_insts,ipc,wall_seconds,status$' || fail "header"
    python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["kernels"][0]; assert k["status"]=="livelock", k["status"]; assert k["error"].startswith("livelock in kernel"), k["error"]' "$tmp/s.json" || exit 1
    echo "failed_csv OK: $(tail -1 "$tmp/r.csv")" ;;
  memory)
    rss() { python3 -c 'import resource,subprocess,sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"; }
    a=$(rss "$simtlab" run -q --stats "$tmp/a.json" -- "$progs/prog_many_launches" 100) || fail "100 launches"
    b=$(rss "$simtlab" run -q --stats "$tmp/b.json" -- "$progs/prog_many_launches" 1000) || fail "1000 launches"
    echo "peak RSS: 100 launches $a KB, 1000 launches $b KB"
    [ $((b - a)) -le 8192 ] || fail "peak memory grows with launches"
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["kernels"]) == 1000' "$tmp/b.json" || fail "stats file"
    echo "memory OK" ;;
  *) echo "unknown check $check"; exit 2 ;;
esac
