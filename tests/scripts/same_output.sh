#!/usr/bin/env bash
# A program prints exactly the same thing in functional and timing mode (timing never changes
# what a program computes). Usage: same_output.sh SIMTLAB PROGRAM
set -u
simtlab=$1; prog=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$simtlab" run --quiet --mode functional -- "$prog" > "$tmp/f.txt" 2>/dev/null; sf=$?
"$simtlab" run --quiet --mode timing -- "$prog" > "$tmp/t.txt" 2>/dev/null; st=$?
if [ $sf -ne $st ]; then echo "FAIL: exit status $sf (functional) vs $st (timing)"; exit 1; fi
if ! diff "$tmp/f.txt" "$tmp/t.txt"; then echo "FAIL: output differs between modes"; exit 1; fi
echo "same output ($(wc -l < "$tmp/f.txt") lines, exit $sf)"
