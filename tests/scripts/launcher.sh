#!/usr/bin/env bash
# `simtlab run` accepts a launcher without CUDA code (here /bin/sh) and the CUDA program the
# launcher starts runs on the simulated GPU. Usage: launcher.sh SIMTLAB PROGRAM
set -u
simtlab=$1; prog=$2
out=$("$simtlab" run --mode functional -- /bin/sh -c "'$prog' && echo launched-ok" 2>&1)
status=$?
echo "$out"
[ $status -eq 0 ] || { echo "FAIL: exit status $status"; exit 1; }
grep -q '^PASSED' <<< "$out" || { echo "FAIL: the program did not pass"; exit 1; }
grep -q '^launched-ok' <<< "$out" || { echo "FAIL: the launcher did not finish"; exit 1; }
grep -q 'functional mode, GPU' <<< "$out" || { echo "FAIL: no simtlab summary: not simulated"; exit 1; }
echo "launcher ok"
