#!/usr/bin/env bash
# `simtlab sweep`: plan, run, resume, retry, status, collect and experiment-file errors.
# Usage: sweep.sh SIMTLAB CASE      (CASE: basic | resume | retry | errors)
set -u
sim=$1; case_=$2
dir=$(mktemp -d /tmp/simtlab-sweep-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }

case $case_ in
basic)
  # Two variants x (one suite workload + one command): 4 runs, one row per kernel launch.
  cat > exp.yaml <<EOT
experiment: basic
gpu: fermi-c2050
workloads:
  - workload: vectoradd
  - name: small
    command: [$(dirname "$sim")/../workloads/vectoradd, "3000"]
baseline: lrr
variants:
  lrr: {set: [sm.scheduler=lrr]}
  gto: {set: [sm.scheduler=gto]}
EOT
  "$sim" sweep run exp.yaml --out out -j 2 --no-build || fail "sweep run failed"
  "$sim" sweep status out | tee status.txt
  grep -q "basic: 4 runs: 4 passed, 0 failed, 0 pending" status.txt || fail "status"
  # header + one launch per run
  [ "$(wc -l < out/results.csv)" = 5 ] || fail "results.csv has $(wc -l < out/results.csv) lines, expected 5"
  head -1 out/results.csv | grep -q '^experiment,workload,variant,baseline,rep,run_status,preset,config_hash,cfg:sm.scheduler,kernel,' || fail "header"
  head -1 out/results.csv | grep -q 'stat:sm_total.warp_insts' || fail "no stat columns"
  head -1 out/results.csv | grep -q ',host_run_seconds,host_kernel_seconds$' || fail "host columns last"
  grep -q '^basic,vectoradd,lrr,1,0,passed,fermi-c2050,[0-9a-f]*,lrr,_Z6VecAddPKfS0_Pfi,VecAdd,0,completed,157x1x1,256x1x1,' out/results.csv || fail "vectoradd lrr row"
  grep -q '^basic,vectoradd,gto,0,0,passed,fermi-c2050,[0-9a-f]*,gto,' out/results.csv || fail "vectoradd gto row"
  grep -q '^basic,small,gto,0,0,passed,fermi-c2050,[0-9a-f]*,gto,_Z6VecAddPKfS0_Pfi,VecAdd,0,completed,12x1x1,' out/results.csv || fail "small gto row"
  # Collect again: identical except host-time columns (the last two).
  cut -d, -f1-$(( $(head -1 out/results.csv | tr ',' '\n' | wc -l) - 2 )) out/results.csv > a.csv
  "$sim" sweep collect out --csv again.csv || fail "collect"
  cut -d, -f1-$(( $(head -1 again.csv | tr ',' '\n' | wc -l) - 2 )) again.csv > b.csv
  cmp a.csv b.csv || fail "collect is not deterministic"
  # A second run finds everything finished.
  "$sim" sweep run exp.yaml --out out --no-build 2> rerun.txt || fail "rerun"
  grep -q "4 runs, 4 finished before, 0 to run" rerun.txt || fail "rerun re-ran: $(cat rerun.txt)"
  ;;
resume)
  # Six one-second runs, one at a time; stop the sweep after two have finished, run it again:
  # only the missing runs execute (each run appends its id to a log).
  cat > exp.yaml <<EOT
experiment: resume
gpu: fermi-c2050
mode: functional
workloads:
  - {name: a, command: [sh, -c, "echo a >> $dir/ran.log; sleep 1"]}
  - {name: b, command: [sh, -c, "echo b >> $dir/ran.log; sleep 1"]}
  - {name: c, command: [sh, -c, "echo c >> $dir/ran.log; sleep 1"]}
variants:
  one: {}
  two: {set: [gpu.num_sms=2]}
EOT
  set -m  # the background sweep gets a process group of its own (as a terminal's Ctrl-C sees it)
  "$sim" sweep run exp.yaml --out out -j 1 > first.txt 2>&1 &
  pid=$!
  set +m
  for _ in $(seq 200); do
    [ "$(ls out/runs/*/*/status.json 2>/dev/null | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  kill -INT -- -"$pid"; wait "$pid"
  done_before=$(ls out/runs/*/*/status.json | wc -l)
  [ "$done_before" -ge 2 ] && [ "$done_before" -lt 6 ] || fail "$done_before runs finished before the stop"
  cp ran.log ran.before
  "$sim" sweep run exp.yaml --out out -j 2 2> second.txt || fail "second run: $(cat second.txt)"
  grep -q "6 runs, $done_before finished before, $((6 - done_before)) to run" second.txt || fail "$(cat second.txt)"
  # Every run executed; those finished before the stop exactly once.
  [ "$(sort -u ran.log | wc -l)" = 3 ] || fail "not every workload ran"
  "$sim" sweep status out | grep -q "6 runs: 6 passed" || fail "status after resume"
  [ "$(wc -l < ran.log)" -le $(( $(wc -l < ran.before) + 6 - done_before )) ] || fail "finished runs ran again"
  ;;
retry)
  # flaky fails once then passes (retried in the same invocation); broken always fails and is
  # reported with its stderr tail; the sweep exits 1.
  cat > exp.yaml <<EOT
experiment: retry
gpu: fermi-c2050
mode: functional
workloads:
  - {name: flaky, command: [sh, -c, "if [ -e $dir/flag ]; then exit 0; else touch $dir/flag; echo first try fails >&2; exit 3; fi"]}
  - {name: broken, command: [sh, -c, "echo something went wrong >&2; exit 7"]}
variants:
  v: {}
EOT
  "$sim" sweep run exp.yaml --out out 2> err.txt && fail "a sweep with a broken run exited 0"
  cat err.txt
  grep -q "flaky/v failed (exit code 3); trying it once more" err.txt || fail "no retry of flaky"
  grep -q "broken/v failed after 2 attempts: exit code 7" err.txt || fail "broken not reported"
  grep -q "something went wrong" err.txt || fail "no stderr tail"
  "$sim" sweep status out > st.txt
  cat st.txt
  grep -q "retry: 2 runs: 1 passed, 1 failed, 0 pending" st.txt || fail "status counts"
  grep -q "broken/v failed (attempt 2): exit code 7" st.txt || fail "status detail"
  grep -q '"attempt": 2' out/runs/flaky/v/status.json || fail "flaky passed on attempt 2"
  grep -q '^retry,broken,v,1,0,failed,' out/results.csv || fail "failed run has a row"
  ;;
errors)
  base='experiment: e
workloads:
  - workload: vectoradd
variants:
  a: {set: [sm.scheduler=gto]}'
  check() {  # check NAME "expected substring" < experiment text
    cat > "$1.yaml"
    if "$sim" sweep run "$1.yaml" --out "out-$1" --no-build 2> "$1.err"; then fail "$1: exit 0"; fi
    grep -qF -- "$2" "$1.err" || fail "$1: stderr lacks '$2': $(cat "$1.err")"
    [ ! -e "out-$1/runs" ] || fail "$1: runs started"
  }
  printf '%s\nbogus: 1\n' "$base" | check unknown_key "e: bogus: unknown key"
  sed 's/workload: vectoradd/workload: nosuch/' <<< "$base" | check unknown_workload "workloads[0].workload: no workload 'nosuch'"
  sed 's/sm.scheduler=gto/sm.schedulr=gto/' <<< "$base" | check bad_set_key "variants.a: "
  sed 's/sm.scheduler=gto/sm.scheduler=fastest/' <<< "$base" | check bad_set_value "variants.a: "
  printf '%s\nbaseline: b\n' "$base" | check bad_baseline "baseline: 'b' is not one of the variants"
  sed 's/- workload: vectoradd/- set: thesis-ch9/' <<< "$base" | check unknown_set "workloads[0].set: no set 'thesis-ch9'"
  printf 'experiment: e\nvariants:\n  a: {}\n' | check no_workloads "workloads: missing or empty list"
  printf '%s\n  b: {set: [sm.num_sms=x]}\n' "$base" | check bad_value2 "variants.b: "
  grep -q "sm.schedulr" bad_set_key.err || fail "bad key not named"
  ;;
*) fail "unknown case $case_" ;;
esac
echo "sweep $case_: ok"
