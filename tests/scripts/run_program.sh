#!/usr/bin/env bash
# Run one self-checking CUDA test program under `simtlab run` and require exit status 0 and a
# final output line `PASSED`.
# Usage: run_program.sh SIMTLAB MODE PROGRAM [extra simtlab args...] [-- program args...]
set -u
simtlab=$1; mode=$2; prog=$3; shift 3
sargs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do sargs+=("$1"); shift; done
[ $# -gt 0 ] && shift
out=$("$simtlab" run --quiet --mode "$mode" "${sargs[@]}" -- "$prog" "$@" 2>/tmp/simtlab-test-$$.err)
status=$?
echo "$out"
cat /tmp/simtlab-test-$$.err >&2; rm -f /tmp/simtlab-test-$$.err
if [ $status -ne 0 ]; then echo "FAIL: exit status $status" >&2; exit 1; fi
last=$(printf '%s\n' "$out" | tail -n 1)
if [ "$last" != "PASSED" ]; then echo "FAIL: last line is '$last', not PASSED" >&2; exit 1; fi
exit 0
