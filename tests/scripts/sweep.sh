#!/usr/bin/env bash
# `simtlab sweep`: plan, run, resume, retry, status, collect and experiment-file errors.
# Usage: sweep.sh SIMTLAB CASE
#   CASE: basic | resume | retry | errors | lock | tstp | killresume | corrupt | names | outdir

set -u
shopt -s lastpipe  # `... | check`: check runs in this shell, so its `fail` ends the test
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
  printf '%s\nbogus: 1\n' "$base" | check unknown_key "unknown_key.yaml: bogus: unknown key"
  sed 's/workload: vectoradd/workload: nosuch/' <<< "$base" | check unknown_workload "workloads[0].workload: no workload 'nosuch'"
  sed 's/sm.scheduler=gto/sm.schedulr=gto/' <<< "$base" | check bad_set_key "variants.a: "
  sed 's/sm.scheduler=gto/sm.scheduler=fastest/' <<< "$base" | check bad_set_value "variants.a: "
  printf '%s\nbaseline: b\n' "$base" | check bad_baseline "baseline: 'b' is not one of the variants"
  sed 's/- workload: vectoradd/- set: thesis-ch9/' <<< "$base" | check unknown_set "workloads[0].set: no set 'thesis-ch9'"
  printf 'experiment: e\nvariants:\n  a: {}\n' | check no_workloads "workloads: missing or empty list"
  printf '%s\n  b: {set: [sm.num_sms=x]}\n' "$base" | check bad_value2 "variants.b: "
  grep -q "sm.schedulr" bad_set_key.err || fail "bad key not named"
  ;;
lock)
  # A second `sweep run` into the same directory is refused and names the first one's pid; once
  # the first has ended (here: killed with SIGKILL, so it cannot clean up) the lock is gone.
  cat > exp.yaml <<EOT
experiment: lock
mode: functional
workloads:
  - {name: slow, command: [sh, -c, "touch $dir/started; sleep 4"]}
variants:
  v: {}
EOT
  "$sim" sweep run exp.yaml --out out > first.txt 2>&1 &
  pid=$!
  for _ in $(seq 300); do [ -e started ] && break; sleep 0.05; done
  [ -e started ] || fail "the first sweep never started its run"
  if "$sim" sweep run exp.yaml --out out 2> second.txt; then fail "a second sweep into out ran"; fi
  cat second.txt
  grep -qF "simtlab sweep: out is in use by another \`simtlab sweep run\` (pid $pid on " second.txt ||
    fail "the refusal does not name pid $pid: $(cat second.txt)"
  "$sim" sweep status out | grep -q "slow/v running (pid [0-9]* on " || fail "status does not show the running run"
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  # The dead sweep's lock is released by the kernel: a new sweep runs (and redoes the run its
  # killed predecessor did not finish).
  "$sim" sweep run exp.yaml --out out 2> third.txt || fail "the sweep after the kill failed: $(cat third.txt)"
  grep -q "1 runs, 0 finished before, 1 to run" third.txt || fail "$(cat third.txt)"
  "$sim" sweep status out | grep -q "lock: 1 runs: 1 passed" || fail "status after the kill"
  ;;
tstp)
  # Ctrl-Z stops the runs too (each run's command has a process group of its own, not the
  # terminal's: sweep exec passes the stop on) and `fg` (SIGCONT) resumes them.
  cat > exp.yaml <<EOT
experiment: tstp
mode: functional
workloads:
  - {name: w, command: [sh, -c, "echo \$\$ > $dir/run.pid; sleep 2; echo done"]}
variants:
  v: {}
EOT
  set -m
  "$sim" sweep run exp.yaml --out out > log.txt 2>&1 &
  pid=$!
  set +m
  for _ in $(seq 300); do [ -s run.pid ] && pgrep -P "$(cat run.pid)" > /dev/null && break; sleep 0.05; done
  child=$(pgrep -P "$(cat run.pid)") || fail "the run did not start"
  kill -TSTP -- -"$pid"
  sleep 0.5
  state=$(awk '{print $3}' "/proc/$child/stat")
  [ "$state" = T ] || fail "the run's process is not stopped (state $state)"
  kill -CONT -- -"$pid"
  wait "$pid" || fail "the sweep failed after SIGCONT: $(cat log.txt)"
  "$sim" sweep status out | grep -q "tstp: 1 runs: 1 passed" || fail "status"
  ;;
killresume)
  # SIGKILL a sweep while two runs execute, resume at once: no run may execute twice at the same
  # time (each run's command holds a lock of its own, flock -n, and logs when it finds it taken),
  # and every run ends passed.
  ws=""
  for w in a b c d; do
    ws+="  - {name: $w, command: [sh, -c, \"flock -n $dir/lk.$w sh -c 'echo $w >> $dir/ran.log; sleep 3' || { echo $w >> $dir/overlap.log; exit 1; }\"]}
"
  done
  printf 'experiment: killresume\nmode: functional\nworkloads:\n%svariants:\n  v: {}\n' "$ws" > exp.yaml
  "$sim" sweep run exp.yaml --out out -j 2 > first.txt 2>&1 &
  pid=$!
  for _ in $(seq 300); do
    [ "$(wc -l < ran.log 2>/dev/null)" = 2 ] && break
    sleep 0.05
  done
  [ "$(wc -l < ran.log)" = 2 ] || fail "two runs did not start"
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  "$sim" sweep run exp.yaml --out out -j 4 2> second.txt
  rc=$?
  cat second.txt
  [ ! -e overlap.log ] || fail "runs executed twice at the same time: $(sort -u overlap.log | tr '\n' ' ')"
  [ "$rc" = 0 ] || fail "the resumed sweep failed"
  "$sim" sweep status out | grep -q "killresume: 4 runs: 4 passed" || fail "status after resume"
  [ "$(sort -u ran.log | tr -d '\n')" = abcd ] || fail "not every run executed: $(cat ran.log)"
  # Nothing of the killed sweep is left running.
  pgrep -f "sweep exec $dir/out" && fail "processes of the killed sweep still run"
  ;;
corrupt)
  # A passed run whose stats.json is damaged afterwards is `corrupt` (status, collect) and is
  # run again, alone, by the next sweep run.
  bin=$(dirname "$sim")/../workloads/vectoradd
  cat > exp.yaml <<EOT
experiment: corrupt
mode: functional
workloads:
  - {name: va, command: [$bin, "2000"]}
variants:
  a: {}
  b: {set: [sm.scheduler=gto]}
  c: {set: [sm.scheduler=lrr]}
  d: {set: [gpu.num_sms=2]}
EOT
  "$sim" sweep run exp.yaml --out out -j 2 2> /dev/null || fail "sweep run"
  cp out/runs/va/b/status.json b.status
  truncate -s 100 out/runs/va/a/stats.json                      # cut short
  rm out/runs/va/c/stats.json                                   # deleted
  python3 - out/runs/va/d/stats.json <<'PY'                      # a kernel entry dropped
import json, sys
d = json.load(open(sys.argv[1])); d["kernels"] = []
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
  "$sim" sweep status out > st.txt
  cat st.txt
  grep -q "corrupt: 4 runs: 1 passed, 0 failed, 0 pending, 3 corrupt" st.txt || fail "status counts"
  grep -q "va/a corrupt (attempt 1): corrupt stats: stats.json: not valid JSON: it ends (at byte 100) in the middle of a value; truncated?" st.txt || fail "truncated stats not reported"
  grep -q "va/c corrupt (attempt 1): corrupt stats: stats.json is missing (the run wrote [0-9]* bytes)" st.txt || fail "missing stats not reported"
  grep -q "va/d corrupt (attempt 1): corrupt stats: stats.json has 0 kernel entries but totals.launches says 1" st.txt || fail "incomplete stats not reported"
  "$sim" sweep collect out 2> collect.txt || fail "collect"
  cat collect.txt
  grep -q '^corrupt,va,a,1,0,corrupt,,,,,,,,,,,,,,' out/results.csv || fail "no corrupt row for va/a: $(grep ',va,a,' out/results.csv)"
  grep -q '^corrupt,va,d,0,0,corrupt,' out/results.csv || fail "no corrupt row for va/d"
  grep -q '^corrupt,va,b,0,0,passed,.*,_Z6VecAddPKfS0_Pfi,' out/results.csv || fail "va/b row"
  grep -q "out/runs/va/a/stats.json: not valid JSON" collect.txt || fail "collect does not name the file"
  "$sim" sweep run exp.yaml --out out 2> rerun.txt || fail "rerun: $(cat rerun.txt)"
  cat rerun.txt
  grep -q "4 runs, 1 finished before, 3 to run" rerun.txt || fail "the rerun did not redo exactly the corrupt runs"
  grep -q "va/a: corrupt stats: stats.json: not valid JSON" rerun.txt || fail "the rerun does not say why"
  cmp b.status out/runs/va/b/status.json || fail "the intact run was run again"
  "$sim" sweep status out | grep -q "corrupt: 4 runs: 4 passed, 0 failed, 0 pending$" || fail "status after the rerun"
  # A damaged status.json is reported too (and the run redone).
  printf '{"status": "passed", "plan_ha' > out/runs/va/b/status.json
  "$sim" sweep status out > st2.txt
  grep -qF "va/b corrupt: status.json: not valid JSON: it ends (at byte 29) in the middle of a value; truncated?" st2.txt || fail "damaged status.json: $(cat st2.txt)"
  # A plan.json whose run id would leave OUT: the file and the field, before anything runs.
  python3 - out/plan.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["runs"][0]["id"] = "../../etc"
json.dump(d, open(sys.argv[1], "w"))
PY
  if "$sim" sweep exec out --run ../../etc 2> plan.err; then fail "exec with a damaged plan.json exited 0"; fi
  grep -qF "simtlab sweep: out/plan.json: runs[0].id: '../../etc' is not va/a[.r0]" plan.err || fail "damaged plan.json: $(cat plan.err)"
  printf '{"runs": [' > out/plan.json
  if "$sim" sweep status out 2> plan2.err; then fail "status with a truncated plan.json exited 0"; fi
  grep -qF "simtlab sweep: out/plan.json: not valid JSON: it ends (at byte 10) in the middle of a value; truncated?" plan2.err || fail "truncated plan.json: $(cat plan2.err)"
  ;;
names)
  # Names become directories under --out (runs/<workload>/<variant>) and the default --out is
  # sweeps/<experiment>: none may leave it, hold a line break, or be ambiguous.
  check() {  # check NAME "expected substring" < experiment text
    cat > "$1.yaml"
    if "$sim" sweep run "$1.yaml" --out "out-$1" --dry-run 2> "$1.err"; then fail "$1: exit 0"; fi
    grep -qF -- "$2" "$1.err" || fail "$1: stderr lacks '$2': $(cat "$1.err")"
  }
  ok='  - {name: w, command: [sh, -c, "true"]}'
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  "..": {}\n' "$ok" | check dotdot_variant "dotdot_variant.yaml: variants...: '..' would leave the output directory"
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  "a/../b": {}\n' "$ok" | check dotdot_slash "dotdot_slash.yaml: variants.a/../b: 'a/../b' would leave the output directory"
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  "a/b": {}\n' "$ok" | check slash "slash.yaml: variants.a/b: 'a/b' contains '/'"
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  "/tmp/x": {}\n' "$ok" | check absolute "absolute.yaml: variants./tmp/x: '/tmp/x' is an absolute path"
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  "a\\nb": {}\n' "$ok" | check newline "newline.yaml: variants.a\\nb: 'a\\nb' contains a control character (\\n)"
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  ".hidden": {}\n' "$ok" | check dot "dot.yaml: variants..hidden: '.hidden' starts with '.'"
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  "-x": {}\n' "$ok" | check dash "dash.yaml: variants.-x: '-x' starts with '-'"
  printf 'experiment: e\nworkloads:\n  - {name: "../w", command: [sh]}\nvariants:\n  a: {}\n' | check workload_dotdot "workload_dotdot.yaml: workloads[0].name: '../w' would leave the output directory"
  printf 'experiment: e\nworkloads:\n  - {name: "w\\tx", command: [sh]}\nvariants:\n  a: {}\n' | check workload_tab "workload_tab.yaml: workloads[0].name: 'w\\tx' contains a control character (\\t)"
  printf 'experiment: ../../escape\nworkloads:\n%s\nvariants:\n  a: {}\n' "$ok" | check exp_dotdot "exp_dotdot.yaml: experiment: '../../escape' would leave the output directory"
  printf 'experiment: /etc\nworkloads:\n%s\nvariants:\n  a: {}\n' "$ok" | check exp_abs "exp_abs.yaml: experiment: '/etc' is an absolute path"
  printf 'experiment: "e\\nf"\nworkloads:\n%s\nvariants:\n  a: {}\n' "$ok" | check exp_newline "exp_newline.yaml: experiment: 'e\\nf' contains a control character (\\n)"
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  a: {}\n  b: {}\n  a: {set: [sm.scheduler=gto]}\n' "$ok" | check dup_variant "dup_variant.yaml: variants.a: appears twice (lines 5 and 7)"
  printf 'experiment: e\nworkloads:\n%s\nvariants:\n  a: {}\nslurm:\n  extra: ["--qos=x", "--comment=x\\necho injected"]\n' "$ok" | check slurm_newline "slurm_newline.yaml: slurm.extra[1]: '--comment=x\\necho injected' contains a line break"
  printf 'experiment: e\nworkloads:\n  - {name: w, command: [sh], cwd: no/such/dir}\nvariants:\n  a: {}\n' | check cwd "cwd.yaml: workloads[0].cwd: 'no/such/dir' does not exist (relative to $dir, where the sweep runs)"
  ;;
outdir)
  # --out at a non-empty directory that is not a sweep is refused (unless --force-out); a
  # sweep's own directory, an empty one and a new one are fine.
  printf 'experiment: o\nmode: functional\nworkloads:\n  - {name: w, command: [sh, -c, "true"]}\nvariants:\n  a: {}\n' > exp.yaml
  mkdir mine && echo precious > mine/thesis.tex
  if "$sim" sweep run exp.yaml --out mine 2> refused.txt; then fail "--out at a non-sweep directory ran"; fi
  grep -qF "simtlab sweep: --out mine is a non-empty directory that holds no sweep (no plan.json; it has 'thesis.tex'); give an empty or new directory, or --force-out to use it anyway" refused.txt || fail "$(cat refused.txt)"
  [ "$(ls -A mine)" = thesis.tex ] || fail "the refused sweep wrote into mine: $(ls -A mine)"
  "$sim" sweep run exp.yaml --out mine --force-out 2> /dev/null || fail "--force-out"
  [ -e mine/plan.json ] && [ "$(cat mine/thesis.tex)" = precious ] || fail "--force-out sweep"
  "$sim" sweep run exp.yaml --out mine 2> /dev/null || fail "a sweep's own directory is refused"
  mkdir empty && "$sim" sweep run exp.yaml --out empty 2> /dev/null || fail "an empty directory is refused"
  "$sim" sweep run exp.yaml --out new/sub 2> /dev/null || fail "a new directory is refused"
  ;;
*) fail "unknown case $case_" ;;
esac
echo "sweep $case_: ok"
